/**
 * The iterations of one job: one, or several while `budget-minutes` allows (each costs no runner
 * start-up). Each iteration's commit is published before the next one starts.
 */
import type { IterationResult } from '../app/iteration.js'
import type { ReportOutcome } from '../domain/report/index.js'
import type { LoopState } from '../domain/state.js'
import type { Logger } from '../ports/logger.js'
import type { Published } from './publish.js'

export type JobOutcome =
  /** Another job already claimed the iteration this job was dispatched for. */
  { kind: 'superseded' } | { kind: 'done'; result: IterationResult; state: LoopState; outcome: ReportOutcome }

export async function runJobIterations(
  input: {
    /** The iteration a re-dispatch asked for; undefined on a fresh start. */
    firstIteration: number | undefined
    budgetMinutes: number | undefined
  },
  deps: {
    iterate: (dispatchedIteration: number | undefined) => Promise<IterationResult>
    publish: (result: IterationResult) => Promise<Published>
    /** Milliseconds, for the budget. */
    now: () => number
    logger: Logger
  },
): Promise<JobOutcome> {
  const jobStarted = deps.now()
  const jobBudgetMs = (input.budgetMinutes ?? 0) * 60_000
  let slowestIterationMs = 0
  let dispatchedIteration = input.firstIteration
  for (;;) {
    const iterationStarted = deps.now()
    const result = await deps.iterate(dispatchedIteration)
    if (result.outcome === 'superseded') {
      deps.logger.info(
        `Iteration ${dispatchedIteration ?? 'next'} was already claimed by another job: superseded, nothing to do.`,
      )
      return { kind: 'superseded' }
    }
    const published = await deps.publish(result)
    const state = published.state
    const outcome: ReportOutcome = published.blocked ? 'blocked' : result.outcome
    slowestIterationMs = Math.max(slowestIterationMs, deps.now() - iterationStarted)
    const elapsedMs = deps.now() - jobStarted
    // Continue here only when another iteration like the slowest one so far still fits the job's budget.
    if (outcome !== 'continue' || elapsedMs + slowestIterationMs > jobBudgetMs) {
      return { kind: 'done', result, state, outcome }
    }
    deps.logger.info(`Continuing in this job: ${Math.round(elapsedMs / 1000)} s of ${input.budgetMinutes} min used.`)
    dispatchedIteration = state.iteration + 1
  }
}
