// Fan-out's plan gate: which events plan spends an agent call on, when a loop under `max-loops` or
// `depends-on` may work (only while it holds its slot; a capped loop a higher cap re-opens asks decide for
// one first), and the store as plan reads it once its queued loop is admitted. (The gate on queue.json runs end to end in test/e2e/fan-out-loops.test.ts and
// test/e2e/fan-out-slots.test.ts.)
import { describe, expect, it } from 'vitest'
import { admittedView, planGate } from '../../../src/action/fan-out-plan-gate.js'
import { buildRunContext } from '../../../src/action/run-context.js'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import type { SlotsRecord, Statuses } from '../../../src/domain/slots.js'
import type { LoopState } from '../../../src/domain/state.js'
import type { SlotStore } from '../../../src/ports/slots.js'
import { fixedClock, loopState, memoryStore } from './fakes.js'

function run(eventName: string, payload: Record<string, unknown>, extra: Record<string, string> = {}) {
  const inputs: Record<string, string> = { 'github-token': 'tok', command: 'plan', 'loop-id': 'demo', ...extra }
  return buildRunContext({
    env: {
      GITHUB_REPOSITORY: 'acme/demo',
      GITHUB_WORKFLOW_REF: 'acme/demo/.github/workflows/loop.yml@refs/heads/main',
    },
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

/** The slots record in memory, read as the gate reads it; a change that is not the record as it was fails the test. */
function slotsOf(record: SlotsRecord, states: Record<string, LoopState>): Pick<SlotStore, 'update'> {
  return {
    update: async (loops, change) => {
      const names = [...record.running.map((h) => h.loopId), ...record.queued.map((e) => e.loopId), ...loops]
      const statuses: Statuses = new Map(names.flatMap((id) => (states[id] ? [[id, states[id].status] as const] : [])))
      const changed = change(record, statuses)
      expect(changed.record, 'plan writes nothing to the slots record').toEqual(record)
      return changed.result
    },
  }
}

const since = '2026-01-01T00:00:00.000Z'
const waiting = (loopId: string) => ({ loopId, since, dependsOn: [], workflow: 'loop.yml', ref: 'refs/heads/main' })

/** A loop its iteration cap of `cap` capped after as many iterations (its slot given back when it ended). */
function cappedAt(cap: number): LoopState {
  return loopState({
    loopId: 'demo',
    status: 'capped',
    statusReason: 'the iterations limit is reached',
    iteration: cap,
    claimedIteration: cap,
    maxIterations: cap,
    lastDecision: { kind: 'CAP_REACHED', limit: 'iterations', reason: 'the iterations limit is reached' },
  })
}

interface SlotCase {
  name: string
  inputs: Record<string, string>
  states: Record<string, LoopState>
  /** The slots record as stored; null: the gate must not read it. */
  record: SlotsRecord | null
  want: 'plan' | 'skip'
  says?: string
  admitted?: boolean
}

describe('planGate under max-loops and depends-on: no work without a slot', () => {
  it.each<SlotCase>([
    {
      name: 'no limit, no dependencies: plans without reading the queue',
      inputs: {},
      states: { demo: loopState({ loopId: 'demo', status: 'running', iteration: 1 }) },
      record: null,
      want: 'plan',
    },
    {
      name: 'max-loops 1, the loop holds its slot: plans',
      inputs: { 'max-loops': '1', iteration: '2' },
      states: { demo: loopState({ loopId: 'demo', status: 'running', iteration: 1 }) },
      record: { running: [{ loopId: 'demo', since }], queued: [] },
      want: 'plan',
    },
    {
      name: 'max-loops 1, admitted from the line by another job (still saved queued): plans, admitted',
      inputs: { 'max-loops': '1', iteration: '1' },
      states: { demo: loopState({ loopId: 'demo', status: 'queued', iteration: 0 }) },
      record: { running: [{ loopId: 'demo', since }], queued: [] },
      want: 'plan',
      admitted: true,
    },
    {
      name: 'max-loops 1, a slot is free but not held (a new start): skips, decide takes the slot first',
      inputs: { 'max-loops': '1' },
      states: {},
      record: { running: [], queued: [] },
      want: 'skip',
      says: 'decide takes the slot first',
    },
    {
      name: 'max-loops 2, a loop that ran before the limit, not holding one: skips, decide takes it',
      inputs: { 'max-loops': '2', iteration: '3' },
      states: {
        demo: loopState({ loopId: 'demo', status: 'running', iteration: 2 }),
        other: loopState({ loopId: 'other', status: 'running', iteration: 1 }),
      },
      record: { running: [{ loopId: 'other', since }], queued: [] },
      want: 'skip',
      says: 'decide takes the slot first',
    },
    {
      name: 'max-loops 1, the slot is taken: skips, queued',
      inputs: { 'max-loops': '1' },
      states: { other: loopState({ loopId: 'other', status: 'running', iteration: 1 }) },
      record: { running: [{ loopId: 'other', since }], queued: [waiting('third')] },
      want: 'skip',
      says: 'the loop would be queued: its one slot is in use',
    },
    {
      name: 'max-loops 1, a loop capped at 2 given max-iterations 5, a slot free: skips, decide asks for its slot first',
      inputs: { 'max-loops': '1', 'max-iterations': '5' },
      states: { demo: cappedAt(2) },
      record: null,
      want: 'skip',
      says: 'the cap 5 re-opens the capped loop, which asks for its slot first: decide asks for it (this job cannot write)',
    },
    {
      name: 'max-loops 1, a loop capped at 2 given max-iterations 2, which re-opens nothing: plans (the plan settles it)',
      inputs: { 'max-loops': '1', 'max-iterations': '2' },
      states: { demo: cappedAt(2) },
      record: null,
      want: 'plan',
    },
    {
      name: 'no limit, no dependencies, a loop capped at 2 given max-iterations 5: plans, it needs no slot',
      inputs: { 'max-iterations': '5' },
      states: { demo: cappedAt(2) },
      record: null,
      want: 'plan',
    },
  ])('$name', async ({ inputs, states, record, want, says, admitted }) => {
    const store = { ...memoryStore(states), kind: 'git' as const }
    const slots: Pick<SlotStore, 'update'> = record
      ? slotsOf(record, states)
      : {
          update: async () => {
            throw new Error('a loop without a limit or dependencies must not read the queue')
          },
        }
    const gate = await planGate(
      run('workflow_dispatch', {}, inputs),
      { loopId: 'demo', config, root: '/here' },
      { github, store, clock: fixedClock, slots },
    )
    expect(gate.kind).toBe(want)
    if (gate.kind === 'skip') expect(gate.reason).toContain(says)
    else expect(gate.admitted).toBe(admitted ?? false)
  })
})

describe('planGate on a start that read the issue body', () => {
  it('judges the line as it reads now: a dependency dropped from the body no longer holds the loop', async () => {
    const states = {
      demo: loopState({ loopId: 'demo', status: 'queued', iteration: 0 }),
      'issue-9': loopState({ loopId: 'issue-9', status: 'running', iteration: 1 }),
    }
    const record: SlotsRecord = {
      running: [{ loopId: 'issue-9', since }],
      queued: [{ ...waiting('demo'), dependsOn: ['issue-9'] }],
    }
    const gate = await planGate(
      run('issues', labelled('alice'), { 'max-loops': '2' }),
      { loopId: 'demo', config, root: '/here' },
      {
        github,
        store: { ...memoryStore(states), kind: 'git' as const },
        clock: fixedClock,
        slots: slotsOf(record, states),
      },
    )
    // Decide replaces the queued loop's dependencies with the body's (none): the loop takes the free slot.
    expect(gate).toEqual({
      kind: 'skip',
      reason: expect.stringContaining('decide takes the slot first'),
    })
  })
})

describe('admittedView', () => {
  it('shows a queued state running, at the same version; any other state as it is', async () => {
    const store = memoryStore({
      waiting: loopState({ loopId: 'waiting', status: 'queued', statusReason: 'its one slot is in use' }),
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
