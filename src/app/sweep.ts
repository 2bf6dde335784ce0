/**
 * Re-dispatch with a durable record, and the sweeper that reads it (`command: sweep`).
 *
 * A job records the dispatch of the next iteration in the loop's state before it calls GitHub, and marks
 * it failed when the call fails, so "the last job ended without a successor" is a fact in the store, not
 * a guess. The sweeper lists the loops, and for each one `sweepDecision` picks, records its own
 * re-dispatch with compare-and-swap on the version it read, then dispatches: of two sweepers at once, or
 * a sweeper and a late job, one save wins and the other changes nothing.
 */

import { messageOf } from '../config/errors.js'
import { markBlocked } from '../domain/engine/index.js'
import type { RunFact } from '../domain/slot-sweep.js'
import type { DispatchRecord, LoopState } from '../domain/state.js'
import { recordDispatchFailure, recordSweep, sweepDecision } from '../domain/sweep.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import { type LoopLister, type Store, StoreConflictError, type StoreVersion } from '../ports/store.js'
import type { SweptSlot } from './slot-sweep.js'

/** Starts the run of `record.iteration` of `loopId` (the workflow dispatch); the run's id where GitHub says it. */
export type Dispatch = (loopId: string, record: DispatchRecord) => Promise<string | undefined>

/** What GitHub says of a run (`GET .../actions/runs/{run_id}`). */
export type RunOf = (runId: string) => Promise<{ status: string; conclusion: string | null }>

const RECORD_ATTEMPTS = 3

/**
 * Records `record` in the loop's stored state (loaded again when another writer saved between), calls
 * `dispatch`, and records its failure. Returns the state as last saved (null when none could be) and
 * the error of a failed call.
 */
export async function recordedDispatch(
  loopId: string,
  record: DispatchRecord,
  deps: { store: Store; dispatch: Dispatch; logger: Logger },
): Promise<{ state: LoopState | null; error?: string }> {
  let saved: { state: LoopState; version: StoreVersion } | null = null
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS && saved === null; attempt++) {
    const loaded = await deps.store.load(loopId)
    if (!loaded) break
    const state = { ...loaded.state, dispatch: record }
    try {
      saved = { state, version: await deps.store.save(loopId, state, loaded.version) }
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error
    }
  }
  if (saved === null) deps.logger.warning(`The dispatch of iteration ${record.iteration} is not recorded in the state.`)
  try {
    const runId = await deps.dispatch(loopId, record)
    // Only the `git` store is swept (it lists its loops); another's extra save would cost an upload.
    if (saved === null || runId === undefined || deps.store.kind !== 'git') return { state: saved?.state ?? null }
    return { state: (await recordRun(loopId, saved, runId, deps)) ?? saved.state }
  } catch (error) {
    const message = messageOf(error)
    if (saved === null) return { state: null, error: message }
    const failed = recordDispatchFailure(saved.state, record, message)
    try {
      await deps.store.save(loopId, failed, saved.version)
      return { state: failed, error: message }
    } catch (saveError) {
      if (!(saveError instanceof StoreConflictError)) throw saveError
      deps.logger.warning(`The failed dispatch of iteration ${record.iteration} is not recorded: the loop changed.`)
      return { state: saved.state, error: message }
    }
  }
}

/**
 * Records the run the dispatch started, on the version that recorded the dispatch, so the sweeper can ask
 * GitHub whether it still runs. The started run waits in the loop's concurrency group until this job ends,
 * so it loads this save; a conflict (anyone saved since) leaves the record without it, as before GitHub
 * said run ids. Returns the state saved, or null.
 */
async function recordRun(
  loopId: string,
  saved: { state: LoopState; version: StoreVersion },
  runId: string,
  deps: { store: Store; logger: Logger },
): Promise<LoopState | null> {
  const record = saved.state.dispatch
  if (!record) return null
  const state = { ...saved.state, dispatch: { ...record, run: runId } }
  try {
    await deps.store.save(loopId, state, saved.version)
    return state
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error
    deps.logger.warning(`The run of iteration ${record.iteration} (${runId}) is not recorded: the loop changed.`)
    return null
  }
}

export interface SweptLoop {
  loopId: string
  outcome: 'dispatched' | 'failed' | 'skipped' | 'raced' | 'blocked'
  reason: string
}

