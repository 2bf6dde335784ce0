import { describe, expect, it } from 'vitest'
import { decide, type Observations } from '../../../src/domain/engine/index.js'
import type { FailureRecord, LoopState } from '../../../src/domain/state.js'
import { at, policyOf, startState, T0 } from './helpers.js'

const policy = policyOf({ budget: { minutes: 60, tokens: 1000, 'cost-usd': 5 } })
const base = startState(policy)

const openFailure: FailureRecord = {
  iteration: 1,
  stage: 'VERIFY',
  capability: null,
  check: 'types',
  error: "Type 'string' is not assignable",
  pattern: 'type-error',
  confidence: 0.86,
  strategy: 'context_expand',
  signature: 'type-error:ts:abcd1234',
  tokens: ['type', 'string'],
  resolution: 'open',
  at: T0.toISOString(),
}

type Edit = (s: LoopState) => LoopState
const withStatus =
  (status: LoopState['status'], statusReason = ''): Edit =>
  (s) => ({ ...s, status, statusReason })
const withGate: Edit = (s) => ({
  ...s,
  status: 'waiting',
  gates: { database: { status: 'pending', reason: 'migrations changed', requestedAt: T0.toISOString() } },
})
const withFailure =
  (consecutive: number, extra: Partial<LoopState['failures']> = {}): Edit =>
  (s) => ({ ...s, iteration: 1, failures: { ...s.failures, current: openFailure, consecutive, total: 1, ...extra } })
const compose =
  (...edits: Edit[]): Edit =>
  (s) =>
    edits.reduce((acc, edit) => edit(acc), s)

// Each row also satisfies every later branch's condition, so a row only passes if the order is right.
const everything = compose(withFailure(1), (s) => ({ ...s, iteration: 10, usage: { ...s.usage, wallMs: 3_600_000 } }))

const rows: [string, Edit, Partial<Observations>, Record<string, unknown>][] = [
  ['a complete loop', compose(everything, withStatus('complete')), { stopRequested: true }, { kind: 'COMPLETE' }],
  [
    'an aborted loop',
    compose(everything, withGate, withStatus('aborted', 'aborted by @alice')),
    {},
    { kind: 'ABORTED', reason: 'aborted by @alice' },
  ],
  ['a stop request', compose(everything, withStatus('blocked', 'x')), { stopRequested: true }, { kind: 'ABORTED' }],
  [
    'a blocked loop',
    compose(everything, withGate, withStatus('blocked', 'circular failure')),
    {},
    { kind: 'WAIT_FOR_HUMAN', reason: 'circular failure' },
  ],
  [
    'SHIP with its pull request merged',
    compose(everything, withGate, (s) => ({ ...s, stage: 'SHIP' })),
    { pullRequestMerged: true },
    { kind: 'COMPLETE' },
  ],
  ['a pending required gate', compose(everything, withGate), {}, { kind: 'WAIT_FOR_APPROVAL', gate: 'database' }],
  [
    'SHIP waiting for its merge',
    compose(everything, (s) => ({
      ...s,
      stage: 'SHIP',
      status: 'waiting',
      statusReason: 'waiting for the pull request #5 to be merged',
    })),
    {},
    { kind: 'WAIT_FOR_HUMAN', reason: 'waiting for the pull request #5 to be merged' },
  ],
  ['the iteration cap', everything, {}, { kind: 'CAP_REACHED', limit: 'iterations' }],
  [
    'the minutes budget',
    compose(everything, (s) => ({ ...s, iteration: 3 })),
    {},
    { kind: 'CAP_REACHED', limit: 'minutes' },
  ],
  [
    'the token budget',
    compose(withFailure(1), (s) => ({ ...s, usage: { ...s.usage, tokens: 1000, costUsd: 9 } })),
    {},
    { kind: 'CAP_REACHED', limit: 'tokens' },
  ],
  [
    'the cost budget',
    compose(withFailure(1), (s) => ({ ...s, usage: { ...s.usage, costUsd: 5 } })),
    {},
    { kind: 'CAP_REACHED', limit: 'cost' },
  ],
  [
    'an open failure within budget',
    withFailure(2),
    {},
    { kind: 'RETRY', stage: 'IMPLEMENT', strategy: 'context_expand', attempt: 2, maxAttempts: 3, backoffMs: 0 },
  ],
  ['an open failure past its budget', withFailure(4), {}, { kind: 'ESCALATE' }],
  [
    'an open failure whose strategy escalates',
    compose(withFailure(1), (s) => ({
      ...s,
      failures: { ...s.failures, current: { ...openFailure, strategy: 'escalate' } },
    })),
    {},
    { kind: 'ESCALATE' },
  ],
  ['nothing in the way', (s) => s, {}, { kind: 'EXECUTE_STAGE', stage: 'IMPLEMENT', capability: null }],
]

