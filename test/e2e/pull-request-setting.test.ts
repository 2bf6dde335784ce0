// End to end: the repository setting "Allow GitHub Actions to create and approve pull requests" is off,
// as it is by default on GitHub for new repositories and organizations. The job's GITHUB_TOKEN gets
// GitHub's 403 on opening the pull request; the loop must still run to the end, tell the person what to
// change and where (or the push-token alternative), keep the branch pushed with a compare link, and open
// the pull request in a later iteration once the setting is on. The action is built from this tree's
// source (dist/ is rebuilt separately).
import { describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import {
  botComments,
  checkOperationsExercised,
  commitSubjects,
  describeJobs,
  MINUTE,
  pullRequests,
  type Scenario,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

const SETTING = 'Allow GitHub Actions to create and approve pull requests'
const action = useActionFromSource()
let scenario: Scenario | undefined

/** A loop started by alice labelling an issue `loop`, with the setting off; returns the issue's number. */
async function startFromIssue(
  steps: number,
  extra: { workflowWith?: Record<string, string>; secrets?: Record<string, string> } = {},
): Promise<number> {
  scenario = await startScenario({
    steps,
    ...(extra.workflowWith ? { workflowWith: extra.workflowWith } : {}),
    sandbox: {
      actionDir: action.actionDir,
      actionsCanCreatePullRequests: false,
      ...(extra.secrets ? { secrets: extra.secrets } : {}),
    },
  })
  const issue = await scenario.sandbox.openIssue('alice', 'Climb the stairs', 'Every step, please.')
  await scenario.sandbox.label('alice', issue.number, 'loop')
  return issue.number
}

describe('the pull request when GitHub Actions may not open one', () => {
  it(
    'runs the loop to COMPLETE anyway: each summary and the issue`s comment name the setting and give a compare link; the branch is pushed, no pull request',
    async () => {
      const issue = await startFromIssue(2)
      const { sandbox } = scenario!
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const branch = `loop/issue-${issue}`
      const compare = `https://github.com/acme/demo/compare/main...${branch}?expand=1`

      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(
        jobs.map((job) => job.conclusion),
        why,
      ).toEqual(jobs.map(() => 'success'))
      expect(jobs.filter((job) => job.event === 'workflow_dispatch').length, why).toBe(1)
      expect(pullRequests(sandbox)).toEqual([])
      // GitHub refused each try, and the action asked again in each iteration (the setting may change).
      const refused = sandbox.api.exchanges.filter((e) => e.operationId === 'pulls/create' && e.status === 403)
      expect(refused.length, why).toBe(2)

      // The issue's `opened` event starts nothing; the label's job and the dispatched one each ran an iteration.
      const iterations = jobs.filter((job) => job.outputs.iteration)
      expect(iterations.length, why).toBe(2)
      for (const job of iterations) {
        expect(job.summary, why).toContain(SETTING)
        expect(job.summary).toContain('Settings → Actions → General → Workflow permissions')
        expect(job.summary).toContain('push-token')
        expect(job.summary).toContain(compare)
        expect(job.outputs['pr-number']).toBe('')
      }
      const comments = botComments(sandbox)
      expect(comments.map((comment) => comment.issueNumber)).toEqual([issue])
      expect(comments[0]?.body).toContain(SETTING)
      expect(comments[0]?.body).toContain(compare)
      expect(comments[0]?.body).toMatch(/COMPLETE|complete/)

      expect((await commitSubjects(sandbox, branch)).filter((s) => s.startsWith('loop(issue-'))).toHaveLength(2)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    4 * MINUTE,
  )

  it(
    'opens the pull request in the next iteration once a person turns the setting on',
    async () => {
      let turnedOn = false
      const issue = await startFromIssue(3)
      const { sandbox } = scenario!
      sandbox.engine.onJobFinished((job) => {
        if (job.outputs.iteration === '1' && !turnedOn) {
          turnedOn = true
          sandbox.api.setActionsCanCreatePullRequests(true)
        }
      })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)

      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(turnedOn, why).toBe(true)
      const pulls = pullRequests(sandbox)
      expect(
        pulls.map((pull) => [pull.head, pull.draft]),
        why,
      ).toEqual([[`loop/issue-${issue}`, true]])
      expect(jobs.find((job) => job.outputs.iteration === '1')?.summary, why).toContain(SETTING)
      expect(jobs.at(-1)?.summary).not.toContain(SETTING)
      expect(jobs.at(-1)?.outputs['pr-number']).toBe(String(pulls[0]?.number))
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    4 * MINUTE,
  )

  it(
    'opens it with `push-token` when one is given: a person`s token is not refused by the setting',
    async () => {
      // The secret is alice's personal token (a PAT; the sandbox names it `ghp_<login>`), as a user would store one.
      await startFromIssue(2, {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression, written as a user writes it
        workflowWith: { 'push-token': '${{ secrets.LOOP_PUSH_TOKEN }}' },
        secrets: { LOOP_PUSH_TOKEN: 'ghp_alice' },
      })
      const { sandbox } = scenario!
      expect(sandbox.tokenOf('alice')).toBe('ghp_alice')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      const pulls = pullRequests(sandbox)
      expect(pulls.length, why).toBe(1)
      expect(sandbox.api.model.issue(pulls[0]?.number ?? 0).user.login).toBe('alice')
      for (const job of jobs) expect(job.summary).not.toContain(SETTING)
      expect(sandbox.api.violations).toEqual([])
    },
    4 * MINUTE,
  )
})
