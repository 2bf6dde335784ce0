// `budget-minutes` against the time a job has: GitHub's 6-hour limit and the job's own timeout.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ActionInputError, parseActionInputs } from '../../../src/config/action-inputs.js'

function problemsOf(values: Record<string, string>): string[] {
  const all: Record<string, string> = { 'github-token': 'tok', ...values }
  try {
    parseActionInputs((name) => all[name] ?? '', { eventName: 'workflow_dispatch', payload: {}, runId: 1 })
  } catch (error) {
    if (error instanceof ActionInputError) return [...error.problems]
    throw error
  }
  return []
}

describe('budget-minutes and the job`s time', () => {
  it.each([
    { budget: '349.5', timeout: '', problems: [] },
    { budget: '55', timeout: '60', problems: [] },
    { budget: '30', timeout: '', problems: [] },
    { budget: '', timeout: '60', problems: [] },
    {
      budget: '350',
      timeout: '',
      problems: [
        "Input 'budget-minutes' must be a number of minutes below 350 (GitHub ends a job on its runners after 6 hours; empty or 0: one iteration per job); got '350'.",
      ],
    },
    {
      budget: '56',
      timeout: '60',
      problems: [
        "Input 'budget-minutes' must leave 5 minutes of the job's timeout for set-up and the report; got 'budget-minutes: 56' with 'job-timeout-minutes: 60' (the job's timeout-minutes). Lower 'budget-minutes' to 55 or less, or raise the job's timeout-minutes.",
      ],
    },
    {
      budget: '120',
      timeout: '90',
      problems: [expect.stringContaining("got 'budget-minutes: 120' with 'job-timeout-minutes: 90'")],
    },
    {
      budget: '10',
      timeout: 'an hour',
      problems: [
        "Input 'job-timeout-minutes' must be a whole number of minutes from 1 to 7200 (the job's timeout-minutes); got 'an hour'.",
      ],
    },
  ])('budget-minutes $budget with job-timeout-minutes $timeout', ({ budget, timeout, problems }) => {
    expect(problemsOf({ 'budget-minutes': budget, 'job-timeout-minutes': timeout })).toEqual(problems)
  })

  it('the reusable workflow passes its job`s timeout to the single job', () => {
    const workflow = parse(readFileSync('.github/workflows/loop.yml', 'utf8')) as {
      jobs: Record<string, { 'timeout-minutes'?: string; steps: { uses?: string; with?: Record<string, string> }[] }>
    }
    const job = workflow.jobs.iteration!
    const step = job.steps.find((candidate) => candidate.uses?.includes('loop-controller@'))
    expect(step?.with?.['job-timeout-minutes']).toBe(job['timeout-minutes'])
    expect(step?.with?.['budget-minutes']).toBeDefined()
  })
})
