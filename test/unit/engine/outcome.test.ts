import { describe, expect, it } from 'vitest'
import {
  advance,
  applyOutcome,
  approveGate,
  beginIteration,
  CapExceededError,
  decide,
  EngineError,
  markComplete,
  skipTask,
} from '../../../src/domain/engine/index.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import { at, failure, iterate, matrix, outcomeOf, policyOf, result, startState } from './helpers.js'

describe('applyOutcome: the iterate preset', () => {
  const policy = policyOf()

  it('goes IMPLEMENT -> VERIFY -> COMPLETE in one iteration when the matrix is green', () => {
    const { state, events } = iterate(startState(policy), policy)
    expect(state).toMatchObject({ stage: 'COMPLETE', status: 'complete', iteration: 1 })
    expect(events.filter((e) => e.type === 'transition').map((e) => e.message)).toEqual([
      'IMPLEMENT -> VERIFY',
      'VERIFY -> COMPLETE',
    ])
    expect(events.at(-1)?.type).toBe('completed')
    expect(state.stages.IMPLEMENT?.status).toBe('done')
    expect(decide(state, { now: at(9) }, policy).kind).toBe('COMPLETE')
    expect(() => loopStateSchema.parse(state)).not.toThrow()
  })

  it('stays in IMPLEMENT with an open failure when VERIFY fails, and retries IMPLEMENT', () => {
    const { state, events } = iterate(startState(policy), policy, { failing: [failure('types')] })
    expect(state).toMatchObject({ stage: 'IMPLEMENT', status: 'running' })
    expect(state.stages.VERIFY?.status).toBe('pending')
    expect(state.failures.current).toMatchObject({ stage: 'VERIFY', check: 'types', strategy: 'context_expand' })
    expect(events.some((e) => e.type === 'transition')).toBe(false)
    expect(events.find((e) => e.type === 'analysis')?.data).toMatchObject({ attempt: 1, maxAttempts: 3 })
    expect(decide(state, { now: at(2) }, policy)).toMatchObject({
      kind: 'RETRY',
      stage: 'IMPLEMENT',
      strategy: 'context_expand',
      attempt: 1,
      maxAttempts: 3,
    })
  })

  it('resolves the failure when the retry turns the matrix green', () => {
    const first = iterate(startState(policy), policy, { failing: [failure('types')] }).state
    const { state, decision } = iterate(first, policy)
    expect(decision.kind).toBe('RETRY')
    expect(state.status).toBe('complete')
    expect(state.failures).toMatchObject({ current: null, consecutive: 0, total: 1 })
    expect(state.failures.history[0]?.resolution).toBe('resolved')
    expect(state.metrics.byPattern['type-error']).toEqual({ attempts: 1, resolved: 1, escalated: 0 })
    expect(state.metrics.attempts).toEqual([
      { iteration: 2, pattern: 'type-error', strategy: 'context_expand', durationMs: 1000, verdict: 'resolved' },
    ])
    expect(state.metrics.strategiesUsed).toEqual({ context_expand: 1 })
  })

  it('counts usage, work calls, flakes, auto-fixes, regressions and time to green', () => {
    const started = beginIteration(startState(policy), decide(startState(policy), { now: at(0) }, policy), at(0))
    const { state, events } = applyOutcome(
      started,
      outcomeOf(started, policy, {
        now: at(3),
        work: { exitCode: 0, blocked: false, durationMs: 5000, tokens: 1200, costUsd: 0.12, session: 'abc' },
        checks: matrix(policy).map((c) => (c.name === 'unit' ? { ...c, verdict: 'flaky' as const } : c)),
        flaky: ['unit'],
        autoFixed: ['lint'],
        wallMs: 7000,
      }),
      policy,
    )
    expect(state.usage).toMatchObject({ wallMs: 7000, tokens: 1200, costUsd: 0.12 })
    expect(state.usage.log.map((e) => e.what)).toEqual(['work IMPLEMENT', 'verify'])
    expect(state.session).toBe('abc')
    expect(state.metrics).toMatchObject({ workCalls: 1, flakes: 1, autoFixes: 1, timeToGreenMs: 180_000 })
    expect(state.lastVerification?.iteration).toBe(1)
    // The flake and the auto-fix are counted here; the steps that re-ran and fixed the checks tell them, once.
    expect(events.map((e) => e.type)).toEqual(['transition', 'transition', 'completed'])
  })

  it('falls back to the whole matrix for build and test when only custom checks exist (simple mode)', () => {
    const simple = policyOf({ checks: [{ name: 'verify-1', run: 'npm test' }] })
    const red = iterate(startState(simple), simple, { failing: [failure('verify-1', { kind: 'custom' })] }).state
    expect(red).toMatchObject({ stage: 'IMPLEMENT', status: 'running' })
    const green = iterate(red, simple).state
    expect(green.status).toBe('complete')
  })

  it('refuses an outcome for another stage, or before beginIteration', () => {
    const state = startState(policy)
    expect(() => applyOutcome(state, outcomeOf(state, policy), policy)).toThrow(/call beginIteration first/)
    const started = beginIteration(state, decide(state, { now: at(0) }, policy), at(0))
    expect(() => applyOutcome(started, outcomeOf(started, policy, { stage: 'VERIFY' }), policy)).toThrow(EngineError)
  })

  it('synthesizes a failure for a required check that has no analysis (e.g. a timeout)', () => {
    const checks = matrix(policy).map((c) =>
      c.name === 'unit' ? { ...c, verdict: 'timeout' as const, excerpt: 'killed after 600 s' } : c,
    )
    const { state } = iterate(startState(policy), policy, { checks, failures: [] })
    expect(state.failures.current).toMatchObject({ check: 'unit', pattern: null, strategy: 'analyze_then_fix' })
  })
})

