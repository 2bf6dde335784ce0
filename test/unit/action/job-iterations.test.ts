// A job's iterations: one, or more while the budget holds another like the slowest so far.
import { describe, expect, it } from 'vitest'
import { runJobIterations } from '../../../src/action/job-iterations.js'
import type { IterationResult } from '../../../src/app/iteration.js'
import { iterationResult, loopState, recordingLogger } from './fakes.js'

function job(options: {
  budgetMinutes?: number
  firstIteration?: number
  iterationMs?: number
  outcomes: IterationResult['outcome'][]
  blockedOnPublish?: number
}) {
  let time = 0
  const asked: (number | undefined)[] = []
  const logger = recordingLogger()
  let index = 0
  const promise = runJobIterations(
    { firstIteration: options.firstIteration, budgetMinutes: options.budgetMinutes },
    {
      iterate: async (dispatched) => {
        asked.push(dispatched)
        time += options.iterationMs ?? 1000
        const outcome = options.outcomes[index++] ?? 'complete'
        return iterationResult({ outcome, state: loopState({ iteration: dispatched ?? 1 }) })
      },
      publish: async (result) => ({
        state: result.state,
        blocked: options.blockedOnPublish === asked.length,
      }),
      now: () => time,
      logger,
    },
  )
  return { promise, asked, logger }
}

describe('runJobIterations', () => {
  it('runs one iteration without a budget', async () => {
    const { promise, asked } = job({ firstIteration: 4, outcomes: ['continue'] })
    expect(await promise).toMatchObject({ kind: 'done', outcome: 'continue' })
    expect(asked).toEqual([4])
  })

  it.each([
    // 20 s each in a 1 min budget: after 20 s and 40 s another fits (40 + 20 is not over 60); after 60 s not.
    { iterationMs: 20_000, budgetMinutes: 1, asked: [undefined, 2, 3] },
    { iterationMs: 31_000, budgetMinutes: 1, asked: [undefined] },
    { iterationMs: 16_000, budgetMinutes: 0.5, asked: [undefined] },
    { iterationMs: 10_000, budgetMinutes: 0.5, asked: [undefined, 2, 3] },
  ])('asks for iterations $asked at $iterationMs ms each in $budgetMinutes min', async (row) => {
    const { promise, asked, logger } = job({ ...row, outcomes: Array(10).fill('continue') })
    expect(await promise).toMatchObject({ kind: 'done', outcome: 'continue' })
    // Each further iteration is the one after the state's last.
    expect(asked).toEqual(row.asked)
    expect(logger.lines.filter((line) => line.startsWith('info: Continuing in this job'))).toHaveLength(
      row.asked.length - 1,
    )
  })

  it('stops when the loop stops continuing', async () => {
    const { promise, asked } = job({ budgetMinutes: 60, outcomes: ['continue', 'complete', 'continue'] })
    expect(await promise).toMatchObject({ kind: 'done', outcome: 'complete' })
    expect(asked).toHaveLength(2)
  })

  it('reports a push that blocked the loop as blocked, and stops', async () => {
    const { promise, asked } = job({ budgetMinutes: 60, outcomes: ['continue', 'continue'], blockedOnPublish: 1 })
    expect(await promise).toMatchObject({ kind: 'done', outcome: 'blocked' })
    expect(asked).toHaveLength(1)
  })

  it('stops, publishing nothing, when another job claimed the iteration', async () => {
    const { promise, logger } = job({ firstIteration: 3, outcomes: ['superseded'] })
    expect(await promise).toEqual({ kind: 'superseded' })
    expect(logger.lines).toContain('info: Iteration 3 was already claimed by another job: superseded, nothing to do.')
  })
})
