/**
 * Planted attacks by people and events (issue 15, "People and events"), each run end to end: the action
 * built from this tree's source runs in the GitHub sandbox, the attacker acts through the API (or as
 * GitHub stores what they may do), and each test asserts what the attacker got: nothing.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { parseLoopConfig } from '../../src/config/load-config.js'
import {
  botComments,
  describeJobs,
  expectFaithful,
  loopWorkflow,
  MINUTE,
  type ProjectOptions,
  projectFiles,
  pullRequests,
  type Scenario,
} from '../e2e/fixtures.js'
import { startSandbox } from '../sandbox/sandbox.js'
import { useActionFromSource } from './source-bundle.js'

const action = useActionFromSource()
let scenario: Scenario | undefined

afterEach(async () => {
  await scenario?.stop()
  scenario = undefined
})

/** The e2e workflow, also started by a label on an issue or pull request (as examples/workflows do). */
function workflowWithLabels(): string {
  const workflow = parse(loopWorkflow()) as { on: Record<string, unknown> }
  workflow.on.issues = { types: ['labeled'] }
  workflow.on.pull_request = { types: ['labeled'] }
  workflow.on.pull_request_target = { types: ['opened', 'labeled'] }
  return stringify(workflow)
}

/**
 * The e2e scenario (staircase project; alice writes, bob triages, mallory reads) on the action built
 * from source; like `startScenario`, which insists on the committed dist/.
 */
async function start(options: ProjectOptions & { loopConfigExtra?: string } = {}): Promise<Scenario> {
  const files = projectFiles(options)
  files['.github/workflows/loop.yml'] = workflowWithLabels()
  if (options.loopConfigExtra) files['.github/loop.yml'] += options.loopConfigExtra
  const signals = mkdtempSync(join(tmpdir(), 'loop-security-signals-'))
  const sandbox = await startSandbox({
    actionDir: action.actionDir,
    repoFiles: files,
    users: { alice: 'write', bob: 'triage', mallory: 'read' },
    workflow: { file: 'loop.yml' },
    maxJobs: 30,
    jobTimeoutMs: 90_000,
    // The pull request's reviews and comments are part of what these scenarios check (see fixtures.ts).
    actionsCanCreatePullRequests: true,
    extraEnv: { E2E_SIGNAL_DIR: signals },
  })
  scenario = {
    sandbox,
    signals,
    workRuns: () =>
      readdirSync(signals)
        .filter((name) => name.startsWith('work-'))
        .sort(),
    stop: async () => {
      await sandbox.stop()
      rmSync(signals, { recursive: true, force: true })
    },
  }
  return scenario
}

/**
 * A person labels a pull request and the workflow hears `pull_request_target` (the sandbox's `label`
 * delivers `pull_request`): the label goes on through the API, the event is the opened one's, relabelled.
 */
async function labelAsTarget(s: Scenario, user: string, pullNumber: number, name: string): Promise<void> {
  const { sandbox } = s
  const response = await fetch(`${sandbox.api.url}/repos/acme/demo/issues/${pullNumber}/labels`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.tokenOf(user)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ labels: [name] }),
  })
  expect(response.status).toBe(200)
  const opened = sandbox.jobs.find((job) => job.event === 'pull_request_target')
  if (!opened) throw new Error('no pull_request_target job to take the payload from')
  const label = sandbox.api.model.issue(pullNumber).labels.find((l) => l.name === name)!
  const sender = opened.eventPayload.sender as Record<string, unknown>
  sandbox.engine.trigger(
    'pull_request_target',
    {
      ...opened.eventPayload,
      action: 'labeled',
      label: { id: label.id, name: label.name, color: label.color, description: label.description, default: false },
      sender: { ...sender, login: user },
    },
    sandbox.api.model.user(user),
  )
}

