import { describe, expect, it } from 'vitest'
import { normaliseTokens } from '../../../src/domain/analysis/similarity.js'
import { type AttemptFailure, judgeProgress } from '../../../src/domain/engine/progress.js'

const tests = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `math.test.ts > case ${i + from}`)
const failure = (over: Partial<AttemptFailure> = {}): AttemptFailure => ({
  check: 'test',
  pattern: 'test-failure',
  failingTests: tests(9),
  tokens: normaliseTokens('AssertionError: expected 3 to be 4 at src/math.ts:12'),
  ...over,
})

describe('judgeProgress', () => {
  it.each([
    ['a first failure', null, failure(), true, 'first'],
    ['another failing check', failure({ check: 'types' }), failure(), true, 'other-check'],
    ['another pattern on the same check', failure({ pattern: 'import-not-found' }), failure(), true, 'other-pattern'],
    ['9 failing tests, then 8', failure(), failure({ failingTests: tests(8) }), true, 'fewer-tests'],
    ['the same count, other tests', failure(), failure({ failingTests: tests(9, 5) }), true, 'other-tests'],
    [
      'more failing tests, some fixed',
      failure({ failingTests: tests(2) }),
      failure({ failingTests: tests(3, 2) }),
      true,
      'other-tests',
    ],
    [
      'the same tests, another message',
      failure(),
      failure({ tokens: normaliseTokens("TypeError: Cannot read properties of undefined (reading 'rate')") }),
      true,
      'other-output',
    ],
    ['the same tests and nearly the same text', failure(), failure(), false, 'none'],
    [
      'no tests named, nearly the same text (numbers differ only)',
      failure({ failingTests: null }),
      failure({ failingTests: null, tokens: normaliseTokens('AssertionError: expected 5 to be 4 at src/math.ts:19') }),
      false,
      'none',
    ],
    ['tests named only once: judged by the text', failure({ failingTests: null }), failure(), false, 'none'],
  ] as const)('%s', (_name, previous, current, progress, kind) => {
    const verdict = judgeProgress(previous, current)
    expect(verdict.progress).toBe(progress)
    expect(verdict.kind).toBe(kind)
    expect(verdict.detail.length).toBeGreaterThan(0)
  })

  it('says how many failing tests are left', () => {
    expect(judgeProgress(failure(), failure({ failingTests: tests(8) })).detail).toBe(
      "'test': 8 failing tests, down from 9",
    )
    expect(judgeProgress(failure(), failure()).detail).toBe(
      "the same test-failure in 'test' (the same 9 failing tests)",
    )
  })
})
