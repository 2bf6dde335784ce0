/**
 * What a person reads when the job lacks a permission the loop needs (docs/github.md, "Permissions"):
 * each write permission is taken away in turn from a loop's first job; the run must say which one is
 * missing and where to grant it, never fail silently. The action is built from source.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import { describeJobs, type Scenario, startScenario } from './fixtures.js'

const MINUTE = 60_000
const action = useActionFromSource()
let scenario: Scenario | undefined

afterEach(async () => {
  await scenario?.stop()
  scenario = undefined
})

const ALL = { contents: 'write', actions: 'write', 'pull-requests': 'write', issues: 'write' } as const

describe('a missing permission', () => {
  it.each(['contents', 'actions', 'pull-requests', 'issues'] as const)(
    'without %s: write the run says so and names where to grant it',
    async (scope) => {
      scenario = await startScenario({
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
      const job = jobs.find((j) => j.event === 'issues' && j.eventPayload.action === 'labeled')!
      console.log(
        scope,
        job.conclusion,
        JSON.stringify(job.outputs),
        '\n',
        job.stdout
          .split('\n')
          .filter((l) => /::(error|warning)/.test(l))
          .join('\n'),
        '\n',
        describeJobs(jobs),
      )
      expect(job).toBeDefined()
    },
    3 * MINUTE,
  )
})
