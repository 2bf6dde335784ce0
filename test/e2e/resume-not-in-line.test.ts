// End to end: a person's resume that must ask for a slot (`max-loops`) and cannot (here queue.json is
// unreadable; a failed fetch or push, a lease never won, or the job cancelled between its pushes do the
// same) never leaves the loop `running` with no job. The resume is saved `queued`, asking for a slot, in
// its own save; the job fails with the error and the issue is told what to do. Once the cause is fixed a
// second `/loop resume` is accepted (not "already running"), takes the slot and runs the loop to COMPLETE.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  SWEEP_ON_SCHEDULE,
  SWEEP_SCHEDULE,
  startScenario,
  sweep,
  until,
  waitForWork,
} from './fixtures.js'
import { queueNow, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: a resume whose slot request fails', () => {
  it(
    'max-loops 2: a BLOCKED loop resumed while queue.json is unreadable is left queued, asking for a slot; resumed again after the fix it COMPLETEs',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        schedule: SWEEP_SCHEDULE,
        workflowWith: { command: SWEEP_ON_SCHEDULE, 'max-loops': '2' },
      })
      const { sandbox, signals } = scenario
      const n = (await sandbox.openIssue('alice', 'Climb, stopped', 'One step.')).number
      const loopId = `issue-${n}`
      writeFileSync(join(signals, 'hold'), '')
      const first = await sandbox.label('alice', n, 'loop')
      await waitForWork(scenario, 1)
      // BLOCKED as a job that died makes it: cancelled mid-iteration, then swept.
      await until('the first job running', () => first?.status === 'running', MINUTE)
      sandbox.engine.cancel(first!, 'The run was canceled by @alice.')
      await until('the first job cancelled', () => first?.status === 'completed', MINUTE)
      sweep(scenario)
      let jobs = await sandbox.waitForIdle(MINUTE)
      expect((await savedState(scenario, loopId)).status, describeJobs(jobs)).toBe('blocked')
      const good = await queueNow(scenario)
      expect(good.running, describeJobs(jobs)).toEqual([])

      // queue.json unreadable (a field it does not know), as a person's bad edit of the state branch makes it.
      await sandbox.git.commit('loop-state', { 'queue.json': '{"running":[],"queued":[],"extra":1}\n' }, 'bad', 'alice')
      writeFileSync(join(signals, 'go-1'), '')
      const { job: failed } = await sandbox.comment('alice', '/loop resume', n)
      await until('the resume job done', () => failed?.status === 'completed', MINUTE)
      jobs = await sandbox.waitForIdle(MINUTE)
      let why = describeJobs(jobs)
      expect(failed?.conclusion, why).toBe('failure')
      expect(failed?.stdout, why).toMatch(/queue\.json/)
      const asking = await savedState(scenario, loopId)
      expect([asking.status, asking.statusReason, asking.iteration], why).toEqual(['queued', 'asking for a slot', 0])
      // Beside its status comment, a comment says it is not in line and what to do.
      const told = botComments(sandbox).filter((comment) => comment.issueNumber === n)
      expect(
        told.some((comment) =>
          new RegExp(
            `could not put the loop \`${loopId}\` in line[\\s\\S]*Resume it again once the cause is fixed`,
          ).test(comment.body),
        ),
        told.map((comment) => comment.body).join('\n---\n'),
      ).toBe(true)
      // No job of the loop was started, and none runs it.
      expect(
        sandbox.jobs.filter((job) => job.inputs['loop-id'] === loopId),
        why,
      ).toEqual([])

      // The cause fixed, a second resume is accepted, takes a slot and runs the loop to COMPLETE.
      await sandbox.git.commit('loop-state', { 'queue.json': `${JSON.stringify(good)}\n` }, 'fixed', 'alice')
      const { job: again } = await sandbox.comment('alice', '/loop resume', n)
      await until('the second resume job done', () => again?.status === 'completed', MINUTE)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(again?.conclusion, why).toBe('success')
      const done = await savedState(scenario, loopId)
      expect(done.status, why).toBe('complete')
      expect((await queueNow(scenario)).running, why).toEqual([])
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
