import type { JourneyEvent } from '../domain/journey.js'

/**
 * One loop's audit trail as the iterations write it: the journey log (with staged batches that reach
 * it only once the state they belong to is saved), the iteration records, `final.md` and dead letters.
 * Implemented by `adapters/audit-trail.ts`.
 */
export interface AuditLog {
  appendEvents(events: readonly JourneyEvent[]): Promise<void>
  /** Stages events for the state about to be saved, named by `marker`; see `commitPending`. */
  stagePending(marker: string, events: readonly JourneyEvent[]): Promise<void>
  /** Moves the staged events of `marker` into the journey log, once its state is saved. */
  commitPending(marker: string): Promise<void>
  /** Drops the staged events of a save that lost a race. */
  discardPending(marker: string): Promise<void>
  /** After a load: commits the batch staged for the stored state (`currentMarker`), drops stale others. */
  recoverPending(currentMarker: string | null): Promise<void>
  writeIteration(n: number, markdown: string): Promise<void>
  writeFinal(markdown: string): Promise<void>
  /** The markdown for people, the candidate pattern (if any) and the record read back by later loops (JSON). */
  writeDeadLetter(
    signature: string,
    markdown: string,
    candidatePatternYaml?: string,
    recordJson?: string,
  ): Promise<void>
  /** The dead letters' records (JSON texts) of every loop kept beside this one, its own included; bounded. */
  readDeadLetters?(): Promise<string[]>
}
