/**
 * The state store's notes that mean data was lost, rolled back or not mirrored (an expired snapshot, an
 * audit trail file that could not be restored, a mirror that failed): each is a warning annotation when
 * it happens, and the job's summary and the loop's status comment list them, so a loss is never only a
 * line in the log. The store's other notes (a fallback taken, a replaced snapshot deleted) stay in the log.
 */
import type { Logger } from '../ports/logger.js'

/** The warnings of one job's store, each once, in the order they came. */
export class StoreWarnings {
  private readonly seen = new Set<string>()

  get messages(): readonly string[] {
    return [...this.seen]
  }

  /** Where the store's notes go: warnings to the log's annotations and this list, the rest to the log. */
  sink(logger: Pick<Logger, 'info' | 'warning'>): (message: string, level: 'info' | 'warning') => void {
    return (message, level) => {
      if (level === 'info') return logger.info(message)
      if (this.seen.has(message)) return
      this.seen.add(message)
      logger.warning(`State store: ${message}`)
    }
  }
}

/**
 * The block the summary and the status comment carry while the store warned in this job, or '' when
 * it did not. `redact` is the report's own (a message may quote an API's answer).
 */
export function storeWarningsNote(messages: readonly string[], redact: (text: string) => string): string {
  if (messages.length === 0) return ''
  const lines = messages.map((message) => `> - ${redact(message).replace(/\s+/g, ' ')}`)
  return `> [!WARNING]\n> The state store lost, rolled back or did not mirror data in this job:\n${lines.join('\n')}\n`
}
