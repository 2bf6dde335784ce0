/**
 * A capped loop going on: which limit capped it, when a raised iteration cap re-opens it, and why a
 * resume is refused while its limit is still reached. Pure.
 *
 * The iteration cap is the loop's own (kept in its state, changed only by a cap given to a run): a cap
 * given above the iterations run re-opens a loop it capped. A budget (minutes, tokens, cost) comes from
 * the loop config each run: a loop a budget capped goes on once the budget is raised and a person
 * resumes it.
 */
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { LoopState } from '../state.js'
import { type CapLimit, cappedBy, capReached } from './decide.js'
import { EngineError } from './errors.js'

export interface ReopenResult {
  state: LoopState
  events: JourneyEvent[]
}

/** A resume refused because the limit that capped the loop is still reached; the message says what to raise. */
export class CappedResumeError extends EngineError {
  override name = 'CappedResumeError'
  constructor(
    message: string,
    readonly limit: CapLimit,
    /** The iterations the loop ran: a cap must lie above them. */
    readonly iterationsRun: number,
  ) {
    super(message)
  }
}

/** Where each budget is set, for the message that says to raise it. */
const BUDGET_SETTINGS: Record<Exclude<CapLimit, 'iterations'>, string> = {
  minutes: 'budget.minutes',
  tokens: 'budget.tokens',
  cost: 'budget.cost-usd',
}

/** The iterations a loop has run or claimed: a cap must lie above them for another to start. */
export function iterationsRun(state: LoopState): number {
  return Math.max(state.iteration, state.claimedIteration)
}

/**
 * Whether a cap given to a job re-opens the loop: its iteration cap capped it, and the cap lies above the
 * iterations it ran. Asked before the cap is applied, by a job that must ask for a slot before the loop
 * runs again (as a resume does).
 */
export function capReopens(state: LoopState, cap: number): boolean {
  return cappedBy(state) === 'iterations' && cap > iterationsRun(state)
}

/**
 * After a cap was given (see `changeCap`): a loop its iteration cap capped runs again when the cap now
 * lies above the iterations it ran. A loop a budget capped stays capped: its budget needs raising.
 */
export function reopenIfCapRaised(state: LoopState, now: Date): ReopenResult {
  const run = iterationsRun(state)
  if (!capReopens(state, state.maxIterations)) return { state, events: [] }
  const at = now.toISOString()
  const message = `re-opened: the iteration cap is now ${state.maxIterations}, above the ${run} iterations run (was capped: ${state.statusReason || 'the iteration cap'})`
  return {
    state: { ...state, status: 'running', statusReason: '', updatedAt: at },
    events: [
      { at, iteration: state.iteration, type: 'resumed', message, data: { reopened: true, cap: state.maxIterations } },
    ],
  }
}

/**
 * Why a capped loop cannot be resumed as it is (a limit is still reached under the loop's cap and
 * `budget`, the config's), or null: a resume would only cap it again at once.
 */
export function cappedResumeError(state: LoopState, budget: Policy['budget']): CappedResumeError | null {
  if (cappedBy(state) === null) return null
  const reached = capReached(state, { budget })
  if (reached === null) return null
  const what = `loop '${state.loopId}' is capped: ${reached.reason}`
  if (reached.limit === 'iterations') {
    return new CappedResumeError(
      `${what}. A resume alone would cap it again at once: resume it with a higher cap (max-iterations above ${iterationsRun(state)}).`,
      reached.limit,
      iterationsRun(state),
    )
  }
  return new CappedResumeError(
    `${what}. A resume alone would cap it again at once: raise ${BUDGET_SETTINGS[reached.limit]} in the loop config, then resume it.`,
    reached.limit,
    iterationsRun(state),
  )
}
