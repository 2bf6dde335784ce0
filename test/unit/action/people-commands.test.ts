// People's commands in the action: from the `command` input or the event, authorized, then applied.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { applyCommands } from '../../../src/action/people-commands.js'
import { buildRunContext, type RunContext } from '../../../src/action/run-context.js'
import { AuditTrail } from '../../../src/adapters/audit-trail.js'
import { ConfigError } from '../../../src/config/errors.js'
import type { LoopState } from '../../../src/domain/state.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { fixedClock, loopState, memoryStore, NOW, recordingLogger } from './fakes.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function runOf(eventName: string, payload: Record<string, unknown>, inputs: Record<string, string> = {}): RunContext {
  const all: Record<string, string> = { 'github-token': 'tok', 'loop-id': 'l1', ...inputs }
  return buildRunContext({
    env: { GITHUB_ACTOR: 'ada' },
    event: { eventName, payload, runId: 1 },
    getInput: (name) => all[name] ?? '',
    cwd: '/',
  })
}

function setup(states: Record<string, LoopState> = {}, permission = 'write') {
  const dir = mkdtempSync(join(tmpdir(), 'action-commands-'))
  dirs.push(dir)
  const calls: string[] = []
  const logger = recordingLogger()
  const store = memoryStore(states)
  let restored = 0
  const deps = {
    github: {
      getPermission: async (user: string) => {
        calls.push(`permission ${user}`)
        return permission
      },
      getAuthenticatedLogin: async (fallback: string) => {
        calls.push('login')
        return fallback
      },
    },
    store,
    audit: new AuditTrail(dir, (text) => text),
    logger,
    clock: fixedClock,
    restoreAudit: async () => {
      restored++
    },
  }
  return { deps, calls, logger, store, restored: () => restored }
}

const comment = (body: string, login = 'bob') => ({
  action: 'created',
  issue: { number: 3 },
  comment: { body, user: { login, type: 'User' } },
})