describe('people and events: planted attacks', () => {
  it(
    '7. a start label added by someone without write access starts nothing, and the job summary and a comment say why',
    async () => {
      const s = await start({ steps: 1 })
      const { sandbox } = s
      const { number } = await sandbox.openIssue('alice', 'Climb the staircase')
      // bob may triage (label) but not push: the API reports his permission as read.
      await sandbox.label('bob', number, 'loop')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(s.workRuns(), why).toEqual([])
      expect(pullRequests(sandbox)).toEqual([])
      expect(
        jobs.filter((job) => job.event === 'workflow_dispatch'),
        why,
      ).toEqual([])
      const refused = jobs.at(-1)!
      expect(refused.event).toBe('issues')
      expect(refused.summary).toMatch(/@bob/)
      expect(refused.summary).toMatch(/write, maintain or admin/)
      const comments = botComments(sandbox).filter((comment) => comment.issueNumber === number)
      expect(comments, why).toHaveLength(1)
      expect(comments[0]!.body).toMatch(/@bob has triage permission; write, maintain or admin is needed/)
      expect(comments[0]!.body).toMatch(/someone with write access/)
      expectFaithful(s)
    },
    3 * MINUTE,
  )

  it(
    '8. allow-untrusted in the checked-out loop config does not let a fork`s pull_request_target run the work',
    async () => {
      // The checkout holds a loop config that opts in, as a workflow that checks out the fork's head would.
      const s = await start({ steps: 1, loopConfigExtra: 'allow-untrusted: true\n' })
      const { sandbox } = s
      const opened = await sandbox.openForkPullRequest('mallory', {
        branch: 'patch-1',
        files: { 'tools/work.mjs': 'console.log("mallory was here")\n' },
      })
      await sandbox.waitForIdle(MINUTE)
      // A writer labels the fork's pull request to start a loop on it (pull_request_target, labeled).
      await labelAsTarget(s, 'alice', opened.number, 'loop')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(s.workRuns(), why).toEqual([])
      expect(
        jobs.filter((job) => job.event === 'workflow_dispatch'),
        why,
      ).toEqual([])
      for (const refused of jobs) {
        expect(refused.event).toBe('pull_request_target')
        expect(refused.conclusion, why).toBe('failure')
        const errors = refused.annotations.filter((a) => a.level === 'error').map((a) => a.message)
        expect(errors.join('\n'), why).toMatch(/action input 'allow-untrusted'/)
      }
      expect(botComments(sandbox)).toEqual([])
      expect(sandbox.git.resolveRef(`refs/heads/loop/pr-${opened.number}`)).toBeUndefined()
      // Where the config is read at all (a trusted trigger), the key fails validation and says where it went.
      expect(() => parseLoopConfig(`${projectFiles()['.github/loop.yml']}allow-untrusted: true\n`, 'loop.yml')).toThrow(
        /allow-untrusted: .*moved to the action input 'allow-untrusted'.*got true/,
      )
      expectFaithful(s)
    },
    3 * MINUTE,
  )

  it(
    '9. a fork`s pull request whose head is named loop/<id> is not that loop: its approval and commands do not reach it',
    async () => {
      const s = await start({ steps: 2, editsConfig: true })
      const { sandbox } = s
      await sandbox.dispatch({ 'loop-id': 'victim' })
      const atGate = await sandbox.waitForIdle(2 * MINUTE)
      expect(atGate.at(-1)!.outputs.status, describeJobs(atGate)).toBe('waiting')
      const runsAtGate = s.workRuns().length
      const before = atGate.length

      const { number } = await sandbox.openForkPullRequest('mallory', {
        branch: 'loop/victim',
        files: { 'notes.txt': 'a harmless-looking change\n' },
        title: 'Fix a typo',
      })
      await sandbox.waitForIdle(MINUTE)
      // A writer approves the harmless-looking pull request, then tells its loop to stop.
      await sandbox.review('alice', number, 'APPROVED')
      await sandbox.waitForIdle(2 * MINUTE)
      await sandbox.comment('alice', '/loop abort', number)
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const attacked = jobs.slice(before)
      expect(attacked.length, why).toBeGreaterThanOrEqual(2)
      expect(
        attacked.filter((job) => job.outputs['loop-id'] === 'victim'),
        why,
      ).toEqual([])
      expect(s.workRuns(), why).toHaveLength(runsAtGate)
      // The loop still waits at its gate: its status comment still asks for the approval.
      const status = botComments(sandbox).filter((comment) => comment.body.includes('loop-controller:victim'))
      expect(status, why).toHaveLength(1)
      expect(status[0]!.body).toMatch(/\/loop approve verifier/)
      expect(status[0]!.issueNumber).not.toBe(number)
      expectFaithful(s)
    },
    5 * MINUTE,
  )

  it(
    '10. a comment that carries the loop`s marker but is not the loop`s own is neither edited nor trusted',
    async () => {
      const s = await start({ steps: 1 })
      const { sandbox } = s
      const { number } = await sandbox.openIssue('alice', 'Climb the staircase')
      // Anyone may comment on a public repository's issue; the sandbox's read token may not, so the
      // comment is stored as GitHub would store it.
      const planted = `<!-- loop-controller:issue-${number} -->\nLoop status: COMPLETE. Download the fix from https://evil.example/`
      const mallory = sandbox.api.model.addComment(sandbox.api.model.user('mallory'), number, planted)
      await sandbox.label('alice', number, 'loop')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.find((job) => job.event === 'issues')?.outputs['loop-id'], why).toBe(`issue-${number}`)
      expect(mallory.body).toBe(planted)
      const own = botComments(sandbox).filter((comment) => comment.issueNumber === number)
      expect(own, why).toHaveLength(1)
      expect(own[0]!.body.startsWith(`<!-- loop-controller:issue-${number} -->`)).toBe(true)
      expect(own[0]!.id).not.toBe(mallory.id)
      expectFaithful(s)
    },
    4 * MINUTE,
  )
})