describe('applyOutcome: the full preset and the capability loop', () => {
  const policy = policyOf({ pipeline: 'full', capabilities: ['parse', 'retry'] })

  it('walks INIT -> SCAFFOLD -> IMPLEMENT -> TEST -> VERIFY per capability, then VALIDATE .. SHIP', () => {
    let state = startState(policy)
    const seen: string[] = []
    for (let i = 0; i < 9 && state.stage !== 'SHIP'; i++) {
      seen.push(`${state.stage}${state.capabilities.current ? `:${state.capabilities.current}` : ''}`)
      state = iterate(state, policy).state
      if (state.status === 'waiting') {
        state = approveGate(state, 'review', '@alice', at(i)).state
        state = advance(state, policy, at(i)).state
      }
    }
    expect(seen).toEqual([
      'INIT:parse',
      'SCAFFOLD:parse',
      'IMPLEMENT:parse',
      'TEST:parse',
      'IMPLEMENT:retry',
      'TEST:retry',
      'VALIDATE',
      'DOCUMENT',
      'REVIEW',
    ])
    expect(state.stage).toBe('SHIP')
    expect(state.capabilities).toEqual({ total: 2, completed: ['parse', 'retry'], current: null, remaining: [] })
  })

  it('evaluates each transition against its own requirements', () => {
    const state = { ...startState(policy), stage: 'IMPLEMENT' as const }
    // IMPLEMENT -> TEST needs only build: failing tests do not hold it back.
    const moved = iterate(state, policy, {
      failing: [failure('unit', { kind: 'test', pattern: 'test-failure' })],
    }).state
    expect(moved).toMatchObject({ stage: 'TEST', status: 'running' })
    expect(moved.failures.current).toBeNull()
    // TEST -> VERIFY needs build and test.
    const held = iterate(moved, policy, { failing: [failure('unit', { kind: 'test', pattern: 'test-failure' })] }).state
    expect(held).toMatchObject({ stage: 'TEST' })
    expect(held.failures.current).toMatchObject({ check: 'unit', stage: 'TEST' })
    // VERIFY -> VALIDATE needs lint too; a lint failure at VERIFY is retried in TEST, the stage that worked.
    const lint = iterate({ ...held, failures: { ...held.failures, current: null } }, policy, {
      failing: [failure('lint', { kind: 'lint', pattern: 'lint-error', strategy: 'auto_fix' })],
    }).state
    expect(lint).toMatchObject({ stage: 'TEST' })
    expect(lint.failures.current).toMatchObject({ check: 'lint', stage: 'VERIFY' })
  })

  it('holds REVIEW until the review gate is approved, and approval plus advance moves on without an iteration', () => {
    const state = {
      ...startState(policy),
      stage: 'REVIEW' as const,
      capabilities: { total: 2, completed: ['parse', 'retry'], current: null, remaining: [] },
    }
    const { state: waiting, events } = iterate(state, policy)
    expect(waiting).toMatchObject({ stage: 'REVIEW', status: 'waiting' })
    expect(waiting.gates.review?.status).toBe('pending')
    expect(events.some((e) => e.type === 'gate')).toBe(true)
    expect(decide(waiting, { now: at(1) }, policy)).toMatchObject({ kind: 'WAIT_FOR_APPROVAL', gate: 'review' })
    const approved = approveGate(waiting, 'review', '@alice', at(2)).state
    const moved = advance(approved, policy, at(2))
    expect(moved.state).toMatchObject({ stage: 'SHIP', status: 'running', iteration: waiting.iteration })
    expect(moved.events.map((e) => e.message)).toEqual(['REVIEW -> SHIP'])
  })

  it('keeps SHIP until the pull request is merged', () => {
    const state = {
      ...startState(policy),
      stage: 'SHIP' as const,
      capabilities: { total: 2, completed: ['parse', 'retry'], current: null, remaining: [] },
    }
    const shipped = iterate(state, policy).state
    expect(shipped).toMatchObject({ stage: 'SHIP', status: 'waiting' })
    expect(decide(shipped, { now: at(1) }, policy).kind).toBe('WAIT_FOR_HUMAN')
    const merged = decide(shipped, { now: at(2), pullRequestMerged: true }, policy)
    expect(merged.kind).toBe('COMPLETE')
    const done = markComplete(shipped, at(2)).state
    expect(done).toMatchObject({ stage: 'COMPLETE', status: 'complete' })
    expect(() => loopStateSchema.parse(done)).not.toThrow()
  })
})