describe('applyCommands', () => {
  it('lets a plain dispatch run, asking GitHub nothing', async () => {
    const { deps, calls } = setup()
    expect(await applyCommands(runOf('workflow_dispatch', {}), 'l1', deps)).toBe(true)
    expect(calls).toEqual([])
  })

  it('stops on an event with nothing for the loop', async () => {
    const { deps, logger, calls } = setup()
    expect(await applyCommands(runOf('issue_comment', comment('nice work')), 'l1', deps)).toBe(false)
    expect(logger.lines).toEqual([
      'info: Nothing for the loop in this issue_comment event: the comment holds no /loop command.',
    ])
    expect(calls).toEqual([])
  })

  it('applies the `command` input as the run actor, and an abort stops the job', async () => {
    const { deps, store, restored } = setup({ l1: loopState() })
    expect(await applyCommands(runOf('workflow_dispatch', {}, { command: 'abort' }), 'l1', deps)).toBe(false)
    expect(store.saved.at(-1)?.statusReason).toBe('aborted by ada')
    expect(restored()).toBe(1)
  })

  const pending = { status: 'pending' as const, reason: 'r', requestedAt: NOW.toISOString() }
  it.each<{ inputs: Record<string, string>; before: Partial<LoopState> }>([
    { inputs: { command: 'approve', gate: 'security' }, before: { status: 'waiting', gates: { security: pending } } },
    { inputs: { command: 'resume' }, before: { status: 'blocked', statusReason: 'stuck' } },
    { inputs: { command: 'skip', task: 'docs', reason: 'not needed' }, before: {} },
  ])(
    'a store conflict that keeps coming back on `$inputs.command` is said plainly, not an internal error',
    async ({ inputs, before }) => {
      const { deps, store } = setup({ l1: loopState(before) })
      store.save = async () => {
        throw new StoreConflictError('loop l1 moved')
      }
      const applied = applyCommands(runOf('workflow_dispatch', {}, inputs), 'l1', deps)
      await expect(applied).rejects.toBeInstanceOf(ConfigError)
      await expect(applied).rejects.toThrow(
        new RegExp(
          `^'${inputs.command}' for loop l1 was not applied: the loop's state kept changing .*give the command again`,
        ),
      )
    },
  )

  it('warns when the `command` input names a loop that has not started', async () => {
    const { deps, logger } = setup()
    expect(await applyCommands(runOf('workflow_dispatch', {}, { command: 'resume' }), 'l1', deps)).toBe(false)
    expect(logger.lines[0]).toMatch(/^warning: 'resume' for loop l1, which has not started: There is no loop 'l1'/)
  })

  it('refuses a comment command from someone without write access', async () => {
    const { deps, logger, store, calls } = setup({ l1: loopState() }, 'read')
    expect(await applyCommands(runOf('issue_comment', comment('/loop abort')), 'l1', deps)).toBe(false)
    expect(calls).toEqual(['permission bob', 'login'])
    expect(logger.lines).toEqual([
      'info: Command from @bob: @bob has read permission; write, maintain or admin is needed to command a loop.',
    ])
    expect(store.saved).toEqual([])
  })

  it('applies an authorized comment command as its author', async () => {
    const { deps, store } = setup({ l1: loopState() })
    expect(await applyCommands(runOf('issue_comment', comment('/loop abort')), 'l1', deps)).toBe(false)
    expect(store.saved.at(-1)?.statusReason).toBe('aborted by bob')
  })

  it('approves every pending gate on an approving review', async () => {
    const pending = { status: 'pending' as const, reason: 'needs a look', requestedAt: NOW.toISOString() }
    const { deps, store } = setup({ l1: loopState({ gates: { security: pending, docs: pending } }) })
    const review = { review: { state: 'approved', body: '', user: { login: 'bob', type: 'User' } } }
    expect(await applyCommands(runOf('pull_request_review', review), 'l1', deps)).toBe(true)
    const gates = store.saved.at(-1)?.gates ?? {}
    expect([gates.security?.status, gates.docs?.status]).toEqual(['approved', 'approved'])
    expect(gates.docs?.decidedBy).toBe('bob')
  })

  it('stops on an approving review when no gate is pending', async () => {
    const { deps, logger } = setup({ l1: loopState() })
    const review = { review: { state: 'approved', body: '', user: { login: 'bob', type: 'User' } } }
    expect(await applyCommands(runOf('pull_request_review', review), 'l1', deps)).toBe(false)
    expect(logger.lines.at(-1)).toBe('info: The review approves no pending gate.')
  })

  describe('a job that could not run the loop (beforeRun throws) is refused before a command is saved', () => {
    const cannotRun = () => {
      let asked = 0
      return {
        asked: () => asked,
        beforeRun: async () => {
          asked++
          throw new ConfigError('no agent CLI')
        },
      }
    }
    const blocked = () => loopState({ status: 'blocked', statusReason: 'stuck' })
    const label = {
      action: 'labeled',
      label: { name: 'loop' },
      issue: { number: 3 },
      sender: { login: 'bob', type: 'User' },
    }

    it.each([
      { title: 'the `command: resume` input', run: () => runOf('workflow_dispatch', {}, { command: 'resume' }) },
      { title: 'a `/loop resume` comment', run: () => runOf('issue_comment', comment('/loop resume')) },
      { title: 'the `loop` label', run: () => runOf('issues', label) },
      { title: 'a plain dispatch', run: () => runOf('workflow_dispatch', {}) },
    ])('$title: the BLOCKED loop stays BLOCKED, nothing saved', async ({ run }) => {
      const { deps, store } = setup({ l1: blocked() })
      const refusal = cannotRun()
      await expect(applyCommands(run(), 'l1', { ...deps, beforeRun: refusal.beforeRun })).rejects.toThrow(
        'no agent CLI',
      )
      expect(refusal.asked()).toBe(1)
      expect(store.saved).toEqual([])
      expect((await store.load('l1'))?.state.status).toBe('blocked')
    })

    it.each([
      { title: 'the `command: abort` input', run: () => runOf('workflow_dispatch', {}, { command: 'abort' }) },
      { title: 'a `/loop abort` comment', run: () => runOf('issue_comment', comment('/loop abort')) },
    ])('$title is applied: an abort needs no agent', async ({ run }) => {
      const { deps, store } = setup({ l1: blocked() })
      const refusal = cannotRun()
      expect(await applyCommands(run(), 'l1', { ...deps, beforeRun: refusal.beforeRun })).toBe(false)
      expect(refusal.asked()).toBe(0)
      expect(store.saved.at(-1)?.status).toBe('aborted')
    })

    it.each([
      {
        title: 'a comment with no command',
        run: () => runOf('issue_comment', comment('nice work')),
        permission: 'write',
      },
      {
        title: "a reader's `/loop resume`",
        run: () => runOf('issue_comment', comment('/loop resume')),
        permission: 'read',
      },
      { title: "a reader's `loop` label", run: () => runOf('issues', label), permission: 'read' },
    ])('$title leaves the loop alone and is not refused for the agent', async ({ run, permission }) => {
      const { deps, store } = setup({ l1: blocked() }, permission)
      const refusal = cannotRun()
      expect(await applyCommands(run(), 'l1', { ...deps, beforeRun: refusal.beforeRun })).toBe(false)
      expect(refusal.asked()).toBe(0)
      expect(store.saved).toEqual([])
    })
  })
})
