// End to end: the built action (dist/index.js) run job after job by the GitHub sandbox on loopback.
// The chain: COMPLETE across jobs, a duplicate dispatch superseded, budget-minutes, the cap, BLOCKED
// then `/loop resume`, and the audit trail carried across jobs.
import { describe, expect, it } from 'vitest'
import {
  botComments,
  checkOperationsExercised,
  commitSubjects,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: a chain of jobs', () => {
  it(
    'runs a loop to COMPLETE, one job per iteration, with one draft pull request and one sticky comment; a duplicate dispatch is superseded',
    async () => {
      const scenario = await startScenario({ steps: 3 })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'stairs' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)

      expect(
        jobs.map((job) => job.conclusion),
        why,
      ).toEqual(['success', 'success', 'success'])
      expect(jobs.map((job) => job.outputs.iteration)).toEqual(['1', '2', '3'])
      expect(jobs.map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      // Each job after the first was dispatched by the one before, with the next iteration number.
      expect(jobs.map((job) => job.inputs.iteration ?? '')).toEqual(['', '2', '3'])
      expect(jobs.every((job) => job.outputs['loop-id'] === 'stairs')).toBe(true)
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])

      // One draft pull request from loop/stairs, opened by the first job and reused after.
      const pulls = pullRequests(sandbox)
      expect(pulls).toHaveLength(1)
      const pull = pulls[0]!
      expect(pull.draft).toBe(true)
      expect(pull.head).toBe('loop/stairs')
      expect(jobs.map((job) => job.outputs['pr-number'])).toEqual([
        String(pull.number),
        String(pull.number),
        String(pull.number),
      ])

      // One sticky comment, updated in place to the final state.
      const comments = botComments(sandbox)
      expect(comments).toHaveLength(1)
      expect(comments[0]!.issueNumber).toBe(pull.number)
      expect(comments[0]!.body).toContain('<!-- loop-controller:stairs -->')
      expect(comments[0]!.body).toMatch(/COMPLETE · `stairs` · after 3 iterations/)
      // What a person does next, in one line; the comment is on the pull request and does not link to it.
      expect(comments[0]!.body).toContain(
        `**Next:** Review pull request \\#${pull.number}, mark it ready for review and merge it.`,
      )
      expect(comments[0]!.body).not.toContain(`[pull request \\#${pull.number}]`)

      // The summaries: the stage diagram, the checks, the next action.
      expect(jobs[0]!.summary).toContain('stateDiagram-v2')
      expect(jobs[0]!.summary).toMatch(/iteration 1 of 8/)
      expect(jobs[0]!.summary).toContain('`step-2`')
      expect(jobs[2]!.summary).toMatch(/COMPLETE/)

      // The work is on loop/stairs: one commit per iteration on top of main, progress at 3.
      expect(await sandbox.git.show('loop/stairs', 'progress.txt')).toBe('3\n')
      const subjects = await commitSubjects(sandbox, 'loop/stairs')
      const mainSubjects = await commitSubjects(sandbox, 'main')
      expect(subjects.length - mainSubjects.length).toBe(3)

      // The audit trail accumulated across jobs: each job after the first restored the trail so far.
      expect(jobs[0]!.stdout).not.toMatch(/Audit trail: \d+ file\(s\) restored/)
      const restored = jobs.slice(1).map((job) => Number(/Audit trail: (\d+) file\(s\) restored/.exec(job.stdout)?.[1]))
      expect(restored[0]).toBeGreaterThan(0)
      expect(restored[1]).toBeGreaterThan(restored[0]!)

      // A duplicate dispatch of iteration 2, which already ran: superseded, no work, no push, no comment.
      const tip = sandbox.git.resolveRef('refs/heads/loop/stairs')
      const commentBody = comments[0]!.body
      await sandbox.dispatch({ 'loop-id': 'stairs', iteration: '2' })
      const after = await sandbox.waitForIdle(MINUTE)
      const duplicate = after.at(-1)!
      expect(after).toHaveLength(4)
      expect(duplicate.conclusion, describeJobs([duplicate])).toBe('success')
      expect(duplicate.outputs.status).toBe('superseded')
      expect(scenario.workRuns()).toHaveLength(3)
      expect(sandbox.git.resolveRef('refs/heads/loop/stairs')).toBe(tip)
      expect(botComments(sandbox)).toEqual([{ ...comments[0]!, body: commentBody }])
      expect(pullRequests(sandbox)).toHaveLength(1)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'with budget-minutes, runs several iterations in one job: fewer jobs than one per iteration',
    async () => {
      const scenario = await startScenario({ steps: 4, workflowWith: { 'budget-minutes': '10' } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'budget' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(jobs.at(-1)?.outputs.iteration).toBe('4')
      // Four iterations without budget-minutes take four jobs; with it they fit in fewer.
      expect(jobs.length, why).toBeLessThan(4)
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3', 'work-4'])
      expect(botComments(scenario.sandbox)).toHaveLength(1)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'keeps the state on a branch with `store: git`, and runs the chain to COMPLETE',
    async () => {
      const scenario = await startScenario({ steps: 2, workflowWith: { store: 'git', 'state-branch': 'loop-state' } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'on-git' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'complete'])
      expect(jobs[0]!.outputs['state-path']).toMatch(/git branch loop-state/)
      const state = JSON.parse((await sandbox.git.show('loop-state', 'on-git/loop-state.json')) ?? '{}')
      expect(state).toMatchObject({ loopId: 'on-git', iteration: 2, status: 'complete' })
      // The audit trail is committed with the state, and the second job's save kept the first's part.
      expect(await sandbox.git.show('loop-state', 'on-git/audit/iterations/1.md')).toBeDefined()
      expect(await sandbox.git.show('loop-state', 'on-git/audit/iterations/2.md')).toBeDefined()
      expect(jobs[1]!.stdout).toMatch(/Audit trail: \d+ file\(s\) restored/)
      expect(await sandbox.git.show('loop/on-git', 'progress.txt')).toBe('2\n')
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'stops at the cap with a clear final report',
    async () => {
      const scenario = await startScenario({ stuck: true, workflowWith: { 'max-iterations': '2' } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'capped' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => job.outputs.iteration),
        why,
      ).toEqual(['1', '2'])
      const last = jobs.at(-1)!
      expect(last.outputs.status, why).toBe('capped')
      expect(last.summary).toMatch(/cap|CAPPED/i)
      expect(last.summary).toMatch(/iteration 2 of 2/)
      // A loop stopped at the cap fails its job (fail-on's default), with one annotation, the first,
      // that says why and what to do.
      expect(jobs.map((job) => job.conclusion)).toEqual(['success', 'failure'])
      // (GitHub counts error annotations apart from warnings, such as the isolation's.)
      const errors = last.annotations.filter((annotation) => annotation.level === 'error')
      expect(errors[0]?.title).toBe('loop-controller: capped stopped at the iteration cap (iteration 2 of 2)')
      // The advice that works: a higher cap re-opens the loop (a resume alone is refused).
      expect(errors[0]?.message).toMatch(
        /Next: raise the `max-iterations` the workflow passes above 2 .* and comment `\/loop resume`, or, where the workflow takes `max-iterations` as an input, run it again with the loop's `loop-id` and one above 2/,
      )
      expect(errors.length).toBeLessThanOrEqual(10)
      const comments = botComments(sandbox)
      expect(comments).toHaveLength(1)
      expect(comments[0]!.body).toMatch(/cap/i)
      expect(comments[0]!.body).toContain('step-1')
      // No third job: the chain ended.
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'ends BLOCKED with the handoff comment; a writer fixes the branch and `/loop resume` continues the chain',
    async () => {
      const scenario = await startScenario({ stuck: true, steps: 1 })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'stuck' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const blockedJob = jobs.at(-1)!
      expect(blockedJob.outputs.status, why).toBe('blocked')
      expect(blockedJob.conclusion).toBe('failure')
      const handoff = botComments(sandbox)
      expect(handoff).toHaveLength(1)
      const body = handoff[0]!.body
      expect(body).toMatch(/BLOCKED/)
      expect(body).toContain('step-1') // the last failure
      expect(body).toMatch(/attempt|iterations/i) // attempts used of the maximum
      expect(body).toMatch(/\/loop resume/) // how to resume
      expect(body).toContain('**What was tried**')
      // The ask and the next step come from the dead letter's suggestions, not a generic line.
      expect(body).toMatch(/\*\*Human action needed:\*\* \S/)
      expect(body).not.toContain('read the last failure and what was tried')
      expect(body).toMatch(/Suggested next step|Where to look|look at/i)
      const blockedIterations = Number(blockedJob.outputs.iteration)
      expect(scenario.workRuns()).toHaveLength(blockedIterations)

      // A reader's resume is refused; a writer fixes the branch and resumes.
      await sandbox.comment('bob', '/loop resume')
      const refused = (await sandbox.waitForIdle(MINUTE)).at(-1)!
      expect(refused.event).toBe('issue_comment')
      expect(refused.stdout).toMatch(/Command from @bob: .*write, maintain or admin is needed/)
      expect(refused.outputs.status).toBeUndefined()
      expect(scenario.workRuns()).toHaveLength(blockedIterations)
      await sandbox.git.commit(
        'loop/stuck',
        { 'unblocked.txt': 'a person did what the agent could not\n' },
        'Unblock',
        'alice',
      )
      const { job: resumeJob } = await sandbox.comment('alice', '/loop resume')
      const all = await sandbox.waitForIdle(2 * MINUTE)
      // A comment on the pull request cannot name the loop's concurrency group: its job records the
      // resume and dispatches the iteration into the group (docs/github.md, "One job per loop at a time").
      expect(resumeJob?.conclusion, describeJobs(all)).toBe('success')
      expect(resumeJob?.outputs.status, describeJobs(all)).toBe('running')
      const resumed = all.at(-1)!
      expect(resumed.event, describeJobs(all)).toBe('workflow_dispatch')
      expect(resumed.outputs.status, describeJobs(all)).toBe('complete')
      expect(Number(resumed.outputs.iteration)).toBe(blockedIterations + 1)
      // The sticky comment was updated in place, not posted again.
      const after = botComments(sandbox).filter((comment) => comment.body.includes('loop-controller:stuck'))
      expect(after).toHaveLength(1)
      expect(after[0]!.body).toMatch(/COMPLETE/)
      // The person's commit is in the branch's history (no force push over it).
      expect(await commitSubjects(sandbox, 'loop/stuck')).toContain('Unblock')
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