/**
 * Whether a sweep saved any loop's state or changed the line of `max-loops`: what the dashboard shows.
 * Skipped and kept loops are as they were; a raced one was changed by a job (or a person), whose own
 * job says it.
 */
export function sweepChanged(loops: readonly SweptLoop[], slots: readonly SweptSlot[]): boolean {
  const unchanged = new Set(['skipped', 'kept', 'raced'])
  return [...loops, ...slots].some((swept) => !unchanged.has(swept.outcome))
}

/** Sweeps every loop the store holds; one loop's trouble never stops the others. */
export async function sweepLoops(
  input: { staleAfterMs: number; by: string },
  deps: { store: Store & LoopLister; dispatch: Dispatch; runOf: RunOf; clock: Clock; logger: Logger },
): Promise<SweptLoop[]> {
  const swept: SweptLoop[] = []
  for (const loopId of await deps.store.listLoops()) {
    let result: SweptLoop
    try {
      result = await sweepOne(loopId, input, deps)
    } catch (error) {
      result = { loopId, outcome: 'skipped', reason: `its state could not be read or saved: ${messageOf(error)}` }
    }
    deps.logger.info(`Loop ${loopId}: ${result.outcome}, ${result.reason}.`)
    swept.push(result)
  }
  return swept
}

async function sweepOne(
  loopId: string,
  input: { staleAfterMs: number; by: string },
  deps: { store: Store; dispatch: Dispatch; runOf: RunOf; clock: Clock; logger: Logger },
): Promise<SweptLoop> {
  const loaded = await deps.store.load(loopId)
  if (!loaded) return { loopId, outcome: 'skipped', reason: 'it has no state' }
  const now = deps.clock.now()
  let decision = sweepDecision(loaded.state, now, input.staleAfterMs)
  // GitHub is asked only about a run the sweeper would act on: a live one keeps its iteration.
  const runId = loaded.state.dispatch?.run
  if (decision.kind !== 'skip' && runId !== undefined) {
    decision = sweepDecision(loaded.state, now, input.staleAfterMs, await runFact(runId, deps.runOf))
  }
  if (decision.kind === 'skip') return { loopId, outcome: 'skipped', reason: decision.reason }
  if (decision.kind === 'block') {
    const blocked = markBlocked(loaded.state, `${decision.reason}. Resume it with \`/loop resume\`.`, now).state
    try {
      // On the version read, as a re-dispatch: a job that saved since wins.
      await deps.store.save(loopId, blocked, loaded.version)
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error
      return { loopId, outcome: 'raced', reason: 'the loop changed while it was swept (a job or another sweeper)' }
    }
    return { loopId, outcome: 'blocked', reason: `${decision.reason}; marked BLOCKED` }
  }
  const state = recordSweep(loaded.state, decision.record, now, input.by)
  const record = state.dispatch as DispatchRecord
  let version: StoreVersion
  try {
    // On the version read: a job or another sweeper that saved since wins, and this one dispatches nothing.
    version = await deps.store.save(loopId, state, loaded.version)
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error
    return { loopId, outcome: 'raced', reason: 'the loop changed while it was swept (a job or another sweeper)' }
  }
  let started: string | undefined
  try {
    started = await deps.dispatch(loopId, record)
  } catch (error) {
    const message = messageOf(error)
    await deps.store.save(loopId, recordDispatchFailure(state, record, message), version).catch((saveError) => {
      if (!(saveError instanceof StoreConflictError)) throw saveError
    })
    return { loopId, outcome: 'failed', reason: `the re-dispatch of iteration ${record.iteration} failed: ${message}` }
  }
  if (started !== undefined) await recordRun(loopId, { state, version }, started, deps)
  return { loopId, outcome: 'dispatched', reason: `iteration ${record.iteration}: ${decision.reason}` }
}

/** What GitHub says of `runId`, as the decision reads it; its failure is said, never thrown. */
async function runFact(runId: string, runOf: RunOf): Promise<RunFact> {
  try {
    const run = await runOf(runId)
    return run.status === 'completed'
      ? { kind: 'over', conclusion: run.conclusion ?? 'no conclusion' }
      : { kind: 'active', status: run.status }
  } catch (error) {
    return { kind: 'unknown', why: `GitHub did not say how it stands (${messageOf(error)})` }
  }
}
