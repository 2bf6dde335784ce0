// End to end: GitHub's primary rate limit (1,000 calls an hour per repository for GITHUB_TOKEN) runs out
// mid-loop, resetting in 50 minutes. The job does not wait for it (its timeout would kill it first): each
// call gives up at once, naming the reset; the iteration is saved (git store), the status comment waits
// for a later job, the re-dispatch is recorded as failed and the step fails saying so.
// After the reset, a scheduled sweeper dispatches the iteration again and the loop finishes.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
  SWEEP_ON_SCHEDULE,
  SWEEP_SCHEDULE,
  startScenario,
  sweep,
  waitForWork,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: the primary rate limit', () => {
  it(
    'hit mid-loop: the job gives up at once naming the reset, records the failed re-dispatch, and a sweeper finishes the loop',
    async () => {
      const scenario = await startScenario({
        steps: 3,
        schedule: SWEEP_SCHEDULE,
        workflowWith: { command: SWEEP_ON_SCHEDULE },
      })
      const { sandbox } = scenario
      writeFileSync(join(scenario.signals, 'hold'), '')
      writeFileSync(join(scenario.signals, 'go-1'), '')
      await sandbox.dispatch({ 'loop-id': 'limited' })
      await waitForWork(scenario, 2)
      // Iteration 2 is at work: the repository's budget runs out, resetting in 50 minutes.
      sandbox.api.setRepositoryRateLimit(0, 3000)
      writeFileSync(join(scenario.signals, 'go-2'), '')
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      expect(jobs, why).toHaveLength(2)
      const limited = jobs[1]!
      expect([limited.conclusion, limited.outputs.status, limited.outputs.iteration], why).toEqual([
        'failure',
        'running',
        '2',
      ])
      const warnings = limited.annotations.filter((a) => a.level === 'warning').map((a) => a.message)
      expect(warnings.join('\n'), why).toMatch(
        /GitHub primary rate limit on POST \S+\/dispatches: it resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+ s\), later than the 60 s a job waits; giving up on this call now\./,
      )
      // Nothing waited for the reset: no call was retried.
      expect(limited.stdout).not.toMatch(/retrying after/)
      // The status comment could not be updated: said, and the job went on to its re-dispatch.
      expect(warnings.join('\n')).toMatch(/the API rate limit is used up .*without its status comment/)
      const errors = limited.annotations.filter((a) => a.level === 'error').map((a) => a.message)
      expect(errors.join('\n'), why).toMatch(
        /The re-dispatch of iteration 3 of loop limited failed: GitHub POST \S+ was not made: the API rate limit is used up until \S+Z .*a scheduled sweeper \(`command: sweep`\) dispatches it again; without one, run the workflow with `loop-id: limited` and `iteration: 3`/,
      )
      expect(errors.join('\n')).not.toMatch(/loop-controller failed/)
      expect(await sandbox.git.show('loop/limited', 'progress.txt')).toBe('2\n')
      const state = await savedState(scenario, 'limited')
      expect(state).toMatchObject({ iteration: 2, status: 'running', dispatch: { iteration: 3 } })
      expect(state.dispatch?.failed).toMatch(/rate limit is used up/)

      // The hour turns; a scheduled sweeper dispatches iteration 3, which opens the pull request and ends the loop.
      sandbox.api.setRepositoryRateLimit(1000, 3600)
      writeFileSync(join(scenario.signals, 'go-3'), '')
      sweep(scenario)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(
        jobs.slice(2).map((job) => [job.event, job.outputs.status]),
        why,
      ).toEqual([
        ['schedule', 'swept'],
        ['workflow_dispatch', 'complete'],
      ])
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])
      expect(pullRequests(sandbox)).toHaveLength(1)
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
