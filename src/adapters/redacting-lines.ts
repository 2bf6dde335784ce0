/**
 * Redacting a child's output as it streams: a secret split across two chunks would slip past a
 * chunk-by-chunk redactor, so output is cut into lines (or long runs) before it is masked.
 */

/** A run without a line break is masked and passed on at this size, so memory stays bounded. */
export const MAX_PENDING_BYTES = 64 * 1024

export class RedactingLines {
  private pending = ''

  constructor(
    private readonly redact: (text: string) => string,
    private readonly emit: (chunk: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    this.pending += chunk.toString('utf8')
    const cut = Math.max(this.pending.lastIndexOf('\n'), this.pending.lastIndexOf('\r'))
    if (cut >= 0) {
      this.send(this.pending.slice(0, cut + 1))
      this.pending = this.pending.slice(cut + 1)
    }
    if (this.pending.length >= MAX_PENDING_BYTES) this.flush()
  }

  flush(): void {
    if (this.pending === '') return
    this.send(this.pending)
    this.pending = ''
  }

  private send(text: string): void {
    this.emit(Buffer.from(this.redact(text), 'utf8'))
  }
}
