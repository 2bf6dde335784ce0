// Time budgets in fan-out mode, end to end: the loop's `budget.minutes` counts a fan-out iteration's real
// time (the plan's work and the slowest verify leg, not only decide's own few seconds), and the action's
// `budget-minutes`, which means one job running several iterations, is refused where an iteration is
// three jobs.
import { describe, expect, it } from 'vitest'
import { FAN_OUT_EXAMPLE, jobsNamed, startFanOutScenario } from './fan-out-fixtures.js'
import { botComments, checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** How long the work sleeps in the plan, and the slow check on the work's candidate in its verify leg. */
const WORK_SLEEP_MS = 3000
const CHECK_SLEEP_MS = 3500

/** The staircase's work, after a sleep: the plan's part of the iteration takes at least that long. */
const SLOW_WORK = `await new Promise((resolve) => setTimeout(resolve, ${WORK_SLEEP_MS}))
await import('./work.mjs')
`

/** A check that is quick before the work (the baseline, measured in its leg at the base) and slow on the work's candidate (its leg). */
const SLOW_CHECK = `import { existsSync, readFileSync } from 'node:fs'
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
if (have >= 1) await new Promise((resolve) => setTimeout(resolve, ${CHECK_SLEEP_MS}))
console.log('slow check passed at progress ' + have)
`

/**
 * 0.1 minutes (6 s) is less than the work's sleep and the slow leg's together (6.5 s), and more than the
 * work's sleep alone, so the agent's time limit (what is left of the budget) lets the work finish. Two
 * steps: after iteration 1 step-2 still fails, so only the budget stops the loop there.
 */
const BUDGET_CONFIG = `goal: Climb the staircase to step 2, within a minutes budget.
max-iterations: 4
budget:
  minutes: 0.1
work:
  run: node tools/slow-work.mjs
  timeout: 1m
  pass-env: [E2E_SIGNAL_DIR]
checks:
  - name: slow
    kind: test
    run: node tools/slow-check.mjs
    timeout: 30s
  - name: step-2
    kind: test
    run: node tools/check.mjs 2
    timeout: 30s
`

describe("fan-out: the loop's minutes budget", () => {
  it(
    "counts the plan's work and the slowest verify leg, and stops the loop CAP_REACHED after iteration 1",
    async () => {
      const scenario = await startFanOutScenario({
        '.github/loop.yml': BUDGET_CONFIG,
        'tools/slow-work.mjs': SLOW_WORK,
        'tools/slow-check.mjs': SLOW_CHECK,
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'timed' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // The baseline round (quick: the slow check is quick before the work), then iteration 1.
      expect(
        jobsNamed(jobs, 'plan').map((job) => job.conclusion),
        why,
      ).toEqual(['success', 'success'])
      expect(jobsNamed(jobs, 'verify').map((job) => [job.matrix?.leg, job.conclusion])).toEqual([
        ['slow', 'success'],
        ['step-2', 'success'],
        ['slow', 'success'],
        ['step-2', 'success'],
      ])
      // One iteration, and no plan after it: the work ran once.
      expect(jobsNamed(jobs, 'decide').map((job) => job.outputs.status)).toEqual(['running', 'capped'])
      expect(scenario.workRuns()).toEqual(['work-1'])
      const state = await savedState(scenario, 'timed')
      expect(state).toMatchObject({ iteration: 1, status: 'capped', lastDecision: { kind: 'CAP_REACHED' } })
      expect(state.statusReason).toMatch(/^the time budget is spent: [\d.]+ of 0\.1 minutes \(budget\.minutes\)$/)
      // The iteration's time is at least the work's sleep (in plan) and the slow leg's (in verify).
      expect(state.usage.wallMs).toBeGreaterThanOrEqual(WORK_SLEEP_MS + CHECK_SLEEP_MS)
      expect(botComments(sandbox)[0]?.body).toContain('budget.minutes')
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

describe("fan-out: the action's budget-minutes", () => {
  it(
    'is refused by the plan, which says what to use instead; nothing runs',
    async () => {
      const withBudget = FAN_OUT_EXAMPLE.replace(
        '      config: .github/loop.yml\n',
        "      config: .github/loop.yml\n      budget-minutes: '5'\n",
      )
      expect(withBudget).not.toBe(FAN_OUT_EXAMPLE)
      const scenario = await startFanOutScenario({ '.github/workflows/loop-fan-out.yml': withBudget })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'told' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const [plan, ...others] = jobs.filter((job) => job.name !== 'loop / loop iteration')
      expect(plan?.name, why).toBe('loop / plan')
      expect(plan?.conclusion, why).toBe('failure')
      expect(plan?.annotations.map((a) => a.message).join('\n')).toContain(
        "Input 'budget-minutes' is for the single job (one job that may run several iterations); got 'budget-minutes: 5' with 'command: plan' (fan-out)",
      )
      expect(plan?.annotations.map((a) => a.message).join('\n')).toContain(
        "set 'budget: { minutes: N }' in the loop config",
      )
      // Neither the legs nor decide run on a failed plan; no work was done.
      expect(others.map((job) => [job.name, job.conclusion]).sort()).toEqual([
        ['loop / decide', 'skipped'],
        ['loop / verify', 'skipped'],
      ])
      expect(scenario.workRuns()).toEqual([])
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})
