// Fan-out and the re-run buttons: "Re-run all jobs" is a new attempt of the same run, which keeps the
// artifacts of the attempts before it; the hand-off artifacts name their attempt, so the new plan's and
// legs' uploads do not collide with the old ones, and decide takes the new attempt's.
import { describe, expect, it } from 'vitest'
import { fanOutFiles } from './fan-out-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('fan-out: re-run all jobs', () => {
  it(
    'after a decide that failed (its push refused), a re-run of the run plans, verifies and decides again, and the loop reaches COMPLETE',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        sandbox: { repoFiles: fanOutFiles({}, { steps: 1 }), workflow: { file: 'loop-fan-out.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, 'pushes are closed for maintenance')
      await sandbox.dispatch({ 'loop-id': 'again' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      const fanOut = (attempt: number) =>
        jobs
          .filter((job) => job.runAttempt === attempt && job.name !== 'loop / loop iteration')
          .map((job) => [job.name, job.conclusion])
          .sort(([a], [b]) => String(a).localeCompare(String(b)))
      expect(fanOut(1), describeJobs(jobs)).toEqual([
        ['loop / decide', 'failure'],
        ['loop / plan', 'success'],
        ['loop / verify (step-1)', 'success'],
      ])
      const runId = jobs[0]!.runId
      await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, null)
      sandbox.engine.rerun(runId)
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // The second attempt is the same run: its plan's and its leg's uploads do not collide with the first's.
      expect(fanOut(2), why).toEqual([
        ['loop / decide', 'success'],
        ['loop / plan', 'success'],
        ['loop / verify (step-1)', 'success'],
      ])
      expect(new Set(jobs.map((job) => job.runId))).toEqual(new Set([runId]))
      const decide = jobs.find((job) => job.runAttempt === 2 && job.name === 'loop / decide')
      expect(decide?.outputs.status, why).toBe('complete')
      // Each attempt planned iteration 1 (the first attempt's plan was never kept), and handed it on as its own.
      const plans = jobs.filter((job) => job.name === 'loop / plan')
      expect(plans.map((job) => [job.runAttempt, job.outputs.iteration, job.jobOutputs['plan-artifact']])).toEqual([
        [1, '1', 'loop-plan.attempt-1'],
        [2, '1', 'loop-plan.attempt-2'],
      ])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `again` · after 1 iteration/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
