/**
 * The sweeper's decision (`command: sweep`): a running loop whose last job ended without a successor
 * gets its next iteration dispatched again. Decided from the loop's state, its dispatch record (written
 * before each re-dispatch call, marked `failed` when the call failed), and what GitHub says of the run
 * that dispatch started: a job saves nothing until its iteration ends, so only the run tells a live
 * iteration from one no job took. Pure.
 */
import type { RunFact } from './slot-sweep.js'
import type { DispatchRecord, LoopState } from './state.js'

export type SweepDecision =
  | { kind: 'dispatch'; record: DispatchRecord; reason: string }
  | { kind: 'skip'; reason: string }
  /** Dispatched again once already, and no job took that either: saved BLOCKED for a person. */
  | { kind: 'block'; reason: string }

/**
 * Whether to re-dispatch `state`'s next iteration at `now`: the loop is running, its latest recorded
 * dispatch is of the iteration after the last that ran, and that dispatch failed, or no job has saved
 * it for `staleAfterMs` and the run it started (`dispatchedRun`, when the record names one) is not
 * queued or in progress. Once only: when the sweeper's own dispatch went through and its run also ended
 * without saving the iteration (a job that took it and died saves nothing: `timeout-minutes` would kill
 * it again, each time an agent call the cap never counts), the loop is BLOCKED for a person instead;
 * never on a guess when GitHub did not say how that run stands. Without a recorded run (GitHub returned
 * none) staleness alone decides. Should a dispatch reported as failed have started a run after all, the
 * loop's jobs queue in one concurrency group and the second job for the iteration ends superseded.
 */
export function sweepDecision(
  state: LoopState,
  now: Date,
  staleAfterMs: number,
  dispatchedRun: RunFact | null = null,
): SweepDecision {
  const record = state.dispatch
  if (state.status !== 'running') return { kind: 'skip', reason: `the loop is ${state.status}` }
  if (!record) return { kind: 'skip', reason: 'no re-dispatch is recorded' }
  if (record.iteration !== state.iteration + 1) {
    return {
      kind: 'skip',
      reason: `the recorded dispatch of iteration ${record.iteration} is not the next (iteration ${state.iteration} ran last)`,
    }
  }
  if (record.failed !== undefined) {
    return {
      kind: 'dispatch',
      record,
      reason: `the re-dispatch of iteration ${record.iteration} failed: ${record.failed}`,
    }
  }
  if (state.claimedIteration >= record.iteration) {
    return { kind: 'skip', reason: `iteration ${record.iteration} is claimed by a job` }
  }
  const waitedMs = now.getTime() - Date.parse(record.at)
  if (waitedMs < staleAfterMs) {
    return {
      kind: 'skip',
      reason: `iteration ${record.iteration} was dispatched ${minutes(waitedMs)} ago; stale after ${minutes(staleAfterMs)}`,
    }
  }
  const runName = `run ${record.run ?? '?'}`
  if (dispatchedRun?.kind === 'active') {
    return {
      kind: 'skip',
      reason: `iteration ${record.iteration} was dispatched ${minutes(waitedMs)} ago and its ${runName} is ${dispatchedRun.status}; kept`,
    }
  }
  if ((record.sweeps ?? 0) > 0) {
    if (dispatchedRun?.kind === 'unknown') {
      return {
        kind: 'skip',
        reason: `${runName} of iteration ${record.iteration}: ${dispatchedRun.why}; not BLOCKED on a guess`,
      }
    }
    const ended =
      dispatchedRun?.kind === 'over'
        ? `its ${runName} ended (${dispatchedRun.conclusion}) without saving it`
        : 'no job saved it either (its job died, or none started; GitHub named no run of it to ask about)'
    return {
      kind: 'block',
      reason: `iteration ${record.iteration} was dispatched again by the sweeper ${minutes(waitedMs)} ago (${record.by}) and ${ended}; the sweeper dispatches an iteration again once`,
    }
  }
  return {
    kind: 'dispatch',
    record,
    reason: `no job took iteration ${record.iteration}, dispatched ${minutes(waitedMs)} ago${dispatchedRun?.kind === 'over' ? ` (its ${runName} ended: ${dispatchedRun.conclusion})` : ''}`,
  }
}

/** The state with a sweeper's re-dispatch recorded (the failure, if any, cleared until the call says). */
export function recordSweep(state: LoopState, record: DispatchRecord, now: Date, by: string): LoopState {
  // The run of the dispatch before is not this one's: the new one is recorded once GitHub says it.
  const { failed: _cleared, run: _before, ...rest } = record
  return {
    ...state,
    dispatch: { ...rest, at: now.toISOString(), by, sweeps: (record.sweeps ?? 0) + 1 },
  }
}

/** The state with its latest dispatch marked failed with `error`. */
export function recordDispatchFailure(state: LoopState, record: DispatchRecord, error: string): LoopState {
  return { ...state, dispatch: { ...record, failed: error.slice(0, 2000) } }
}

/**
 * The line the status comment and summary carry while the loop's next iteration is not scheduled, or
 * '' when nothing is amiss.
 */
export function dispatchFailureNote(state: LoopState): string {
  const record = state.dispatch
  if (state.status !== 'running' || !record?.failed || record.iteration !== state.iteration + 1) return ''
  return (
    `> [!WARNING]\n> The re-dispatch of iteration ${record.iteration} failed (${record.failed.replace(/\s+/g, ' ')}): ` +
    'nothing is scheduled. A sweeper (`command: sweep` on a schedule) dispatches it again, or run the workflow ' +
    `with \`loop-id\` and \`iteration: ${record.iteration}\`.\n`
  )
}

function minutes(ms: number): string {
  const whole = Math.max(0, Math.round(ms / 60_000))
  return `${whole} min`
}
