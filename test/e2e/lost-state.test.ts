// End to end: the `artifact` store loses a loop's state between two jobs (its snapshot expired). The dispatched iteration 2 does not start the loop over: it stops BLOCKED,
// its summary says the state of iteration 1 was not found and what `/loop resume` does, with the store's
// warning, and so does the status comment on the loop's pull request (found again by its branch); a
// writer's `/loop resume` then carries the loop on to COMPLETE. A loop started from an issue says it on
// that issue too.
import { describe, expect, it } from 'vitest'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
  startScenario,
  statusCommentOn,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: a state the store lost', () => {
  it(
    'stops BLOCKED saying so, never starting over quietly, and goes on after `/loop resume`',
    async () => {
      const scenario = await startScenario({ steps: 3, workflowWith: { store: 'artifact' } })
      const { sandbox } = scenario
      let lostAfter: number | null = null
      sandbox.engine.onJobFinished((job) => {
        // Once, after the first job: the BLOCKED job that follows is at iteration 1 too.
        if (job.outputs.iteration !== '1' || lostAfter !== null) return
        lostAfter = job.runId
        sandbox.results.expireArtifacts()
      })
      await sandbox.dispatch({ 'loop-id': 'forgotten' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      expect(jobs, why).toHaveLength(2)
      const lost = jobs[1]!
      expect([lost.conclusion, lost.outputs.status, lost.outputs.iteration], why).toEqual(['failure', 'blocked', '1'])
      expect(scenario.workRuns()).toEqual(['work-1'])
      const reason =
        'the state of iteration 1 was not found in the artifact store: the artifact snapshot expired (its retention days) or was deleted'
      expect(lost.summary, why).toContain(reason)
      expect(lost.summary).toContain('The state store lost, rolled back or did not mirror data in this job:')
      expect(lost.summary).toMatch(/newest snapshot\(s\) of loop-state-forgotten expired .*no snapshot of it is left/)
      // The status comment says it too, where it was: on the loop's pull request, found by its branch.
      expect(botComments(sandbox)).toHaveLength(1)
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/forgotten')
      expect(pull, why).toBeDefined()
      expect(botComments(sandbox)[0]!.issueNumber).toBe(pull!.number)
      const blockedComment = statusCommentOn(scenario, pull!.number)
      expect(blockedComment).toContain('BLOCKED')
      expect(blockedComment).toContain(reason)
      const warnings = lost.annotations.filter((a) => a.level === 'warning').map((a) => a.message)
      expect(warnings.join('\n')).toMatch(/State store: the 1 newest snapshot\(s\) of loop-state-forgotten expired/)

      await sandbox.comment('alice', '/loop resume')
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      why = describeJobs(jobs)
      expect(jobs.at(-1)!.outputs.status, why).toBe('complete')
      // The pull request the BLOCKED job recorded stayed the loop's: its comment says COMPLETE, no second one opened.
      expect(pullRequests(sandbox).map((p) => p.number)).toEqual([pull!.number])
      expect(statusCommentOn(scenario, pull!.number)).toContain('COMPLETE')
      // Iterations 2 and 3 ran from the fresh state the BLOCKED job saved; iteration 1's commit stayed.
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])
      expect(await sandbox.git.show('loop/forgotten', 'progress.txt')).toBe('3\n')
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )

  it(
    'says BLOCKED on the issue a loop started from (its loop id `issue-N` names it) and on its pull request',
    async () => {
      const scenario = await startScenario({ steps: 2, workflowWith: { store: 'artifact' } })
      const { sandbox } = scenario
      let expired = false
      sandbox.engine.onJobFinished((job) => {
        if (job.outputs.iteration !== '1' || expired) return
        expired = true
        sandbox.results.expireArtifacts()
      })
      const issue = await sandbox.openIssue('alice', 'Climb two steps', 'The staircase needs two steps.')
      await sandbox.label('alice', issue.number, 'loop')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('blocked')
      expect(scenario.workRuns()).toEqual(['work-1'])
      const pull = pullRequests(sandbox).find((p) => p.head === `loop/issue-${issue.number}`)
      expect(pull, why).toBeDefined()
      const reason = 'the state of iteration 1 was not found in the artifact store'
      for (const where of [issue.number, pull!.number]) {
        const comment = statusCommentOn(scenario, where)
        expect(comment, `the status comment on #${where}`).toContain('BLOCKED')
        expect(comment, `the status comment on #${where}`).toContain(reason)
      }
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
