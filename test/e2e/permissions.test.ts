/**
 * What a person reads when the job lacks a permission the loop needs (docs/github.md, "Permissions"):
 * each write permission is taken away in turn from a loop's first job; the run must say which one is
 * missing and where to grant it, never fail silently. The action is built from source.
 */
import { describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import { describeJobs, MINUTE, startScenario } from './fixtures.js'

const action = useActionFromSource()

const ALL = { contents: 'write', actions: 'write', 'pull-requests': 'write', issues: 'write' } as const

/** What each missing permission does to the loop's first job, and the line that says so. */
const CASES = [
  // The state (and the work) cannot be pushed: nothing is saved, the job fails saying what to grant.
  {
    scope: 'contents',
    conclusion: 'failure',
    line: '::error::loop-controller failed: git push to loop-state',
    loop: 'stopped',
  },
  // The iteration ran and was saved; the re-dispatch was refused: recorded in the state, the sweeper named.
  {
    scope: 'actions',
    conclusion: 'failure',
    line: '::error::The re-dispatch of iteration 2 of loop issue-1 failed: GitHub refused POST /repos/acme/demo/actions/workflows/loop.yml/dispatches',
    loop: 'stopped',
  },
  {
    scope: 'pull-requests',
    conclusion: 'failure',
    line: '::error::loop-controller failed: GitHub refused POST /repos/acme/demo/pulls',
    loop: 'stopped',
  },
  // Only the status comment is missing: a warning, and the loop goes on to COMPLETE.
  {
    scope: 'issues',
    conclusion: 'success',
    line: '::warning::GitHub refused POST /repos/acme/demo/issues/1/comments',
    loop: 'complete',
  },
] as const

describe('a missing permission', () => {
  it.each(CASES)(
    'without $scope: write the first job ends $conclusion, naming the permission and where to grant it',
    async ({ scope, conclusion, line, loop }) => {
      const scenario = await startScenario({
        steps: 2,
        sandbox: {
          actionDir: action.actionDir,
          workflow: { file: 'loop.yml', permissions: { ...ALL, [scope]: 'read' } },
        },
      })
      const { sandbox } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb', 'Two steps.')
      await sandbox.label('alice', issue.number, 'loop')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const job = jobs.find((j) => j.event === 'issues' && j.eventPayload.action === 'labeled')
      expect(job?.conclusion, why).toBe(conclusion)
      const said = job!.stdout.split('\n').find((l) => l.startsWith(line))
      expect(said, why).toBeDefined()
      expect(said).toContain(`The token needs '${scope}: write'`)
      expect(said).toContain("under 'permissions:' of the job that runs loop-controller")
      expect(jobs.at(-1)?.outputs.status === 'complete' ? 'complete' : 'stopped', why).toBe(loop)
      expect(sandbox.api.violations).toEqual([])
    },
    3 * MINUTE,
  )
})
