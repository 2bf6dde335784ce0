// A check (or test) that stays red across iterations is one regression: counted and told once per loop.
import { describe, expect, it } from 'vitest'
import {
  detectRegressions,
  MAX_TALLIED_TESTS,
  type RegressionTally,
  tallyRegressions,
} from '../../../src/domain/analysis/regression.js'

const none: RegressionTally = { checks: [], tests: [] }

describe('tallyRegressions', () => {
  it.each([
    ['a first regression is fresh', none, { checks: ['unit'], tests: [] }, { checks: ['unit'], tests: [] }, ['unit']],
    [
      'the same check the next iteration is not',
      { checks: ['unit'], tests: [] },
      { checks: ['unit'], tests: [] },
      { checks: [], tests: [] },
      ['unit'],
    ],
    [
      'another check is',
      { checks: ['unit'], tests: [] },
      { checks: ['unit', 'types'], tests: [] },
      { checks: ['types'], tests: [] },
      ['unit', 'types'],
    ],
    [
      'tests are tallied apart from checks',
      { checks: ['unit'], tests: ['adds'] },
      { checks: [], tests: ['adds', 'subtracts'] },
      { checks: [], tests: ['subtracts'] },
      ['unit'],
    ],
    [
      'a name twice in one iteration is one',
      none,
      { checks: ['unit', 'unit'], tests: [] },
      { checks: ['unit'], tests: [] },
      ['unit'],
    ],
  ])('%s', (_case, tally, now, fresh, checksAfter) => {
    const result = tallyRegressions(tally, now)
    expect(result.fresh).toEqual(fresh)
    expect(result.tally.checks).toEqual(checksAfter)
  })

  it('remembers a bounded number of tests', () => {
    const many = Array.from({ length: MAX_TALLIED_TESTS + 20 }, (_, i) => `test ${i}`)
    expect(tallyRegressions(none, { checks: [], tests: many }).tally.tests).toHaveLength(MAX_TALLIED_TESTS)
  })

  it('over three iterations of the same red check, counts one', () => {
    let tally = none
    let counted = 0
    for (let iteration = 0; iteration < 3; iteration++) {
      const now = detectRegressions({ checks: { unit: 'pass' }, tests: {} }, { checks: { unit: 'fail' }, tests: {} })
      const result = tallyRegressions(tally, now)
      tally = result.tally
      counted += result.fresh.checks.length
    }
    expect(counted).toBe(1)
  })
})
