// End to end: a queued loop a writer aborts is told so. Under `max-loops: 1`, the first of two loops
// queued behind a running one is aborted by a `/loop abort` comment on its issue: its status comment,
// the job's summary and outputs say it was aborted (by whom, from which place in line), it leaves
// queue.json, the loop behind it is told its new place, nothing runs it, and the other two COMPLETE. With `depends-on` alone (no `max-loops`) the abort comment
// takes its loop out of the line and rewrites its comment the same way. (A dashboard tick on a queued
// loop: many-loops.test.ts.)
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  checkOperationsExercised,
  commentsOn,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
  statusCommentOn,
  until,
  waitForWork,
} from './fixtures.js'
import { queueNow, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: a queued loop aborted', () => {
  it(
    "max-loops 1: a writer's `/loop abort` on the first queued loop's issue: its comment says it was aborted, the line no longer has it, the loop behind it moves up, both others COMPLETE",
    async () => {
      const scenario = await startScenario({ steps: 1, workflowWith: { 'max-loops': '1' } })
      const { sandbox, signals } = scenario
      const running = (await sandbox.openIssue('alice', 'Climb first', 'One step.')).number
      const waiting = (await sandbox.openIssue('alice', 'Climb later', 'One step, later.')).number
      const behind = (await sandbox.openIssue('alice', 'Climb last', 'One step, last.')).number
      // The running loop holds its slot in its work (until go-1) while the others queue and one is aborted.
      writeFileSync(join(signals, 'hold'), '')
      await sandbox.label('alice', running, 'loop')
      await waitForWork(scenario, 1)
      await sandbox.label('alice', waiting, 'loop')
      await until('the second loop queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      await sandbox.label('alice', behind, 'loop')
      const queuedTwo = () => sandbox.jobs.filter((job) => job.outputs.status === 'queued').length === 2
      await until('the third loop queued', queuedTwo, MINUTE)
      expect(statusCommentOn(scenario, waiting)).toContain(`\`issue-${waiting}\` is queued`)
      expect(statusCommentOn(scenario, behind)).toContain('**Place in line:** 2nd.')
      expect(statusCommentOn(scenario, behind)).toMatch(/As of .* UTC · \[this job\]\(/)

      const { job: abortJob } = await sandbox.comment('alice', '/loop abort', waiting)
      await until('the abort applied', () => abortJob?.status === 'completed', MINUTE)
      const whyAbort = describeJobs([abortJob!])
      expect([abortJob?.conclusion, abortJob?.outputs.status], whyAbort).toEqual(['success', 'aborted'])
      const comment = statusCommentOn(scenario, waiting)
      expect(comment, whyAbort).toContain('Aborted')
      expect(comment).toContain('aborted by alice, while queued (1 of 2 in line); it never ran')
      expect(comment).not.toContain('is queued')
      expect(abortJob?.summary).toContain('aborted by alice, while queued (1 of 2 in line)')
      // Said to have never started, with no verdict, check table or metrics of an iteration that never ran.
      expect(abortJob?.summary).toContain('· never started')
      expect(abortJob?.summary).toContain('**Aborted before it started:** no iteration ran')
      expect(abortJob?.summary).not.toMatch(/Verdict|No checks ran|Metrics|Spent/)
      // The line no longer has it, the loop behind it is told its new place; the running loop holds the slot.
      expect(statusCommentOn(scenario, behind)).toContain('**Place in line:** 1st.')
      // Told by the aborted loop's job, and said so: not "this job".
      expect(statusCommentOn(scenario, behind)).toMatch(
        new RegExp(`As of .* UTC · updated by \\[run ${abortJob?.runId}\\]\\(.*\\), when \`issue-${waiting}\` ended`),
      )
      expect(await queueNow(scenario), whyAbort).toEqual({
        running: [expect.objectContaining({ loopId: `issue-${running}` })],
        queued: [expect.objectContaining({ loopId: `issue-${behind}` })],
        limit: 1,
      })

      writeFileSync(join(signals, 'go-1'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const first = await savedState(scenario, `issue-${running}`)
      const second = await savedState(scenario, `issue-${waiting}`)
      const third = await savedState(scenario, `issue-${behind}`)
      expect([first.status, second.status, second.iteration, third.status], why).toEqual([
        'complete',
        'aborted',
        0,
        'complete',
      ])
      // Nothing ran the aborted loop, and its comment still says it was aborted.
      expect(
        jobs.filter((job) => job.inputs['loop-id'] === `issue-${waiting}`),
        why,
      ).toEqual([])
      expect(statusCommentOn(scenario, waiting)).toContain('aborted by alice, while queued')
      expect(await queueNow(scenario), why).toEqual({ running: [], queued: [], limit: 1 })
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    "depends-on alone: a writer's `/loop abort` on the waiting loop's issue takes it out of the line and its comment says it was aborted",
    async () => {
      const scenario = await startScenario({ steps: 1 })
      const { sandbox } = scenario
      const dependency = (await sandbox.openIssue('alice', 'Climb first (not started)', 'One step.')).number
      const waiting = (await sandbox.openIssue('alice', 'Climb after', `depends-on: #${dependency}`)).number
      await sandbox.label('alice', waiting, 'loop')
      await until('the loop queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      expect(statusCommentOn(scenario, waiting)).toContain(`it waits for #${dependency} to be COMPLETE`)
      expect((await queueNow(scenario)).queued.map((entry) => entry.loopId)).toEqual([`issue-${waiting}`])

      const { job: abortJob } = await sandbox.comment('alice', '/loop abort', waiting)
      const jobs = await sandbox.waitForIdle(MINUTE)
      const why = describeJobs(jobs)
      expect([abortJob?.conclusion, abortJob?.outputs.status], why).toEqual(['success', 'aborted'])
      const comment = statusCommentOn(scenario, waiting)
      expect(comment, why).toContain('aborted by alice, while queued (1 of 1 in line); it never ran')
      // Never started: no iteration, no stage it left from.
      expect(comment).toContain(`· \`issue-${waiting}\` · never started`)
      expect(comment).toContain('[*] --> ABORTED')
      expect(comment).not.toContain('VERIFY --> ABORTED')
      expect(comment).not.toContain('is queued')
      expect(await queueNow(scenario), why).toEqual({ running: [], queued: [], limit: null })
      const state = await savedState(scenario, `issue-${waiting}`)
      expect([state.status, state.iteration], why).toEqual(['aborted', 0])

      // A start of the aborted loop is refused, green, saying what begins the work again: it never runs ABORTED again.
      const { job: startJob } = await sandbox.comment('alice', '/loop start', waiting)
      const afterStart = await sandbox.waitForIdle(MINUTE)
      expect(startJob?.conclusion, describeJobs(afterStart)).toBe('success')
      const refusal = commentsOn(scenario, waiting)
      expect(refusal).toContain(
        `did not start the loop \`issue-${waiting}\`: it was aborted, and an aborted loop does not run again.`,
      )
      expect(refusal).toContain('To do the work, open a new issue and label it `loop`')
      expect((await savedState(scenario, `issue-${waiting}`)).updatedAt).toBe(state.updatedAt)
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})
