/**
 * A byte-level Aho-Corasick automaton, compiled to a dense transition table, so all literal signals are
 * found in one pass over the output at a few hundred MB/s, whatever their number.
 */

/** Finds many literal byte strings in a stream of chunks; the state carries across chunk boundaries. */
export class LiteralScanner {
  /** `delta[(state << 8) | byte]` is the next state. */
  private readonly delta: Int32Array
  /** For each state, the ids of the literals that end there (empty for most states). */
  readonly outputs: readonly (readonly number[])[]
  private readonly hasOutput: Uint8Array

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
    const delta = new Int32Array(states * 256)
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
    this.delta = delta
    this.outputs = out
    this.hasOutput = Uint8Array.from(out, (ids) => (ids.length > 0 ? 1 : 0))
  }

  /**
   * Scans `bytes` from `state` (0 at the start of a stream), appending the end position and the state
   * of every match to `positions` and `states` (map states to literal ids through `outputs`). Returns the
   * state to continue from with the next chunk; the table itself is immutable and shareable.
   */
  scan(bytes: Uint8Array, state: number, positions: number[], states: number[]): number {
    const delta = this.delta
    const hasOutput = this.hasOutput
    for (let i = 0; i < bytes.length; i++) {
      state = delta[(state << 8) | (bytes[i] as number)] as number
      if (hasOutput[state] === 1) {
        positions.push(i)
        states.push(state)
      }
    }
    return state
  }
}
