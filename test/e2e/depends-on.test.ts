// End to end: `depends-on` waits that could never end are refused and said plainly, never left queued
// with "nothing to do". One loop config for every issue says `depends-on: [1]` (as the example
// workflows use one config for all): the loop of issue 1 is refused on its issue (the config names it
// itself) and the job stays green. Issue 2's body (`**Depends-On:** #3`, a bold key) queues it, its
// comment saying #1 and #3 had no loop when it was written and what to do. Issue 3's body (`- depends-on: [acme/demo#2]`,
// a list item, brackets, this repository named) would close the cycle #3 → #2 → #3: it is refused on
// its issue naming the cycle, keeps no state and takes no place in line. Once its body no longer names
// #2, `/loop start` queues it like any other loop.
//
// A dependency named by mistake is dropped by editing the line and starting again: the start reads the
// body afresh and its list replaces the one the loop was queued with, with or without `max-loops`.
import { describe, expect, it } from 'vitest'
import {
  checkOperationsExercised,
  commentsOn,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
} from './fixtures.js'
import { queueNow, savedStateIfAny } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: depends-on that cannot be honoured', () => {
  it(
    "a shared config naming the loop's own issue is refused on it; a dependency with no loop says so; a cycle is refused naming it, and leaves no place in line",
    async () => {
      const scenario = await startScenario({ steps: 1, configDependsOn: [1] })
      const { sandbox } = scenario
      const first = (await sandbox.openIssue('alice', 'Climb first', 'One step.')).number
      const second = (await sandbox.openIssue('alice', 'Climb second', 'One step.\n\n**Depends-On:** #3\n')).number
      const third = (await sandbox.openIssue('alice', 'Climb third', 'One step.\n- depends-on: [acme/demo#2]\n')).number
      // The config names issue 1 and the bodies issues 2 and 3 by number: the issues are those.
      expect([first, second, third]).toEqual([1, 2, 3])

      await sandbox.label('alice', first, 'loop')
      await sandbox.label('alice', second, 'loop')
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      const statusOf = (issue: number) =>
        jobs.filter((job) => job.outputs['loop-id'] === `issue-${issue}` && job.outputs.status !== undefined)
      // A refusal, not a red job: the person is told on the issue.
      expect(
        statusOf(first).map((job) => [job.outputs.status, job.conclusion]),
        why,
      ).toEqual([['refused', 'success']])
      expect(await savedStateIfAny(scenario, 'issue-1')).toBeUndefined()
      const configRefusal = commentsOn(scenario, first)
      expect(configRefusal).toContain(
        "did not start the loop `issue-1`: the loop config's `depends-on` names this loop's own issue.",
      )
      expect(configRefusal).toContain('is for a config used by a single loop')
      expect(configRefusal).toContain('write each issue')

      expect(statusOf(second).map((job) => job.outputs.status)).toEqual(['queued'])
      expect(await savedStateIfAny(scenario, 'issue-2'), why).toMatchObject({
        status: 'queued',
        statusReason: 'it waits for #1, #3 to be COMPLETE (#1 and #3 had no loop when this was written)',
      })
      const waiting = commentsOn(scenario, second)
      expect(waiting).toContain(
        '**Next:** #1 and #3 had no loop when this was written: if one still has none (no status comment of loop-controller on its issue), label it `loop` (or start it); this loop starts by itself after all are COMPLETE.',
      )
      expect(waiting).not.toContain('nothing to do')

      await sandbox.label('alice', third, 'loop')
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      expect(
        statusOf(third).map((job) => [job.outputs.status, job.conclusion]),
        why,
      ).toEqual([['refused', 'success']])
      const cycle = commentsOn(scenario, third)
      expect(cycle).toContain('did not queue the loop `issue-3`: its `depends-on` would close a cycle, #3 → #2 → #3.')
      expect(cycle).toContain('#3 waits for #2, #2 waits for #3')
      expect(cycle).toContain("remove #2 from this issue's `depends-on:` line")
      // No state and no place in line: the start after the fix is a fresh one.
      expect(await savedStateIfAny(scenario, 'issue-3')).toBeUndefined()
      expect((await queueNow(scenario)).queued.map((entry) => entry.loopId)).toEqual(['issue-2'])

      // The body fixed, a writer's `/loop start` queues it: it waits for #1 only.
      await sandbox.editIssue('alice', third, 'One step.')
      await sandbox.comment('alice', '/loop start', third)
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      expect(await savedStateIfAny(scenario, 'issue-3'), why).toMatchObject({
        status: 'queued',
        statusReason: 'it waits for #1 to be COMPLETE (#1 had no loop when this was written)',
      })
      expect((await queueNow(scenario)).queued.map((entry) => entry.loopId)).toEqual(['issue-2', 'issue-3'])
      // #3 has a loop now, and nothing rewrote #2's comment (only a dependency's end does): what it says
      // of #3 is still true, said of the moment it was written, with how to tell whether it has one since.
      const earlier = commentsOn(scenario, second)
      expect(earlier).not.toMatch(/ha(s|ve) no loop/)
      expect(earlier).toContain(
        '**Why:** it waits for #1, #3 to be COMPLETE (#1 and #3 had no loop when this was written).',
      )
      expect(earlier).toContain('if one still has none (no status comment of loop-controller on its issue)')
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it.each([
    { name: 'without max-loops', workflowWith: undefined },
    { name: 'under max-loops', workflowWith: { 'max-loops': '2' } },
  ])(
    "$name, a queued loop whose issue's line is edited to drop a mistaken dependency starts at the next `/loop start`",
    async ({ workflowWith }) => {
      const scenario = await startScenario({ steps: 1, ...(workflowWith ? { workflowWith } : {}) })
      const { sandbox } = scenario
      const loop = (await sandbox.openIssue('alice', 'Climb', 'One step.\n\ndepends-on: #2\n')).number
      // #2 was meant to be another issue: it exists, and has no loop.
      const other = (await sandbox.openIssue('alice', 'Unrelated', 'Nothing to do.')).number
      expect([loop, other]).toEqual([1, 2])
      await sandbox.label('alice', loop, 'loop')
      let jobs = await sandbox.waitForIdle(MINUTE)
      expect(await savedStateIfAny(scenario, 'issue-1'), describeJobs(jobs)).toMatchObject({ status: 'queued' })
      expect((await queueNow(scenario)).queued).toMatchObject([{ loopId: 'issue-1', dependsOn: ['issue-2'] }])

      await sandbox.editIssue('alice', loop, 'One step.')
      await sandbox.comment('alice', '/loop start', loop)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      // Never a red job: the start admits it and runs it to the end.
      expect(
        jobs.filter((job) => job.conclusion === 'failure').map((job) => job.runId),
        why,
      ).toEqual([])
      expect(await savedStateIfAny(scenario, 'issue-1'), why).toMatchObject({ status: 'complete' })
      expect(await queueNow(scenario), why).toMatchObject({ running: [], queued: [] })
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'a dependency that is no issue (a number that names nothing, a pull request) refuses the start naming each; fixed, the loop starts',
    async () => {
      const scenario = await startScenario({ steps: 1 })
      const { sandbox } = scenario
      const pull = (
        await sandbox.openForkPullRequest('mallory', {
          branch: 'patch-1',
          files: { 'notes.md': 'hi\n' },
          title: 'Notes',
        })
      ).number
      const loop = (await sandbox.openIssue('alice', 'Climb', `One step.\n\ndepends-on: #${pull}, #42\n`)).number
      expect([pull, loop]).toEqual([1, 2])
      await sandbox.label('alice', loop, 'loop')
      let jobs = await sandbox.waitForIdle(MINUTE)
      let why = describeJobs(jobs)
      const ofLoop = () => jobs.filter((job) => job.outputs['loop-id'] === 'issue-2')
      expect(
        ofLoop().map((job) => [job.outputs.status, job.conclusion]),
        why,
      ).toEqual([['refused', 'success']])
      const refusal = commentsOn(scenario, loop)
      expect(refusal).toContain('#1 is a pull request (depends-on names issues)')
      expect(refusal).toContain('#42: no such issue in acme/demo')
      expect(refusal).toContain("Correct the number in the issue's `depends-on:` line")
      // Refused before it has a state or a place in line (no queue.json at all): the start after the fix is a fresh one.
      expect(await savedStateIfAny(scenario, 'issue-2')).toBeUndefined()
      expect(await sandbox.git.show('loop-state', 'queue.json')).toBeUndefined()

      await sandbox.editIssue('alice', loop, 'One step.')
      await sandbox.comment('alice', '/loop start', loop)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(await savedStateIfAny(scenario, 'issue-2'), why).toMatchObject({ status: 'complete' })
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
