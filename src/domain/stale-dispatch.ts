/**
 * Whether a run whose plan went stale should dispatch the loop again. A run dispatched for iteration N
 * whose loop's state records a dispatch of a later iteration, not failed, lost a race to another run of
 * the same loop (a sweeper's re-dispatch, a person's "Run workflow"): that run carried the loop on and
 * dispatched its next iteration already, and a second dispatch would make every later iteration run
 * twice, each pair's second plan paid for and dropped. Pure.
 */
import type { LoopState } from './state.js'

export function laterDispatchRecorded(state: LoopState, run: RunIteration): boolean {
  const record = state.dispatch
  // A run no dispatch named (a person's, or the first) is for the iteration its plan ran: re-run with
  // "Re-run failed jobs" after its decide carried the loop on, it must not dispatch the next one again.
  const ranFor = run.dispatchedIteration ?? run.plannedIteration ?? undefined
  if (ranFor === undefined || !record || record.failed !== undefined) return false
  return record.iteration > ranFor && record.iteration === state.iteration + 1
}

/** The iteration a run is for: its dispatch's `iteration` input, and the iteration its plan ran (null: none). */
export interface RunIteration {
  dispatchedIteration: number | undefined
  plannedIteration: number | null | undefined
}
