// Fan-out end to end: the example workflow's calling job holds `loop-controller-run/loop/<loop-id>`
// (`queue: max`) until the called run's last job ended, so a second run of the same iteration (a
// sweeper's re-dispatch, a person's "Run workflow") waits for the whole first run, plan to decide,
// instead of planning (and paying for an agent call) while the first run's legs verify.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE, waitForWork } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** The staircase's work, after a line `<iteration>` in $E2E_SIGNAL_DIR/work.log: one line per agent call. */
const COUNTED_WORK = `import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
const context = JSON.parse(readFileSync(process.env.LOOP_CONTEXT_FILE, 'utf8'))
appendFileSync(join(process.env.E2E_SIGNAL_DIR, 'work.log'), context.iteration + '\\n')
await import('./work.mjs')
`

describe("fan-out: the calling job's concurrency group", () => {
  it(
    "a second dispatch of the running iteration waits for the first run's decide, plans nothing and dispatches nothing",
    async () => {
      const config = staircaseConfigWith('run: node tools/work.mjs', 'run: node tools/counted-work.mjs', { steps: 3 })
      const scenario = await startFanOutScenario(
        { 'tools/counted-work.mjs': COUNTED_WORK, '.github/loop.yml': config },
        { steps: 3 },
      )
      const { sandbox, signals } = scenario
      // Iteration 1 runs through; iteration 2's work holds until go-2.
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'go-1'), '')
      await sandbox.dispatch({ 'loop-id': 'twin' })
      await waitForWork(scenario, 2, 2 * MINUTE)
      const running = sandbox.jobs.find((job) => job.name === 'loop / plan' && job.status === 'running')
      // What the sweeper would dispatch for an iteration it thinks stranded: the same iteration again.
      const { runId: duplicate } = await sandbox.dispatch({ 'loop-id': 'twin', iteration: '2' })
      const waiting = sandbox.jobs.filter((job) => job.runId === duplicate)
      // The whole called run waits in the caller's group, not only its plan.
      expect(
        waiting.map((job) => job.status),
        describeJobs(sandbox.jobs),
      ).toEqual(waiting.map(() => 'pending'))
      expect(waiting.map((job) => job.concurrencyGroup)).toContain('loop-controller-run/loop/twin')
      writeFileSync(join(signals, 'go-2'), '')
      writeFileSync(join(signals, 'go-3'), '')
      const jobs = await sandbox.waitForIdle(4 * MINUTE)
      const why = describeJobs(jobs)

      // One agent call per iteration: the duplicate's plan found iteration 2 done and planned nothing.
      const calls = readFileSync(join(signals, 'work.log'), 'utf8').trim().split('\n')
      expect(calls, why).toEqual(['1', '2', '3'])
      const state = await savedState(scenario, 'twin')
      expect([state.status, state.iteration], why).toEqual(['complete', 3])
      // The duplicate started only after the first run's last job (its decide) ended.
      const firstRun = jobs.filter((job) => job.runId === running?.runId && job.startedAt !== undefined)
      const firstEnded = Math.max(...firstRun.map((job) => (job.startedAt ?? 0) + (job.durationMs ?? 0)))
      const duplicateJobs = jobs.filter((job) => job.runId === duplicate && job.startedAt !== undefined)
      expect(duplicateJobs.length, why).toBeGreaterThan(0)
      for (const job of duplicateJobs) expect(job.startedAt ?? 0, job.name).toBeGreaterThanOrEqual(firstEnded)
      // Its plan asked for no legs; its decide dispatched nothing again (the loop was carried on).
      const duplicatePlan = jobsNamed(jobs, 'plan').find((job) => job.runId === duplicate)
      expect(duplicatePlan?.outputs.verify, why).toBe('false')
      const duplicateDecide = jobsNamed(jobs, 'decide').find((job) => job.runId === duplicate)
      expect(duplicateDecide?.outputs.status, why).toBe('superseded')
      expect(
        jobsNamed(jobs, 'verify').filter((job) => job.runId === duplicate && job.conclusion !== 'skipped'),
        why,
      ).toEqual([])
      // Iteration 3 was dispatched once, by the first run's decide: the baseline round, three iterations
      // and the duplicate, five runs.
      expect(new Set(jobs.map((job) => job.runId)).size, why).toBe(5)
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
