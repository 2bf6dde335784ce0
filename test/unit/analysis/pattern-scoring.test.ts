import { describe, expect, it } from 'vitest'
import { assertUniquePatternIds, PatternError } from '../../../src/domain/analysis/pattern-config.js'
import { bestPattern, outrankedWinner, type PatternScore } from '../../../src/domain/analysis/scoring.js'

const score = (confidence: number, anchors = 0): PatternScore => ({
  signals: 0,
  anchors,
  total: 0,
  evidence: 0,
  confidence,
  extra: 0,
})

describe('bestPattern', () => {
  it.each([
    ['no patterns', [], -1],
    ['nothing scored', [score(0), score(0)], -1],
    ['the highest confidence', [score(0.4), score(0.8), score(0.6)], 1],
    ['more anchors on a tie', [score(0.78, 1), score(0.78, 2)], 1],
    ['the earlier pattern on a full tie', [score(0.78, 1), score(0.78, 1)], 0],
  ] as const)('picks %s', (_what, scores, expected) => {
    expect(bestPattern(scores)).toBe(expected)
  })
})

describe('assertUniquePatternIds', () => {
  it.each([
    [[], undefined],
    [['a', 'b'], undefined],
    [['a', 'b', 'a'], "Pattern 'a' appears twice in loop.yml; each id at most once."],
  ])('%j', (ids, message) => {
    const check = () =>
      assertUniquePatternIds(
        ids.map((id) => ({ id })),
        'loop.yml',
      )
    if (message === undefined) expect(check).not.toThrow()
    else {
      expect(check).toThrow(PatternError)
      expect(check).toThrow(message)
    }
  })
})

describe('outrankedWinner', () => {
  const patterns = [
    { id: 'import-not-found', outranks: ['test-failure', 'build-error'] },
    { id: 'test-failure', outranks: ['build-error'] },
    { id: 'build-error', outranks: [] },
  ]
  it.each([
    ['an anchored specific cause beats the broader winner', [score(0.87, 1), score(0.99, 2), score(0)], 1, 0],
    ['no anchor, no outranking', [score(0.64), score(0.99, 2), score(0)], 1, 1],
    ['below the no-match floor, no outranking', [score(0.2, 1), score(0.99, 2), score(0)], 1, 1],
    ['chains: build-error -> test-failure -> import-not-found', [score(0.5, 1), score(0.6, 1), score(1, 3)], 2, 0],
    ['a winner nobody outranks stays', [score(0.9, 1), score(0), score(0)], 0, 0],
    ['no winner stays none', [score(0), score(0), score(0)], -1, -1],
  ])('%s', (_name, scores, best, want) => {
    expect(outrankedWinner(patterns, scores, best)).toBe(want)
  })
})
