// Publishing an iteration: push the loop's branch, open its pull request once; a failed push blocks.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { publishIteration } from '../../../src/action/publish.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { AuditTrail, PENDING_PREFIX } from '../../../src/adapters/audit-trail.js'
import type { Git, GitResult } from '../../../src/ports/git.js'
import { GitHubRateLimitedError } from '../../../src/ports/github.js'
import { fixedClock, iterationResult, loopState, memoryStore, recordingIO, recordingLogger } from './fakes.js'

function runOf(payload: Record<string, unknown>, inputs: Record<string, string> = {}) {
  const all: Record<string, string> = { 'github-token': 'tok', 'loop-id': 'l1', ...inputs }
  return buildRunContext({
    env: { GITHUB_SERVER_URL: 'https://ghe.example' },
    event: { eventName: 'issues', payload, runId: 1 },
    getInput: (name) => all[name] ?? '',
    cwd: '/',
  })
}

/** A git whose `remote get-url` and `push` answer as told, recording every command. */
function fakeGit(options: { remote: boolean; push?: GitResult }) {
  const commands: { args: readonly string[]; env?: Record<string, string> }[] = []
  const git = {
    exec: async (args: readonly string[], opts?: { env?: Record<string, string> }) => {
      commands.push({ args, ...(opts?.env ? { env: opts.env } : {}) })
      if (args[0] === 'remote') return { exitCode: options.remote ? 0 : 2, stdout: '', stderr: '' }
      return options.push ?? { exitCode: 0, stdout: '', stderr: '' }
    },
    head: async () => 'abc123',
  } as unknown as Git
  return { git, commands }
}

