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
  if (record.iteration !== state.iteration + 1) return false
  // A baseline round is no iteration: once the loop has its baseline, the dispatch of the very iteration
  // the round measured for was made by the round's decide (or a later run), which carried the loop on.
  return (
    record.iteration > ranFor ||
    (run.baselineRound === true && state.baseline !== undefined && record.iteration === ranFor)
  )
}

/** The iteration a run is for: its dispatch's `iteration` input, and the iteration its plan ran (null: none). */
export interface RunIteration {
  dispatchedIteration: number | undefined
  plannedIteration: number | null | undefined
  /** The run's plan was fan-out's baseline round (it measured the baseline before `plannedIteration`). */
  baselineRound?: boolean
}
