import { describe, expect, it } from 'vitest'
import { assertUniquePatternIds, PatternError } from '../../../src/domain/analysis/pattern-config.js'
import { bestPattern, type PatternScore } from '../../../src/domain/analysis/scoring.js'

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