describe('applyOutcome: tasks and gates', () => {
  const policy = policyOf({
    pipeline: ['IMPLEMENT', 'VERIFY', 'DOCUMENT'],
    stages: {
      DOCUMENT: {
        tasks: [
          { name: 'changelog', run: 'make changelog' },
          { name: 'docs', run: 'make docs' },
        ],
      },
    },
    gates: [{ name: 'database', paths: ['migrations/**'] }],
  })

  it('leaves a stage only when every task is completed or skipped with a reason', () => {
    const atDocument = { ...startState(policy), stage: 'DOCUMENT' as const }
    const partly = iterate(atDocument, policy, { tasksCompleted: ['changelog'] }).state
    expect(partly).toMatchObject({ stage: 'DOCUMENT', status: 'running' })
    expect(partly.statusReason).toMatch(/DOCUMENT has tasks left: docs/)
    expect(decide(partly, { now: at(1) }, policy)).toMatchObject({ kind: 'EXECUTE_STAGE', stage: 'DOCUMENT' })
    const skipped = skipTask(partly, 'docs', 'docs are generated at release', '@bob', at(2)).state
    expect(advance(skipped, policy, at(2)).state).toMatchObject({ stage: 'COMPLETE', status: 'complete' })
  })

  it('waits on a gate raised by changed paths, even with a green matrix', () => {
    const { state } = iterate(startState(policy), policy, {
      gatesRaised: [{ gate: 'database', reason: 'migrations/001.sql changed' }],
    })
    expect(state).toMatchObject({ stage: 'IMPLEMENT', status: 'waiting' })
    expect(decide(state, { now: at(1) }, policy)).toMatchObject({
      kind: 'WAIT_FOR_APPROVAL',
      gate: 'database',
      reason: "gate 'database' needs approval: migrations/001.sql changed",
    })
    const approved = approveGate(state, 'database', '@carol', at(2)).state
    expect(approved.status).toBe('running')
    expect(advance(approved, policy, at(2)).state.stage).toBe('DOCUMENT')
  })
})

describe('beginIteration', () => {
  const policy = policyOf({ 'max-iterations': 2 })

  it('increments the iteration, claims it and records the decision', () => {
    const state = startState(policy)
    const decision = decide(state, { now: at(0) }, policy)
    const started = beginIteration(state, decision, at(0))
    expect(started).toMatchObject({ iteration: 1, claimedIteration: 1 })
    expect(started.lastDecision).toEqual({
      kind: 'EXECUTE_STAGE',
      stage: 'IMPLEMENT',
      capability: null,
      reason: 'IMPLEMENT',
    })
  })

  it('refuses to pass the cap, even when handed a decision', () => {
    const state = { ...startState(policy), iteration: 2 }
    const decision = { kind: 'EXECUTE_STAGE' as const, stage: 'IMPLEMENT' as const, capability: null, reason: 'x' }
    expect(() => beginIteration(state, decision, at(0))).toThrow(CapExceededError)
    expect(() => beginIteration(state, decision, at(0))).toThrow(/2 of 2 iterations \(max-iterations\)/)
  })

  it('never reuses a claimed iteration number', () => {
    const state = { ...startState(policyOf()), iteration: 1, claimedIteration: 3 }
    const started = beginIteration(state, decide(state, { now: at(0) }, policyOf()), at(0))
    expect(started.iteration).toBe(4)
  })

  it('refuses decisions that do not run an iteration', () => {
    expect(() => beginIteration(startState(policy), { kind: 'COMPLETE', reason: 'done' }, at(0))).toThrow(
      /only on an EXECUTE_STAGE or RETRY decision; got COMPLETE/,
    )
  })
})

describe('result builder', () => {
  it('builds schema-valid check results', () => {
    expect(() =>
      loopStateSchema.shape.lastVerification.parse({ iteration: 1, at: 'x', results: [result('a', 'build')] }),
    ).not.toThrow()
  })
})
