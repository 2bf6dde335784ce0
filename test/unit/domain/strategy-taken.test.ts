// What a person is shown as the loop's strategy for a failing check: the retry rules' choice (the
// switched strategy, or escalate when it went to a person), not the pattern's own proposal.
import { describe, expect, it } from 'vitest'
import { strategyTaken, type WeighedLoop } from '../../../src/domain/attempt-strategy.js'
import type { Decision } from '../../../src/domain/engine/index.js'
import type { CheckResult } from '../../../src/domain/state.js'

const retry = (strategy: 'context_expand' | 'analyze_then_fix'): Decision => ({
  kind: 'RETRY',
  stage: 'IMPLEMENT',
  capability: null,
  strategy,
  attempt: 2,
  maxAttempts: 3,
  backoffMs: 0,
  reason: 'x',
})
const running: WeighedLoop = { status: 'running', current: { check: 'unit' } }
const blocked: WeighedLoop = { status: 'blocked', current: { check: 'unit' } }
const failed = (name: string, verdict: CheckResult['verdict'] = 'fail', autoFixed = false) => ({
  name,
  verdict,
  autoFixed,
})

describe('strategyTaken', () => {
  it.each<[string, Pick<CheckResult, 'name' | 'verdict' | 'autoFixed'>, WeighedLoop, Decision | null, string | null]>([
    [
      'the retried failure: the retry decision’s strategy',
      failed('unit'),
      running,
      retry('context_expand'),
      'context_expand',
    ],
    ['a timeout retried', failed('unit', 'timeout'), running, retry('analyze_then_fix'), 'analyze_then_fix'],
    [
      'BLOCKED on it: escalate (a person)',
      failed('unit'),
      blocked,
      { kind: 'WAIT_FOR_HUMAN', reason: 'r' },
      'escalate',
    ],
    ['BLOCKED, no next decision at hand', failed('unit'), blocked, null, 'escalate'],
    ['an ESCALATE decision next', failed('unit'), running, { kind: 'ESCALATE', reason: 'r' }, 'escalate'],
    ['another failing check: not the one retried', failed('lint'), running, retry('context_expand'), null],
    ['a passing check', failed('unit', 'pass'), running, retry('context_expand'), null],
    [
      'made to pass by its fix command: auto_fix',
      failed('lint', 'pass', true),
      running,
      retry('context_expand'),
      'auto_fix',
    ],
    ['a flaky check', failed('unit', 'flaky'), running, retry('context_expand'), null],
    [
      'the cap stops the loop',
      failed('unit'),
      running,
      { kind: 'CAP_REACHED', limit: 'iterations', reason: 'r' },
      null,
    ],
    ['no open failure', failed('unit'), { status: 'running', current: null }, retry('context_expand'), null],
  ])('%s', (_name, check, loop, next, expected) => {
    expect(strategyTaken(check, loop, next)).toBe(expected)
  })
})
