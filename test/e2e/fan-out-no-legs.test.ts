// A fan-out iteration whose plan has no leg: every check is verify-only and the stage cannot reach
// VERIFY (IMPLEMENT of a pipeline with TEST after it), so the plan names no verify job. GitHub refuses a
// matrix with no vector; the plan says verify: false, no verify job runs, and decide judges the iteration
// with no check, as the single job does.
import { describe, expect, it } from 'vitest'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('fan-out: a plan with no leg', () => {
  it(
    'every check verify-only, in a stage that cannot reach VERIFY: no verify job, no empty matrix, and decide carries the loop on',
    async () => {
      const project = { steps: 1 }
      const config = staircaseConfigWith(
        'pipeline: iterate',
        'pipeline: [IMPLEMENT, TEST, VERIFY, COMPLETE]',
        project,
      ).replace('    timeout: 30s\n', '    timeout: 30s\n    verify-only: true\n')
      const s = await startFanOutScenario({ '.github/loop.yml': config }, project)
      const { sandbox } = s
      await sandbox.dispatch({ 'loop-id': 'no-legs' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const plans = jobsNamed(jobs, 'plan')
      const decides = jobsNamed(jobs, 'decide')
      // Iteration 1 (IMPLEMENT, TEST next): no leg, so no verify job; its run is green.
      expect(
        plans.map((job) => [job.outputs.iteration, job.outputs.verify]),
        why,
      ).toEqual([
        ['1', 'false'],
        ['2', 'true'],
      ])
      expect(plans[0]?.stdout).toMatch(/Planned iteration 1: .*; no verify leg \(no check runs in this stage/)
      expect(jobsNamed(jobs, 'verify').map((job) => [job.runId, job.conclusion])).toEqual([
        [plans[0]?.runId, 'skipped'],
        [plans[1]?.runId, 'success'],
      ])
      expect(
        [...plans, ...decides].filter((job) => job.conclusion !== 'success').map((job) => job.name),
        why,
      ).toEqual([])
      // Decide judged iteration 1 with no check (verdict none) and moved on to TEST, whose leg ran the check.
      expect(decides.map((job) => [job.outputs.iteration, job.outputs.stage, job.outputs.verdict])).toEqual([
        ['1', 'TEST', 'none'],
        ['2', 'COMPLETE', 'pass'],
      ])
      expect(decides.at(-1)?.outputs.status).toBe('complete')
      expectFaithful(s)
    },
    4 * MINUTE,
  )
})
