import { describe, expect, it } from 'vitest'
import { chooseStrategy, decide, detectCircularFailure, type FailureInput } from '../../../src/domain/engine/index.js'
import type { FailureRecord, LoopState } from '../../../src/domain/state.js'
import { at, failure, iterate, policyOf, startState, T0 } from './helpers.js'

const policy = policyOf({ 'max-iterations': 25 })

/** Runs iterations, each failing with the next failure of the list; returns every state and decision. */
function run(failures: ReturnType<typeof failure>[], p = policy) {
  let state: LoopState = startState(p)
  const decisions = []
  for (const f of failures) {
    const step = iterate(state, p, { failing: [f] })
    decisions.push(step.decision)
    state = step.state
    if (state.status !== 'running') break
  }
  return { state, decisions }
}

/** The same failure (check and pattern) with different output each time: progress, not the same error. */
const changing = (n: number) =>
  failure('types', {
    text: `TS2322 in module${'abc'[n % 3]} ${['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta'][n]} ${'xyz'.repeat(n)}`,
  })
const same = () =>
  failure('types', { text: "src/a.ts(4,2): error TS2322: Type 'string' is not assignable to type 'number'." })

describe('the retry budget', () => {
  it('progress is not a retry: another message each time keeps the pattern strategy and fresh counters', () => {
    const { state, decisions } = run([0, 1, 2, 3, 4].map(changing))
    expect(decisions.map((d) => (d.kind === 'RETRY' ? `retry ${d.attempt}/${d.maxAttempts}` : d.kind))).toEqual([
      'EXECUTE_STAGE',
      'retry 1/3',
      'retry 1/3',
      'retry 1/3',
      'retry 1/3',
    ])
    expect(state.status).toBe('running')
    expect(state.failures).toMatchObject({ consecutive: 1, sameError: 0, total: 5, tried: [] })
    expect(state.failures.current?.strategy).toBe('context_expand')
  })

  it('allows 3 retries per failure that does not change, then BLOCKED', () => {
    const patient = policyOf({
      'max-iterations': 25,
      retry: { 'per-failure': 3, 'same-error': 9, total: 10, 'backoff-seconds': 5 },
    })
    // A long strategy ladder, so that the per-failure budget is what stops it.
    const stubborn = () => ({
      ...same(),
      alternates: ['analyze_then_fix', 'dependency_check', 'retry_with_backoff'] as const,
    })
    const { state, decisions } = run(
      [stubborn(), stubborn(), stubborn(), stubborn(), stubborn()].map((f) => ({
        ...f,
        alternates: [...f.alternates],
      })),
      patient,
    )
    expect(decisions.map((d) => (d.kind === 'RETRY' ? `retry ${d.attempt}/${d.maxAttempts}` : d.kind))).toEqual([
      'EXECUTE_STAGE',
      'retry 1/3',
      'retry 2/3',
      'retry 3/3',
    ])
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toBe("type-error in 'types' is still failing, unchanged, after 3 retries")
    expect(state.failures.current?.resolution).toBe('escalated')
    expect(state.metrics.deadLetters).toBe(1)
    expect(decide(state, { now: at(9) }, policy).kind).toBe('WAIT_FOR_HUMAN')
  })

  it('allows the same error 2 retries, switching strategy each time, then BLOCKED', () => {
    const withAlternates = () => ({ ...same(), alternates: ['analyze_then_fix' as const] })
    const { state, decisions } = run([withAlternates(), withAlternates(), withAlternates(), withAlternates()])
    expect(decisions.map((d) => (d.kind === 'RETRY' ? d.strategy : d.kind))).toEqual([
      'EXECUTE_STAGE',
      'context_expand',
      'analyze_then_fix',
    ])
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toMatch(
      /the same type-error in 'types' came back unchanged 2 times after context_expand, analyze_then_fix/,
    )
  })

  it('never repeats the strategy that just produced the same error', () => {
    const { state } = run([same(), same()])
    expect(state.failures.current?.strategy).toBe('analyze_then_fix') // context_expand used, next fallback
    expect(state.failures.sameError).toBe(1)
  })

  it('resets the per-failure counter on a different error but keeps the total', () => {
    const other = failure('unit', {
      kind: 'test',
      pattern: 'test-failure',
      strategy: 'analyze_then_fix',
      text: 'expected 2 to be 3',
    })
    const { state } = run([changing(0), changing(1), changing(2), other])
    expect(state.status).toBe('running')
    expect(state.failures).toMatchObject({ consecutive: 1, sameError: 0, total: 4, tried: [] })
    expect(state.failures.current?.check).toBe('unit')
    expect(state.failures.history.map((r) => r.resolution)).toEqual(['resolved', 'resolved', 'resolved', 'open'])
  })

  it('forces BLOCKED at 10 failures in total', () => {
    // Alternate between three distinct failures so that neither per-failure nor circular rules fire first.
    const kinds = [
      (n: number) => failure('types', { text: `type problem ${'q'.repeat(n)}` }),
      (n: number) => failure('unit', { kind: 'test', pattern: 'test-failure', text: `test problem ${'r'.repeat(n)}` }),
      (n: number) => failure('lint', { kind: 'lint', pattern: 'lint-error', text: `lint problem ${'s'.repeat(n)}` }),
    ]
    const sequence = Array.from({ length: 12 }, (_, i) =>
      (kinds[Math.floor(i / 2) % 3] as (n: number) => ReturnType<typeof failure>)(i),
    )
    const { state } = run(sequence)
    expect(state.status).toBe('blocked')
    expect(state.failures.total).toBe(10)
    expect(state.iteration).toBe(10)
    expect(state.statusReason).toBe('10 failures in total reached the limit of 10 (retry.total)')
  })

  it("lets a pattern's max_auto_retries override per-failure", () => {
    const once = () => ({ ...same(), maxAutoRetries: 1 })
    const { state, decisions } = run([once(), once(), once()])
    expect(decisions.at(-1)).toMatchObject({ kind: 'RETRY', attempt: 1, maxAttempts: 1 })
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toMatch(/still failing, unchanged, after 1 retry$/)
  })

  it('blocks at once on a non-retryable pattern', () => {
    const { state } = run([
      failure('build', {
        pattern: 'merge-conflict',
        strategy: 'escalate',
        retryable: false,
        text: 'CONFLICT (content)',
      }),
    ])
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toBe('merge-conflict is not retryable: a person has to act')
  })

  it('blocks at once on a security finding, whatever the stage needs', () => {
    const p = policyOf({
      checks: [
        { name: 'build', run: 'b', kind: 'build' },
        { name: 'audit', run: 'npm audit', kind: 'security' },
      ],
    })
    const { state } = run(
      [
        failure('audit', {
          kind: 'security',
          pattern: 'security-finding',
          strategy: 'escalate',
          retryable: false,
          security: true,
          text: 'high severity vulnerability',
        }),
      ],
      p,
    )
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toMatch(
      /^a security finding \(security-finding in 'audit'\) needs a person: high severity/,
    )
  })

  it('blocks when the work command asks for a person, or an external dependency is down', () => {
    const asked = iterate(startState(policy), policy, {
      work: { exitCode: 3, blocked: true, blockedReason: 'which database should I use?', durationMs: 10 },
    }).state
    expect(asked).toMatchObject({
      status: 'blocked',
      statusReason: 'the work command asked for a person: which database should I use?',
    })
    const down = iterate(startState(policy), policy, { externalDependencyDown: true }).state
    expect(down.status).toBe('blocked')
    expect(down.statusReason).toMatch(/external dependency is unavailable/)
  })

  it('detects a circular failure: fixing A breaks B, fixing B breaks A', () => {
    const a = failure('types', { text: 'A: the parser rejects empty input' })
    const b = failure('unit', { kind: 'test', pattern: 'test-failure', text: 'B: the retry test expects a number' })
    const { state } = run([a, b, a])
    expect(state.status).toBe('blocked')
    expect(state.statusReason).toMatch(/^circular failure: fixing one failure brings back the other/)
  })
})

