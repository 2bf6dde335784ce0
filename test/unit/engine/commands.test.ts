import { describe, expect, it } from 'vitest'
import {
  abort,
  approveGate,
  changeCap,
  decide,
  EngineError,
  forgetLostCheckpoint,
  markBlocked,
  markCapped,
  markWaiting,
  rejectGate,
  resume,
  skipTask,
  summarizeNextAction,
} from '../../../src/domain/engine/index.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import { at, failure, iterate, policyOf, startState } from './helpers.js'

const policy = policyOf()

describe("people's commands", () => {
  it('approves a pending gate and lets the loop run again', () => {
    const waiting = markWaiting(startState(policy), 'security', 'auth code changed', at(1)).state
    expect(waiting.status).toBe('waiting')
    const { state, events } = approveGate(waiting, 'security', '@alice', at(2))
    expect(state.status).toBe('running')
    expect(state.gates.security).toMatchObject({ status: 'approved', decidedBy: '@alice' })
    expect(events[0]).toMatchObject({ type: 'approval', message: "gate 'security' approved by @alice" })
  })

  it.each([
    [
      'an unknown gate',
      () => approveGate(startState(policy), 'deploy', '@a', at(0)),
      /has no gate 'deploy' to approve; pending gates: none/,
    ],
    [
      'an approved gate',
      () => {
        const w = markWaiting(startState(policy), 'deploy', 'x', at(0)).state
        return approveGate(approveGate(w, 'deploy', '@a', at(1)).state, 'deploy', '@b', at(2))
      },
      /already approved \(by @a\)/,
    ],
    [
      'rejecting a gate never raised',
      () => rejectGate(startState(policy), 'deploy', '@a', at(0)),
      /only a pending gate can be rejected/,
    ],
    [
      'a skip without a reason',
      () => skipTask(startState(policy), 'docs', '  ', '@a', at(0)),
      /reason for skipping 'docs' \(--reason\) must not be empty/,
    ],
    [
      'a skip of an unknown task',
      () => skipTask(startState(policy), 'docs', 'why', '@a', at(0), ['changelog']),
      /'docs' is not a task of this loop; tasks: changelog/,
    ],
    ['resuming a running loop', () => resume(startState(policy), '@a', at(0)), /already running/],
    [
      'aborting twice',
      () => abort(abort(startState(policy), '@a', at(0)).state, '@a', at(1)),
      /is aborted; it cannot be aborted/,
    ],
    [
      'marking capped without a cap decision',
      () => markCapped(startState(policy), { kind: 'COMPLETE', reason: 'x' }, at(0)),
      /needs a CAP_REACHED decision/,
    ],
  ])('refuses %s with a clear message', (_name, action, message) => {
    expect(action).toThrow(EngineError)
    expect(action).toThrow(message)
  })

  it.each([
    ['no reason', undefined, 'aborted by @carol', {}],
    ['a blank reason', '   ', 'aborted by @carol', {}],
    ['a reason', ' wrong approach ', 'aborted by @carol: wrong approach', { reason: 'wrong approach' }],
  ])('abort with %s records who and why, and decide stops on it', (_name, reason, statusReason, data) => {
    const { state, events } = abort(startState(policy), '@carol', at(1), reason)
    expect(state).toMatchObject({ status: 'aborted', statusReason })
    expect(events).toEqual([
      expect.objectContaining({ type: 'aborted', message: statusReason, data: { by: '@carol', ...data } }),
    ])
    expect(decide(state, { now: at(2), stopRequested: false }, policy)).toEqual({
      kind: 'ABORTED',
      reason: statusReason,
    })
  })

  it('rejecting blocks the loop; resume clears the rejection so the gate is asked again', () => {
    const waiting = markWaiting(startState(policy), 'deploy', 'release', at(0)).state
    const rejected = rejectGate(waiting, 'deploy', '@bob', at(1)).state
    expect(rejected).toMatchObject({ status: 'blocked', statusReason: "gate 'deploy' was rejected by @bob" })
    const resumed = resume(rejected, '@bob', at(2)).state
    expect(resumed.status).toBe('running')
    expect(resumed.gates.deploy).toBeUndefined()
  })

  it('resume resets the per-failure counters but keeps the total', () => {
    let state = startState(policy)
    for (let i = 0; i < 3; i++)
      state = iterate(state, policy, { failing: [failure('types', { text: 'problem' })] }).state
    expect(state.status).toBe('blocked')
    const { state: resumed, events } = resume(state, '@carol', at(9))
    expect(resumed.failures).toMatchObject({ current: null, consecutive: 0, sameError: 0, tried: [], total: 3 })
    expect(resumed.failures.history.every((r) => r.resolution === 'escalated')).toBe(true)
    expect(events[0]?.type).toBe('resumed')
    expect(decide(resumed, { now: at(9) }, policy)).toMatchObject({ kind: 'EXECUTE_STAGE', stage: 'IMPLEMENT' })
    expect(() => loopStateSchema.parse(resumed)).not.toThrow()
  })

  it('records skips with who and why', () => {
    const { state, events } = skipTask(startState(policy), 'docs', 'generated at release', '@dana', at(1))
    expect(state.tasks.skipped).toEqual([
      { task: 'docs', reason: 'generated at release', by: '@dana', at: at(1).toISOString() },
    ])
    expect(events[0]?.type).toBe('task-skipped')
    expect(() => skipTask(state, 'docs', 'again', '@dana', at(2))).toThrow(
      /already skipped \(by @dana: generated at release\)/,
    )
  })

  it('markBlocked escalates the open failure; markCapped names the limit', () => {
    const failing = iterate(startState(policy), policy, { failing: [failure('types')] }).state
    const blocked = markBlocked(failing, 'budget spent', at(3)).state
    expect(blocked.failures.current?.resolution).toBe('escalated')
    expect(blocked.failures.history.at(-1)?.resolution).toBe('escalated')
    const capped = markCapped(
      startState(policy),
      { kind: 'CAP_REACHED', limit: 'cost', reason: 'the cost budget is spent' },
      at(1),
    )
    expect(capped.state).toMatchObject({ status: 'capped', lastDecision: { kind: 'CAP_REACHED', limit: 'cost' } })
    expect(capped.events[0]?.message).toBe('CAP_REACHED (cost): the cost budget is spent')
  })
})

