// End to end: lists longer than a page (issue 13, point 11). GitHub pages every list (30 by default, 100 at
// most) behind `Link` headers; the action must follow them, or it misses its own sticky comment (and
// posts a second one) or the state snapshot behind newer expired ones (and starts the loop over).
import { describe, expect, it } from 'vitest'
import { botComments, checkOperationsExercised, describeJobs, MINUTE, pullRequests, startScenario } from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: lists of more than one page', () => {
  it(
    'an issue with 150 comments: the loop finds its sticky comment on page 2 and updates it, never posting a second',
    async () => {
      const scenario = await startScenario({ steps: 2 })
      const { sandbox } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb two steps', 'A busy issue.')
      const people = [sandbox.api.model.user('alice'), sandbox.api.model.user('bob')]
      for (let index = 0; index < 150; index++) {
        sandbox.api.model.addComment(people[index % 2]!, issue.number, `Discussion ${index + 1}`)
      }
      await sandbox.label('alice', issue.number, 'loop')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(jobs.length, why).toBeGreaterThan(1)

      const onIssue = botComments(sandbox).filter((comment) => comment.issueNumber === issue.number)
      expect(onIssue, why).toHaveLength(1)
      expect(onIssue[0]!.body).toMatch(/COMPLETE/)
      // It sits after the people's 150: page 2 of any listing, page 6 of GitHub's default 30.
      const issueComments = sandbox.api.model.comments.filter((comment) => comment.issueNumber === issue.number)
      expect(issueComments.findIndex((comment) => comment.id === onIssue[0]!.id)).toBe(150)
      const listings = sandbox.api.exchanges.filter(
        (exchange) => exchange.operationId === 'issues/list-comments' && exchange.tokenKind === 'installation',
      )
      expect(listings.some((exchange) => /[?&]page=2\b/.test(exchange.path))).toBe(true)
      expect(pullRequests(sandbox)).toHaveLength(1)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    4 * MINUTE,
  )

  it(
    '`store: artifact` with 120 newer expired snapshots listed first: the next job reads the live one on page 2 and goes on',
    async () => {
      const scenario = await startScenario({ steps: 2, workflowWith: { store: 'artifact' } })
      const { sandbox } = scenario
      const repository = `${sandbox.api.model.repo.owner.login}/${sandbox.api.model.repo.name}`
      // Snapshots uploaded later with a short retention, already expired: GitHub still lists them
      // (`expired: true`), newest first, so they fill page 1 and push the live snapshot to page 2.
      const later = Date.now() + 60 * MINUTE
      for (let index = 0; index < 120; index++) {
        sandbox.results.artifacts.push({
          id: 900_000 + index,
          name: 'loop-state-paged',
          repository,
          runId: 900_000 + index,
          runBackendId: `expired-run-${index}`,
          jobBackendId: `expired-job-${index}`,
          ref: 'refs/heads/main',
          blob: `expired-${index}`,
          size: 1,
          digest: null,
          createdAt: new Date(later + index * 1000),
          expiresAt: new Date(Date.now() - MINUTE),
          expired: true,
          finalized: true,
        })
      }
      await sandbox.dispatch({ 'loop-id': 'paged' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // Without the second page the second job finds no state and starts again at iteration 1.
      expect(
        jobs.map((job) => job.outputs.iteration),
        why,
      ).toEqual(['1', '2'])
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      const listings = sandbox.api.exchanges.filter(
        (exchange) =>
          exchange.operationId === 'actions/list-artifacts-for-repo' && exchange.tokenKind === 'installation',
      )
      expect(listings.some((exchange) => /[?&]page=2\b/.test(exchange.path))).toBe(true)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    4 * MINUTE,
  )
})
