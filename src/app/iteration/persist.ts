/**
 * Persist: the state is saved with compare-and-swap, its journey events staged first so that the log
 * holds them exactly when the save landed. A save that lost the race leaves the iteration to the winner.
 */
import type { JourneyEvent } from '../../domain/journey.js'
import type { LoopState } from '../../domain/state.js'
import { StoreConflictError, type StoreVersion } from '../../ports/store.js'
import { saveWithEvents } from '../journaled-save.js'
import { event, type LoopRecord } from './record.js'
import type { IterationDeps } from './types.js'

export type Persisted =
  | { kind: 'saved'; version: StoreVersion | null }
  /** Nothing changed and nothing ran: a repeated look at a waiting or blocked loop writes nothing. */
  | { kind: 'unchanged'; version: StoreVersion | null }
  /** Another controller saved this iteration first. */
  | { kind: 'superseded'; version: StoreVersion | null }
  /** A person aborted the loop while this run worked: the run's state is saved, aborted as they asked. */
  | { kind: 'aborted'; version: StoreVersion; state: LoopState }

/**
 * Writes what belongs in the audit trail with the state about to be saved (the ending's `final.md` and
 * dead letter): before the save, so a store that carries the trail with each save carries them too.
 */
export type BeforeSave = (state: LoopState) => Promise<void>

/** Saves `record` when anything changed; `ran`: an iteration ran in this run. */
export async function persist(
  loopId: string,
  deps: IterationDeps,
  record: LoopRecord,
  ran: boolean,
  at: Date,
  beforeSave: BeforeSave = async () => {},
): Promise<Persisted> {
  const { state, events, version } = record
  const changed = ran || events.some((e) => e.type !== 'decision') || !record.loaded
  if (!changed) return { kind: 'unchanged', version }
  let saved: StoreVersion
  try {
    saved = await saveWithEvents(loopId, state, redacted(events, deps), version, deps, beforeSave)
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error
    const aborted = await keepAbort(loopId, deps, record, beforeSave)
    if (aborted) return aborted
    await deps.audit.appendEvents([
      event(at, state.iteration, 'superseded', 'another controller saved this iteration first'),
    ])
    return { kind: 'superseded', version }
  }
  return { kind: 'saved', version: saved }
}

/**
 * The save lost to a person's abort (from another terminal, or before the loop's first save): what this
 * run did is saved all the same, with the abort's status, so the work is kept and the loop stays stopped.
 * Null when the winner was not an abort (another controller's iteration).
 */
async function keepAbort(
  loopId: string,
  deps: IterationDeps,
  record: LoopRecord,
  beforeSave: BeforeSave,
): Promise<Persisted | null> {
  const latest = await deps.store.load(loopId)
  if (latest?.state.status !== 'aborted') return null
  const { status, statusReason } = latest.state
  const state: LoopState = {
    ...record.state,
    status,
    statusReason,
    lastDecision: { kind: 'ABORTED', reason: statusReason },
  }
  const version = await saveWithEvents(loopId, state, redacted(record.events, deps), latest.version, deps, beforeSave)
  return { kind: 'aborted', version, state }
}

function redacted(events: readonly JourneyEvent[], deps: Pick<IterationDeps, 'redact'>): JourneyEvent[] {
  return events.map((e) => JSON.parse(deps.redact(JSON.stringify(e))) as JourneyEvent)
}
