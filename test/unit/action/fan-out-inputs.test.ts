import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ActionInputError, type EventContext, parseActionInputs } from '../../../src/config/action-inputs.js'

const noEvent: EventContext = { eventName: 'workflow_dispatch', payload: {}, runId: 777 }

function problemsOf(values: Record<string, string>): string[] {
  const all: Record<string, string> = { 'github-token': 'tok-1234', ...values }
  try {
    parseActionInputs((name) => all[name] ?? '', noEvent)
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error
    return [...error.problems]
  }
  return []
}

describe("budget-minutes in fan-out's jobs", () => {
  it.each([
    { command: 'plan', extra: {} as Record<string, string> },
    { command: 'verify', extra: { leg: 'unit' } },
    { command: 'decide', extra: {} },
  ])(
    "is refused with 'command: $command', naming the input, the value and what to do instead",
    ({ command, extra }) => {
      const problems = problemsOf({ command, 'budget-minutes': '12.5', ...extra })
      expect(problems).toEqual([
        `Input 'budget-minutes' is for the single job (one job that may run several iterations); got 'budget-minutes: 12.5' with 'command: ${command}' (fan-out), where one iteration is three jobs (plan, verify, decide) and no job runs a second one. Leave 'budget-minutes' empty (do not pass it with the reusable workflow's 'fan-out: true'); to bound the loop's total time, set 'budget: { minutes: N }' in the loop config.`,
      ])
    },
  )

  it.each([
    { command: 'plan', extra: {} as Record<string, string> },
    { command: 'verify', extra: { leg: 'unit' } },
    { command: 'decide', extra: {} },
  ])("is fine left empty with 'command: $command'", ({ command, extra }) => {
    expect(problemsOf({ command, ...extra })).toEqual([])
  })

  it.each(['run', 'resume'])("keeps its meaning with 'command: %s' (the single job)", (command) => {
    expect(problemsOf({ command, 'budget-minutes': '10' })).toEqual([])
  })

  it('reports a value that is no number of minutes as such, not as misplaced', () => {
    const problems = problemsOf({ command: 'plan', 'budget-minutes': 'soon' })
    expect(problems).toEqual([
      "Input 'budget-minutes' must be a number of minutes below 350 (GitHub ends a job on its runners after 6 hours; empty or 0: one iteration per job); got 'soon'.",
    ])
  })
})

describe('the reusable workflow', () => {
  const workflow = parse(readFileSync(join(import.meta.dirname, '../../../.github/workflows/loop.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>
  }
  const passing = Object.entries(workflow.jobs)
    .filter(([, job]) =>
      job.steps.some((step) => step.uses?.includes('loop-controller@') && step.with?.['budget-minutes']),
    )
    .map(([name]) => name)

  it('passes budget-minutes to the single job, and to the plan only so that it refuses it', () => {
    expect(passing.sort()).toEqual(['iteration', 'plan'])
  })
})

describe("the state store in fan-out's jobs", () => {
  const table: Array<{ command: string; store: string; refused: boolean }> = [
    ...['plan', 'verify', 'decide'].flatMap((command) => [
      { command, store: 'git', refused: false },
      { command, store: 'cache', refused: true },
      { command, store: 'auto', refused: true },
      { command, store: 'artifact', refused: true },
    ]),
    { command: 'run', store: 'cache', refused: false },
    { command: 'run', store: 'artifact', refused: false },
  ]
  it.each(table)("'store: $store' with 'command: $command' refused: $refused", ({ command, store, refused }) => {
    const extra: Record<string, string> = command === 'verify' ? { leg: 'unit' } : {}
    const problems = problemsOf({ command, store, ...extra })
    expect(problems).toEqual(
      refused
        ? [
            `Input 'store' must be 'git' with 'command: ${command}' (fan-out); got 'store: ${store}'. Fan-out's plan and verify jobs run the project's code beside the runner's runtime token, which can write the Actions cache and upload artifacts, so a state kept there could be forged before decide reads it; the git store's branch takes only decide's push. Use the default store, 'git'.`,
          ]
        : [],
    )
  })
})
