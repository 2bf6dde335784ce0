// Promoting candidate patterns: new ones are added once; one the repository has (by id, or by the very
// same signals under another id) is left out with the reason.
import { describe, expect, it } from 'vitest'
import type { PatternConfig } from '../../../src/domain/analysis/pattern-config.js'
import { planPromotion } from '../../../src/domain/analysis/promote-patterns.js'

const pattern = (id: string, signals: string[]): PatternConfig => ({
  id,
  signals,
  anchors: [],
  kinds: [],
  strategy: 'analyze_then_fix',
  alternates: [],
  retryable: true,
  locations: [],
})
const candidate = (id: string, signals: string[], source = '.loop/a/dead-letters/x.pattern.yml') => ({
  pattern: pattern(id, signals),
  source,
})

describe('planPromotion', () => {
  it.each([
    ['a new candidate is added', [], [candidate('candidate-1', ['gear slipped'])], ['candidate-1'], []],
    [
      'the same id is left out',
      [pattern('candidate-1', ['other'])],
      [candidate('candidate-1', ['gear slipped'])],
      [],
      ["'candidate-1' is already there"],
    ],
    [
      'the same signals under another id are left out',
      [pattern('gear', ['b', 'a'])],
      [candidate('candidate-1', ['a', 'b'])],
      [],
      ["'gear' there has the same signals"],
    ],
    [
      'one id from two dead letters is added once',
      [],
      [candidate('candidate-1', ['a'], 'one'), candidate('candidate-1', ['a'], 'two')],
      ['candidate-1'],
      ["'candidate-1' is already there"],
    ],
    [
      'two different candidates are both added',
      [pattern('db-locked', ['database is locked'])],
      [candidate('candidate-1', ['a']), candidate('candidate-2', ['b'])],
      ['candidate-1', 'candidate-2'],
      [],
    ],
  ])('%s', (_case, existing, candidates, added, reasons) => {
    const plan = planPromotion(existing, candidates)
    expect(plan.add.map((c) => c.pattern.id)).toEqual(added)
    expect(plan.skipped.map((s) => s.reason)).toEqual(reasons)
  })
})