function setup(options: { remote: boolean; push?: GitResult; git?: boolean }) {
  const state = loopState({ goal: 'Fix the parser\nand more' })
  const store = memoryStore({ l1: state })
  // The trail as a snapshotting store would upload it: what is on disk at the moment of each save.
  const auditDir = mkdtempSync(join(tmpdir(), 'publish-audit-'))
  const trailAtSave: { final: boolean; pending: boolean }[] = []
  const save = store.save
  store.save = async (...args) => {
    const staged = readdirSync(auditDir).filter((name) => name.startsWith(PENDING_PREFIX))
    trailAtSave.push({ final: existsSync(join(auditDir, 'final.md')), pending: staged.length > 0 })
    return save(...args)
  }
  const { git, commands } = fakeGit(options)
  const pulls: { base: string; title: string; body: string }[] = []
  const logger = recordingLogger()
  const deps = {
    git: options.git === false ? null : git,
    github: {
      findOrCreatePullRequest: async (request: { head: string; base: string; title: string; body: string }) => {
        pulls.push(request)
        return {
          number: 12,
          url: 'https://ghe.example/o/r/pull/12',
          state: 'open' as const,
          merged: false,
          draft: true,
          headRef: request.head,
          headRepo: 'o/r',
          baseRef: request.base,
          created: true,
        }
      },
    },
    store,
    audit: new AuditTrail(auditDir, (text: string) => text),
    logger,
    io: recordingIO(),
    clock: fixedClock,
  }
  const journey = () =>
    existsSync(join(auditDir, 'journey-log.jsonl'))
      ? readFileSync(join(auditDir, 'journey-log.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; message: string })
      : []
  return { deps, commands, pulls, logger, store, state, auditDir, trailAtSave, journey }
}

const input = (commit: string | null, state = loopState()) => ({
  loopId: 'l1',
  branch: 'loop/l1',
  result: iterationResult({ commit, state, version: '1' }),
})

describe('publishIteration', () => {
  it('does nothing when the loop does not commit', async () => {
    const { deps, commands, state } = setup({ remote: true, git: false })
    expect(await publishIteration(runOf({}), input('c1', state), deps)).toEqual({ state, blocked: false })
    expect(commands).toEqual([])
  })

  it('keeps the work on the local branch without a remote', async () => {
    const { deps, commands, logger, state } = setup({ remote: false })
    expect(await publishIteration(runOf({}), input('c1', state), deps)).toEqual({ state, blocked: false })
    expect(commands.map((c) => c.args[0])).toEqual(['remote'])
    expect(logger.lines).toEqual(["info: No remote 'origin': the work stays on the local branch loop/l1."])
  })

  it('pushes nothing when the iteration made no commit', async () => {
    const { deps, commands, state } = setup({ remote: true })
    expect(await publishIteration(runOf({}), input(null, state), deps)).toEqual({ state, blocked: false })
    expect(commands.map((c) => c.args[0])).toEqual(['remote'])
  })

  it('pushes and opens the pull request into the default branch, closing the issue', async () => {
    const { deps, commands, pulls, store, state } = setup({ remote: true })
    const run = runOf({ issue: { number: 5 }, repository: { default_branch: 'trunk' } })
    const published = await publishIteration(run, input('c1', state), deps)
    expect(commands.map((c) => c.args.slice(0, 2))).toEqual([
      ['remote', 'get-url'],
      ['push', '--porcelain'],
    ])
    // The push token is the GitHub token: no extra credentials.
    expect(commands[1]?.env).toBeUndefined()
    expect(pulls).toEqual([
      expect.objectContaining({
        head: 'loop/l1',
        base: 'trunk',
        title: 'loop: Fix the parser',
        body: 'The work of loop `l1`, made by loop-controller and checked by its verification matrix.\n\nCloses #5.',
      }),
    ])
    expect(published.blocked).toBe(false)
    expect(published.state.pullRequest).toEqual({ number: 12, url: 'https://ghe.example/o/r/pull/12', merged: false })
    expect(store.saved.at(-1)?.pullRequest?.number).toBe(12)
  })

  it('records the opened pull request in the journey with the save that holds it', async () => {
    const { deps, journey, state } = setup({ remote: true })
    await publishIteration(runOf({}), input('c1', state), deps)
    expect(journey().map((e) => [e.type, e.message])).toEqual([
      ['pull-request', 'pull request #12 opened: https://ghe.example/o/r/pull/12'],
    ])
  })

  it('leaves the push token to the git adapter (test/security/push-credentials.test.ts)', async () => {
    const { deps, commands, state } = setup({ remote: true })
    await publishIteration(runOf({}, { 'push-token': 'other' }), input('c1', state), deps)
    expect(commands[1]?.env).toBeUndefined()
  })

  it('opens no second pull request', async () => {
    const { deps, pulls } = setup({ remote: true })
    const state = loopState({ pullRequest: { number: 3, url: 'u', merged: false } })
    await publishIteration(runOf({}), input('c1', state), deps)
    expect(pulls).toEqual([])
  })

  it.each([
    { status: 'running' as const, after: 'loop/l1 is pushed; its pull request is opened by a later iteration.' },
    { status: 'waiting' as const, after: 'loop/l1 is pushed; its pull request is opened by a later iteration.' },
    {
      status: 'complete' as const,
      after:
        'loop/l1 is pushed; the loop ended complete, so no later iteration opens its pull request: open it from https://ghe.example/o/r/compare/trunk...loop/l1?expand=1.',
    },
  ])(
    'goes on past a used-up rate limit, saying who opens the pull request of a loop $status',
    async ({ status, after }) => {
      const { deps, logger, store } = setup({ remote: true })
      const limited = new GitHubRateLimitedError(
        'GitHub POST /repos/o/r/pulls was not made: the API rate limit is used up',
        null,
      )
      deps.github.findOrCreatePullRequest = async () => {
        throw limited
      }
      const state = loopState({ status })
      const run = runOf({ repository: { default_branch: 'trunk' } })
      const published = await publishIteration({ ...run, repository: 'o/r' }, input('c1', state), deps)
      expect(published).toEqual({ state, blocked: false })
      expect(store.saved).toEqual([])
      expect(logger.lines).toContain(`warning: ${limited.message}. ${after}`)
    },
  )

  it('blocks the loop when the push fails', async () => {
    const { deps, logger, store, state } = setup({
      remote: true,
      push: { exitCode: 1, stdout: '', stderr: 'fatal: could not read from remote\nmore' },
    })
    const published = await publishIteration(runOf({}), input('c1', state), deps)
    expect(published.blocked).toBe(true)
    expect(published.state.status).toBe('blocked')
    expect(published.state.statusReason).toContain(
      'git-error: pushing loop/l1 failed: fatal: could not read from remote',
    )
    expect(store.saved.at(-1)?.status).toBe('blocked')
    expect(logger.lines[0]).toBe('error: fatal: could not read from remote\nmore')
  })

  it('saves a BLOCKED push with its journey events and its handoff already in the trail', async () => {
    const { deps, journey, trailAtSave, auditDir, state } = setup({
      remote: true,
      push: { exitCode: 1, stdout: '', stderr: "fatal: unable to access 'x': The requested URL returned error: 403" },
    })
    const published = await publishIteration(runOf({}), input('c1', state), deps)
    expect(published.state.statusReason).toContain("The token needs 'contents: write' to push")
    // final.md was on disk when the BLOCKED state was saved, so a snapshot of the trail carries it.
    expect(trailAtSave).toEqual([{ final: true, pending: true }])
    expect(readFileSync(join(auditDir, 'final.md'), 'utf8')).toContain('git-error: pushing loop/l1 failed')
    expect(journey().map((e) => e.type)).toContain('escalated')
  })
})