describe('chooseStrategy', () => {
  const previous: FailureRecord = {
    iteration: 1,
    stage: 'VERIFY',
    capability: null,
    check: 'types',
    error: 'x',
    pattern: 'type-error',
    confidence: 0.9,
    strategy: 'context_expand',
    signature: 's',
    tokens: same().tokens,
    resolution: 'open',
    at: T0.toISOString(),
  }
  const tried = [{ strategy: 'context_expand' as const, iteration: 1, outcome: 'same error' }]

  it.each([
    ['a new failure uses the pattern strategy', same(), null, [], 'context_expand', false],
    ['a changed error keeps the pattern strategy', changing(4), previous, tried, 'context_expand', false],
    [
      'the same error takes the first untried alternate',
      { ...same(), alternates: ['dependency_check' as const] },
      previous,
      tried,
      'dependency_check',
      true,
    ],
    ['then the universal fallbacks', same(), previous, tried, 'analyze_then_fix', true],
    [
      'and escalates when all are tried',
      same(),
      previous,
      [...tried, { strategy: 'analyze_then_fix' as const, iteration: 2, outcome: 'same error' }],
      null,
      true,
    ],
    ['an escalating pattern escalates', { ...same(), strategy: 'escalate' as const }, null, [], null, false],
  ] as const)('%s', (_name, f, prev, t, strategy, sameError) => {
    expect(chooseStrategy(f as FailureInput, prev, [...t], policy)).toMatchObject({ strategy, sameError })
  })
})

describe('detectCircularFailure', () => {
  const record = (iteration: number, signature: string): FailureRecord => ({
    iteration,
    stage: 'VERIFY',
    capability: null,
    check: 'c',
    error: '',
    pattern: null,
    confidence: null,
    strategy: 'analyze_then_fix',
    signature,
    tokens: [],
    resolution: 'open',
    at: T0.toISOString(),
  })
  it.each([
    ['A B A', [record(1, 'A'), record(2, 'B')], 3, ['A'], true],
    ['A A A', [record(1, 'A'), record(2, 'A')], 3, ['A'], false],
    ['A B C', [record(1, 'A'), record(2, 'B')], 3, ['C'], false],
    ['A (pass) A', [record(1, 'A')], 3, ['A'], false],
  ] as const)('%s', (_name, history, iteration, current, circular) => {
    expect(detectCircularFailure(history, iteration, current) !== null).toBe(circular)
  })
})
