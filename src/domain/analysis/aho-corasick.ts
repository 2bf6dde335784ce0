/**
 * A byte-level Aho-Corasick automaton, compiled to a dense transition table, so all literal signals are
 * found in one pass over the output at a few hundred MB/s, whatever their number.
 */

/** Finds many literal byte strings in a stream of chunks; the state carries across chunk boundaries. */
export class LiteralScanner {
  /**
   * `delta[state * classes + byteClass[byte]]` is the next state. Bytes that occur in no literal share
   * class 0, which keeps the table small enough to stay in cache (the scan is memory-bound).
   */
  private readonly delta: Int32Array
  /** Indexed by a pre-multiplied state: 1 where some literal ends. */
  private readonly flagged: Uint8Array
  private readonly byteClass: Uint8Array
  private readonly classes: number
  /** For each state, the ids of the literals that end there (empty for most states). */
  readonly outputs: readonly (readonly number[])[]

  /** Literals longer than this many bytes in total make the table too large (states x 1 KiB). */
  static readonly MAX_TOTAL_BYTES = 64 * 1024

  constructor(literals: readonly Uint8Array[]) {
    const total = literals.reduce((sum, l) => sum + l.length, 0)
    if (total > LiteralScanner.MAX_TOTAL_BYTES) {
      throw new RangeError(
        `The literal signals add up to ${total} bytes; at most ${LiteralScanner.MAX_TOTAL_BYTES} are supported.`,
      )
    }
    const goto: Map<number, number>[] = [new Map()]
    const out: number[][] = [[]]
    literals.forEach((literal, id) => {
      if (literal.length === 0) return
      let state = 0
      for (const byte of literal) {
        let next = goto[state]?.get(byte)
        if (next === undefined) {
          next = goto.length
          goto.push(new Map())
          out.push([])
          goto[state]?.set(byte, next)
        }
        state = next
      }
      out[state]?.push(id)
    })
    const states = goto.length
    const byteClass = new Uint8Array(256)
    let classes = 1
    for (const literal of literals) for (const byte of literal) if (byteClass[byte] === 0) byteClass[byte] = classes++
    const wide = new Int32Array(states * 256)
    const delta = wide
    const fail = new Int32Array(states)
    const queue: number[] = []
    for (let byte = 0; byte < 256; byte++) {
      const next = goto[0]?.get(byte) ?? 0
      delta[byte] = next
      if (next !== 0) queue.push(next)
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number
      const failState = fail[state] as number
      out[state] = [...(out[state] ?? []), ...(out[failState] ?? [])]
      for (let byte = 0; byte < 256; byte++) {
        const next = goto[state]?.get(byte)
        if (next !== undefined) {
          fail[next] = delta[(failState << 8) | byte] as number
          delta[(state << 8) | byte] = next
          queue.push(next)
        } else {
          delta[(state << 8) | byte] = delta[(failState << 8) | byte] as number
        }
      }
    }
    // Rows are stored pre-multiplied by the class count, so the hot loop needs no multiplication.
    const narrow = new Int32Array(states * classes)
    const flagged = new Uint8Array(states * classes)
    for (let state = 0; state < states; state++) {
      if ((out[state]?.length ?? 0) > 0) flagged[state * classes] = 1
      for (let byte = 0; byte < 256; byte++) {
        narrow[state * classes + (byteClass[byte] as number)] = (wide[(state << 8) | byte] as number) * classes
      }
    }
    this.delta = narrow
    this.flagged = flagged
    this.byteClass = byteClass
    this.classes = classes
    this.outputs = out
  }

  /**
   * Scans `bytes` from `state` (0 at the start of a stream), appending the end position and the state
   * of every match to `positions` and `states` (map states to literal ids through `outputs`). Returns the
   * state to continue from with the next chunk; the table itself is immutable and shareable.
   */
  scan(bytes: Uint8Array, state: number, positions: number[], states: number[]): number {
    const delta = this.delta
    const flagged = this.flagged
    const byteClass = this.byteClass
    const classes = this.classes
    let row = state * classes
    for (let i = 0; i < bytes.length; i++) {
      row = delta[row + (byteClass[bytes[i] as number] as number)] as number
      if (flagged[row] === 1) {
        positions.push(i)
        states.push(row / classes)
      }
    }
    return row / classes
  }
}
