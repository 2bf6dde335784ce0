// A new loop's first job saves its state `queued` before it asks for its place in line. When the ask
// fails (here a queue.json that is not a slots record; on GitHub also a lease never won, or a fetch or
// push refused) the loop is queued but not in line, and no loop ending would ever start it: the job fails
// with the error and tells the person who started the loop, on its issue, what to do; the state says it
// was asking, which the sweeper reads (`judgeOutOfLine`).
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMMIT_IDENTITY } from '../../../src/action/commit-identity.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { takeSlot } from '../../../src/action/slots.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { validateLoopConfig } from '../../../src/config/load-config.js'
import type { Refusal } from '../../../src/domain/report/refusal.js'
import { ASKING_FOR_SLOT } from '../../../src/domain/slot-sweep.js'
import { fixedClock, recordingIO, recordingLogger } from '../../unit/action/fakes.js'
import { makeState } from './fixtures.js'

const run = promisify(execFile)
let base: string

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'take-slot-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('takeSlot: a new loop whose place in line could not be taken', () => {
  it('fails the job with the error, leaves the state queued and asking, and tells the issue what to do', async () => {
    const bare = join(base, 'remote.git')
    const root = join(base, 'work')
    await run('git', ['init', '--bare', '--quiet', bare])
    await run('git', ['init', '--quiet', root])
    await run('git', ['-C', root, 'remote', 'add', 'origin', bare])
    const store = new GitStore({ repoDir: base, remote: bare, identity: COMMIT_IDENTITY, workDir: join(base, 's') })
    await store.save('issue-1', makeState('issue-1', 1), null)
    // queue.json broken on the state branch: every change of the line refuses it.
    const edit = join(base, 'edit')
    await run('git', ['clone', '--quiet', '--branch', 'loop-state', bare, edit])
    writeFileSync(join(edit, 'queue.json'), '{"running": 3}\n')
    await run('git', ['-C', edit, 'add', 'queue.json'])
    await run('git', ['-C', edit, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '--quiet', '-m', 'broken'])
    await run('git', ['-C', edit, 'push', '--quiet', 'origin', 'loop-state'])

    const issue = { number: 7, title: 'Climb', body: 'One step.', user: { login: 'alice', type: 'User' } }
    const context = buildRunContext({
      env: {
        GITHUB_REPOSITORY: 'acme/demo',
        GITHUB_WORKFLOW_REF: 'acme/demo/.github/workflows/loop.yml@refs/heads/main',
        RUNNER_TEMP: join(base, 'temp'),
      },
      event: { eventName: 'issues', payload: { action: 'labeled', label: { name: 'loop' }, issue }, runId: 41 },
      getInput: (name) => ({ 'github-token': 'tok', 'max-loops': '2' })[name] ?? '',
      cwd: root,
    })
    const refusals: Refusal[] = []
    const deps = {
      store,
      github: {
        dispatchWorkflow: async () => ({}),
        getIssueState: async () => 'open' as const,
        getIssueKind: async () => 'issue' as const,
        getWorkflowRun: async () => ({ status: 'in_progress', conclusion: null }),
        upsertStickyComment: async () => ({ url: 'https://example.invalid/c/1', created: true, id: 1 }),
      },
      io: recordingIO(),
      logger: recordingLogger(),
      clock: fixedClock,
      redact: (text: string) => text,
      reportRefusal: async (refusal: Refusal) => {
        refusals.push(refusal)
      },
      audit: { appendEvents: async () => {} },
      restoreAudit: async () => {},
    }
    const config = validateLoopConfig(
      { goal: 'Climb', work: { run: 'true' }, checks: [{ name: 'unit', run: 'true' }] },
      'loop.yml',
    )

    await expect(takeSlot(context, { loopId: 'issue-7', config, root }, deps)).rejects.toThrow(
      /queue\.json is not a valid slots record/,
    )
    const saved = (await store.load('issue-7'))?.state
    expect([saved?.status, saved?.statusReason]).toEqual(['queued', ASKING_FOR_SLOT])
    expect(refusals).toEqual([
      {
        loopId: 'issue-7',
        title: 'loop-controller could not put the loop `issue-7` in line: queue.json was not changed.',
        reason: expect.stringMatching(/queue\.json is not a valid slots record/),
        whatToDo: expect.stringMatching(
          /^Start it again once the cause is fixed \(remove the `loop` label and add it back\)/,
        ),
      },
    ])
  })
})

describe("takeSlot: the loop config's depends-on at a loop's first start", () => {
  it('refuses a number that is no issue when no issue body was read (a dispatch), and saves nothing', async () => {
    const dir = mkdtempSync(join(base, 'config-deps-'))
    const bare = join(dir, 'remote.git')
    const root = join(dir, 'work')
    await run('git', ['init', '--bare', '--quiet', bare])
    await run('git', ['init', '--quiet', root])
    await run('git', ['-C', root, 'remote', 'add', 'origin', bare])
    const store = new GitStore({ repoDir: dir, remote: bare, identity: COMMIT_IDENTITY, workDir: join(dir, 's') })
    const context = buildRunContext({
      env: {
        GITHUB_REPOSITORY: 'acme/demo',
        GITHUB_WORKFLOW_REF: 'acme/demo/.github/workflows/loop.yml@refs/heads/main',
        RUNNER_TEMP: join(dir, 'temp'),
      },
      event: { eventName: 'workflow_dispatch', payload: {}, runId: 41 },
      getInput: (name) => ({ 'github-token': 'tok', 'loop-id': 'nightly' })[name] ?? '',
      cwd: root,
    })
    const asked: number[] = []
    const refusals: Refusal[] = []
    const deps = {
      store,
      github: {
        dispatchWorkflow: async () => ({}),
        getIssueState: async () => 'open' as const,
        getIssueKind: async (issue: number) => {
          asked.push(issue)
          return issue === 42 ? ('none' as const) : ('issue' as const)
        },
        getWorkflowRun: async () => ({ status: 'in_progress', conclusion: null }),
        upsertStickyComment: async () => ({ url: 'https://example.invalid/c/1', created: true, id: 1 }),
      },
      io: recordingIO(),
      logger: recordingLogger(),
      clock: fixedClock,
      redact: (text: string) => text,
      reportRefusal: async (refusal: Refusal) => {
        refusals.push(refusal)
      },
      audit: { appendEvents: async () => {} },
      restoreAudit: async () => {},
    }
    const config = validateLoopConfig(
      { goal: 'Climb', work: { run: 'true' }, checks: [{ name: 'unit', run: 'true' }], 'depends-on': [3, 42] },
      'loop.yml',
    )

    expect(await takeSlot(context, { loopId: 'nightly', config, root }, deps)).toBe(false)
    expect(asked).toEqual([3, 42])
    expect(refusals.map((refusal) => refusal.reason)).toEqual([
      expect.stringContaining('#42: no such issue in acme/demo'),
    ])
    expect(await store.load('nightly')).toBeNull()
  })
})
