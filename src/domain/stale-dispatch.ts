/**
 * Whether a run whose plan went stale should dispatch the loop again. A run dispatched for iteration N
 * whose loop's state records a dispatch of a later iteration, not failed, lost a race to another run of
 * the same loop (a sweeper's re-dispatch, a person's "Run workflow"): that run carried the loop on and
 * dispatched its next iteration already, and a second dispatch would make every later iteration run
 * twice, each pair's second plan paid for and dropped. Pure.
 */
import type { LoopState } from './state.js'

export function laterDispatchRecorded(state: LoopState, dispatchedIteration: number | undefined): boolean {
  const record = state.dispatch
  if (dispatchedIteration === undefined || !record || record.failed !== undefined) return false
  return record.iteration > dispatchedIteration && record.iteration === state.iteration + 1
}
