// Fan-out's plan gate: which events plan spends an agent call on, and the store as plan reads it once its
// queued loop is admitted. (The dry run on queue.json runs end to end in test/e2e/fan-out-loops.test.ts.)
import { describe, expect, it } from 'vitest'
import { admittedView, planGate } from '../../../src/action/fan-out-plan-gate.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import { fixedClock, loopState, memoryStore } from './fakes.js'

function run(eventName: string, payload: Record<string, unknown>) {
  const inputs: Record<string, string> = { 'github-token': 'tok', command: 'plan', 'loop-id': 'demo' }
  return buildRunContext({
    env: { GITHUB_REPOSITORY: 'acme/demo' },
    event: { eventName, payload, runId: 7 },
    getInput: (name) => inputs[name] ?? '',
    cwd: '/here',
  })
}

const github = {
  getPermission: async (user: string) => (user === 'alice' ? 'write' : 'read'),
  getAuthenticatedLogin: async (fallback: string) => fallback,
}
const config = simpleModeConfig({ work: 'true', verify: ['true'] })
const sender = (login: string) => ({ login, type: 'User' })
const labelled = (login: string, label = 'loop') => ({
  action: 'labeled',
  label: { name: label },
  issue: { number: 4, title: 'Climb', body: 'One step.', labels: [{ name: label }] },
  sender: sender(login),
})

describe('planGate', () => {
  it.each([
    { name: 'a dispatch', event: 'workflow_dispatch', payload: {}, want: 'plan' },
    { name: "a writer's loop label", event: 'issues', payload: labelled('alice'), want: 'plan' },
    {
      name: "a reader's loop label",
      event: 'issues',
      payload: labelled('bob'),
      want: 'skip',
      says: 'start is refused',
    },
    { name: 'another label', event: 'issues', payload: labelled('alice', 'bug'), want: 'skip', says: "label 'bug'" },
    {
      name: 'an edit of an issue (a tick)',
      event: 'issues',
      payload: { action: 'edited', issue: { number: 4, labels: [] }, sender: sender('alice') },
      want: 'skip',
      says: 'issues edited',
    },
    {
      name: 'a /loop comment',
      event: 'issue_comment',
      payload: {
        action: 'created',
        comment: { body: '/loop resume', user: sender('alice') },
        issue: { number: 4, labels: [] },
      },
      want: 'skip',
      says: 'decide applies',
    },
  ])('$name: $want', async ({ event, payload, want, says }) => {
    const gate = await planGate(
      run(event, payload),
      { loopId: 'demo', config, root: '/here' },
      { github, store: memoryStore(), clock: fixedClock },
    )
    expect(gate.kind).toBe(want)
    if (gate.kind === 'skip') expect(gate.reason).toContain(says)
    else expect(gate.admitted).toBe(false)
  })
})

describe('admittedView', () => {
  it('shows a queued state running, at the same version; any other state as it is', async () => {
    const store = memoryStore({
      waiting: loopState({ loopId: 'waiting', status: 'queued', statusReason: 'all 1 slots are in use' }),
      blocked: loopState({ loopId: 'blocked', status: 'blocked', statusReason: 'needs a person' }),
    })
    const view = admittedView(store)
    const waiting = await view.load('waiting')
    expect([waiting?.state.status, waiting?.state.statusReason, waiting?.version]).toEqual(['running', '', '1'])
    expect((await store.load('waiting'))?.state.status).toBe('queued')
    expect((await view.load('blocked'))?.state.status).toBe('blocked')
    expect(await view.load('none')).toBeNull()
  })
})
