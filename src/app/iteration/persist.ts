/**
 * Persist: the state is saved with compare-and-swap, its journey events staged first so that the log
 * holds them exactly when the save landed. A save that lost the race leaves the iteration to the winner.
 */
import type { JourneyEvent } from '../../domain/journey.js'
import { StoreConflictError, type StoreVersion } from '../../ports/store.js'
import { event, type LoopRecord, savedMarker } from './record.js'
import type { IterationDeps } from './types.js'

export type Persisted =
  | { kind: 'saved'; version: StoreVersion | null }
  /** Nothing changed and nothing ran: a repeated look at a waiting or blocked loop writes nothing. */
  | { kind: 'unchanged'; version: StoreVersion | null }
  /** Another controller saved this iteration first. */
  | { kind: 'superseded'; version: StoreVersion | null }

/** Saves `record` when anything changed; `ran`: an iteration ran in this run. */
export async function persist(
  loopId: string,
  deps: IterationDeps,
  record: LoopRecord,
  ran: boolean,
  at: Date,
): Promise<Persisted> {
  const { state, events, version } = record
  const changed = ran || events.some((e) => e.type !== 'decision') || !record.loaded
  if (!changed) return { kind: 'unchanged', version }
  const marker = savedMarker(state)
  await deps.audit.stagePending(
    marker,
    events.map((e) => redactEvent(e, deps.redact)),
  )
  let saved: StoreVersion
  try {
    saved = await deps.store.save(loopId, state, version)
  } catch (error) {
    await deps.audit.discardPending(marker)
    if (!(error instanceof StoreConflictError)) throw error
    await deps.audit.appendEvents([
      event(at, state.iteration, 'superseded', 'another controller saved this iteration first'),
    ])
    return { kind: 'superseded', version }
  }
  await deps.audit.commitPending(marker)
  return { kind: 'saved', version: saved }
}

function redactEvent(e: JourneyEvent, redact: (text: string) => string): JourneyEvent {
  return JSON.parse(redact(JSON.stringify(e))) as JourneyEvent
}
