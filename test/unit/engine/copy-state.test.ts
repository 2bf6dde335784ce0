import { describe, expect, it } from 'vitest'
import { copyForUpdate } from '../../../src/domain/engine/copy-state.js'
import { type LoopState, loopStateSchema } from '../../../src/domain/state.js'
import { policyOf, startState } from './helpers.js'

const AT = '2025-01-01T00:05:00.000Z'

/** A state with every field the schema knows filled in, and every list and record non-empty. */
function fullState(): LoopState {
  const base = startState(policyOf({ pipeline: 'full', capabilities: ['login', 'logout'] }))
  const failure = {
    iteration: 1,
    stage: 'VERIFY' as const,
    capability: 'login',
    check: 'unit',
    error: 'expected 1',
    pattern: 'test-failure',
    confidence: 0.9,
    strategy: 'analyze_then_fix' as const,
    signature: 'test-failure:a.ts:abc',
    tokens: ['expected', '1'],
    resolution: 'open' as const,
    maxAttempts: 3,
    at: AT,
  }
  const check = {
    name: 'unit',
    kind: 'test' as const,
    verdict: 'fail' as const,
    required: true,
    durationMs: 10,
    exitCode: 1,
    pattern: 'test-failure',
    confidence: 0.9,
    strategy: 'analyze_then_fix' as const,
    signature: 'test-failure:a.ts:abc',
    locations: [{ file: 'a.ts', line: 1, column: 2, message: 'expected 1' }],
    excerpt: 'expected 1',
    autoFixed: false,
  }
  return loopStateSchema.parse({
    ...base,
    capReason: 'a long job',
    failures: {
      ...base.failures,
      current: failure,
      tried: [{ strategy: 'analyze_then_fix', iteration: 1, outcome: 'same error' }],
      history: [failure],
    },
    gates: { review: { status: 'pending', reason: 'leaving REVIEW', requestedAt: AT } },
    checkpoints: [{ iteration: 1, commit: 'abc123', message: 'loop: 1', at: AT }],
    tasks: { completed: ['docs'], skipped: [{ task: 'e2e', reason: 'flaky runner', by: 'ann', at: AT }] },
    usage: {
      ...base.usage,
      log: [{ iteration: 1, what: 'work', why: 'start', at: AT, durationMs: 5, status: 'done', outputs: { x: [1] } }],
    },
    budget: { minutes: 60, tokens: 1000, costUsd: 5 },
    task: { source: 'issue', number: 12, title: 'Totals', body: 'Round to cents.', author: 'alice' },
    session: 'session-1',
    sessionUsage: { tokens: 1200, costUsd: 0.05 },
    baseline: { takenAt: AT, checks: { unit: 'pass' }, tests: { 'a > b': 'pass' } },
    baselineRoundsLost: 1,
    lastVerification: { iteration: 1, at: AT, results: [check] },
    lastDecision: { kind: 'RETRY', stage: 'IMPLEMENT', capability: 'login', strategy: 'analyze_then_fix', reason: 'r' },
    pullRequest: { number: 7, url: 'https://example.test/pull/7', merged: false },
    dispatch: {
      iteration: 2,
      workflow: 'loop.yml',
      ref: 'refs/heads/main',
      at: AT,
      by: 'run 1',
      failed: '502',
      sweeps: 1,
    },
    lastRun: { id: '9001', url: 'https://example.test/actions/runs/9001' },
    refusedFromCommit: [{ iteration: 1, path: '.env', reason: 'looks like a credential', remedy: 'revoke it' }],
    metrics: {
      ...base.metrics,
      attempts: [
        { iteration: 1, pattern: 'test-failure', strategy: 'analyze_then_fix', durationMs: 5, verdict: 'failed' },
      ],
      byPattern: { 'test-failure': { attempts: 1, resolved: 0, escalated: 0 } },
      strategiesUsed: { analyze_then_fix: 1 },
    },
  })
}

/** Every object and array inside `value`, with its path. */
function containers(value: unknown, path = 'state'): [string, object][] {
  if (value === null || typeof value !== 'object') return []
  return [[path, value], ...Object.entries(value).flatMap(([key, child]) => containers(child, `${path}.${key}`))]
}

function at(root: unknown, path: string): unknown {
  return path
    .split('.')
    .slice(1)
    .reduce((value: unknown, key) => (value as Record<string, unknown>)[key], root)
}

describe('copyForUpdate', () => {
  const state = fullState()

  it('is given a state with every field of the schema set', () => {
    const missing = Object.keys(loopStateSchema.shape).filter((key) => state[key as keyof LoopState] === undefined)
    expect(missing).toEqual([])
  })

  it('is equal to the original', () => {
    expect(copyForUpdate(state)).toEqual(state)
  })

  it.each(containers(state).map(([path]) => [path]))('shares no object or array with the original: %s', (path) => {
    expect(at(copyForUpdate(state), path)).not.toBe(at(state, path))
  })

  it.each([
    ['a new nested field', (s: Record<string, unknown>) => ((s.extra as { list: number[] }).list[0] = 2)],
    ['the last verification', (s: LoopState) => ((s.lastVerification as { results: unknown[] }).results.length = 0)],
    ['a log entry', (s: LoopState) => ((s.usage.log[0] as { status: string }).status = 'changed')],
    ['the pull request', (s: LoopState) => ((s.pullRequest as { merged: boolean }).merged = true)],
    ['a checkpoint', (s: LoopState) => s.checkpoints.push({ iteration: 2, commit: 'd', message: 'm', at: AT })],
  ])('leaves the original alone when the copy changes %s', (_what, change) => {
    const original = { ...fullState(), extra: { list: [1] } } as LoopState & { extra: { list: number[] } }
    const before = structuredClone(original)
    change(copyForUpdate(original) as LoopState & Record<string, unknown>)
    expect(original).toEqual(before)
  })
})