describe('summarizeNextAction', () => {
  it.each([
    [
      {
        kind: 'RETRY',
        stage: 'IMPLEMENT',
        capability: null,
        strategy: 'context_expand',
        attempt: 2,
        maxAttempts: 3,
        backoffMs: 0,
        reason: '',
      },
      'retry IMPLEMENT with strategy context_expand (attempt 2 of 3)',
    ],
    [
      {
        kind: 'RETRY',
        stage: 'IMPLEMENT',
        capability: null,
        strategy: 'retry_with_backoff',
        attempt: 1,
        maxAttempts: 3,
        backoffMs: 5000,
        reason: '',
      },
      'retry IMPLEMENT with strategy retry_with_backoff (attempt 1 of 3) after 5 s',
    ],
    [{ kind: 'EXECUTE_STAGE', stage: 'IMPLEMENT', capability: null, reason: '' }, 'run IMPLEMENT (iteration 1 of 10)'],
    [
      { kind: 'WAIT_FOR_APPROVAL', gate: 'deploy', reason: '' },
      "wait for approval of gate 'deploy': comment `/loop approve deploy` or `loop approve deploy`",
    ],
    [
      { kind: 'CAP_REACHED', limit: 'iterations', reason: 'the iteration cap is reached' },
      'stopped: the iteration cap is reached',
    ],
  ] as const)('%j', (decision, expected) => {
    expect(summarizeNextAction(startState(policy), decision)).toBe(expected)
  })
})

describe('the iteration cap given to a run', () => {
  const capped = (iteration: number, maxIterations: number) => ({ ...startState(policy), iteration, maxIterations })

  it.each([
    // [state's cap, iterations run, given cap, cap after, decision after]
    { cap: 20, ran: 3, given: 20, after: 20, next: 'EXECUTE_STAGE', events: 0 },
    { cap: 20, ran: 3, given: 30, after: 30, next: 'EXECUTE_STAGE', events: 1 },
    { cap: 5, ran: 5, given: 8, after: 8, next: 'EXECUTE_STAGE', events: 1 },
    { cap: 20, ran: 12, given: 10, after: 10, next: 'CAP_REACHED', events: 1 },
  ])('cap $cap after $ran iterations, given $given: cap $after, then $next', (row) => {
    const { state, events } = changeCap(capped(row.ran, row.cap), row.given, at(1))
    expect(state.maxIterations).toBe(row.after)
    expect(events).toHaveLength(row.events)
    if (row.events) {
      expect(events[0]).toMatchObject({ type: 'cap-changed', data: { from: row.cap, to: row.given } })
    }
    expect(decide(state, { now: at(2) }, policy).kind).toBe(row.next)
    expect(loopStateSchema.safeParse(state).success).toBe(true)
  })

  it.each([0, -1, 2.5])('refuses a cap of %s', (given) => {
    expect(() => changeCap(capped(1, 10), given, at(1))).toThrow(/whole number >= 1; got/)
  })

  it('is the state`s cap that decides, not the policy`s default, once the loop runs', () => {
    // Started with a cap of 20; a later job's policy has only the default (10): the loop goes on.
    const running = capped(12, 20)
    expect(policyOf().maxIterations).toBe(10)
    expect(decide(running, { now: at(1) }, policyOf()).kind).toBe('EXECUTE_STAGE')
    expect(decide(capped(20, 20), { now: at(1) }, policyOf()).kind).toBe('CAP_REACHED')
  })
})

describe('a checkpoint lost with its job', () => {
  const cp = (iteration: number, commit: string) => ({
    iteration,
    commit,
    message: `loop: iteration ${iteration}`,
    at: at(0).toISOString(),
  })
  it.each([
    { checkpoints: [], left: [], events: 0 },
    { checkpoints: [cp(1, 'a'.repeat(40))], left: [], events: 1 },
    { checkpoints: [cp(1, 'a'.repeat(40)), cp(2, 'b'.repeat(40)), cp(2, 'c'.repeat(40))], left: [1], events: 1 },
  ])('forgets the last iteration`s commits: $checkpoints.length -> $left', (row) => {
    const state = { ...startState(policy), iteration: 2, checkpoints: row.checkpoints }
    const { state: after, events } = forgetLostCheckpoint(state, 'loop/x', at(1))
    expect(after.checkpoints.map((c) => c.iteration)).toEqual(row.left)
    expect(after.iteration).toBe(2)
    expect(events).toHaveLength(row.events)
    expect(loopStateSchema.safeParse(after).success).toBe(true)
  })
})