describe('decide', () => {
  it.each(rows)('%s', (_name, edit, observations, expected) => {
    expect(decide(edit(base), { now: at(5), ...observations }, policy)).toMatchObject(expected)
  })

  it('names the limit and the numbers in a budget reason', () => {
    const state = { ...base, usage: { ...base.usage, wallMs: 61 * 60_000 } }
    expect(decide(state, { now: at(0) }, policy)).toEqual({
      kind: 'CAP_REACHED',
      limit: 'minutes',
      reason: 'the time budget is spent: 61 of 60 minutes (budget.minutes)',
    })
  })

  it('counts the minutes budget from usage.wallMs, not from startedAt, so waiting for people is free', () => {
    const decision = decide(base, { now: new Date(T0.getTime() + 5 * 24 * 3_600_000) }, policy)
    expect(decision.kind).toBe('EXECUTE_STAGE')
  })

  it('uses the lower of the state and policy caps', () => {
    const state = { ...base, iteration: 5, maxIterations: 5 }
    expect(decide(state, { now: at(0) }, policyOf({ 'max-iterations': 20 }))).toMatchObject({
      kind: 'CAP_REACHED',
      limit: 'iterations',
      reason: 'the iteration cap is reached: 5 of 5 iterations (max-iterations)',
    })
  })

  it('treats stop: true in config as a stop request', () => {
    expect(decide(base, { now: at(0) }, policyOf({ stop: true }))).toMatchObject({ kind: 'ABORTED' })
  })

  it('ignores a pending gate that is not required', () => {
    const optional = policyOf({ gates: [{ name: 'docs', paths: ['docs/**'], required: false }] })
    const state = {
      ...startState(optional),
      gates: { docs: { status: 'pending' as const, reason: '', requestedAt: T0.toISOString() } },
    }
    expect(decide(state, { now: at(0) }, optional).kind).toBe('EXECUTE_STAGE')
  })

  it('waits for retry_with_backoff: 5 s x 2^(n-1)', () => {
    const state = withFailure(2, {
      tried: [{ strategy: 'retry_with_backoff', iteration: 1, outcome: 'same error' }],
    })({ ...base, failures: { ...base.failures } })
    state.failures.current = { ...openFailure, pattern: 'network-error', strategy: 'retry_with_backoff' }
    expect(decide(state, { now: at(0) }, policy)).toMatchObject({ kind: 'RETRY', backoffMs: 10_000 })
  })

  it('names the capability it executes', () => {
    const withCaps = policyOf({ pipeline: 'full', capabilities: ['parse', 'retry'] })
    const state = { ...startState(withCaps), stage: 'IMPLEMENT' as const }
    expect(decide(state, { now: at(0) }, withCaps)).toMatchObject({
      kind: 'EXECUTE_STAGE',
      stage: 'IMPLEMENT',
      capability: 'parse',
      reason: "IMPLEMENT for capability 'parse' (1 of 2)",
    })
  })
})
