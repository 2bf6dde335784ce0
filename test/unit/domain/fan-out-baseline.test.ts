import { describe, expect, it } from 'vitest'
import { loopConfigSchema } from '../../../src/config/loop-config.js'
import { type LegBaseline, legRunKey, legsOf } from '../../../src/domain/fan-out.js'
import { legBaselineMessage, mergeLegBaselines } from '../../../src/domain/fan-out-baseline.js'

const BASE = 'a'.repeat(40)
const OTHER = 'b'.repeat(40)
const config = loopConfigSchema.parse({
  work: { run: 'agent' },
  checks: [
    { name: 'lint', run: 'npm run lint' },
    { name: 'test', run: 'npm test -- {shard}/{shards}', kind: 'test', shards: 2 },
    { name: 'e2e', run: 'npm run e2e', kind: 'test', 'verify-only': true },
  ],
})
const legs = legsOf(config)
const at = (verdict: 'pass' | 'fail', tests?: Record<string, 'pass' | 'fail'>, commit = BASE): LegBaseline => ({
  commit,
  verdict,
  ...(tests ? { tests } : {}),
  durationMs: 1,
})

describe('mergeLegBaselines', () => {
  it.each([
    {
      title: 'each check passes where all its legs passed, fails where any failed; tests are united',
      baselines: {
        lint: at('pass'),
        'test#1': at('pass', { 'test:a': 'pass' }),
        'test#2': at('fail', { 'test:b': 'fail', 'test:a': 'fail' }),
      },
      checks: { lint: 'pass', test: 'fail' },
      tests: { 'test:a': 'fail', 'test:b': 'fail' },
      missing: [],
    },
    {
      title: 'a lost shard leaves its check out of the baseline, named; the other shard’s tests stay',
      baselines: { lint: at('fail'), 'test#1': at('pass', { 'test:a': 'pass' }) },
      checks: { lint: 'fail' },
      tests: { 'test:a': 'pass' },
      missing: [{ check: 'test', legs: ['test shard 2/2'] }],
    },
    {
      title: 'a baseline at another commit than the base counts as none',
      baselines: { lint: at('pass', undefined, OTHER), 'test#1': at('pass'), 'test#2': at('pass') },
      checks: { test: 'pass' },
      tests: {},
      missing: [{ check: 'lint', legs: ['lint'] }],
    },
    {
      title: 'a leg speaks for its own check’s tests alone',
      baselines: { lint: at('pass', { 'test:a': 'pass' }), 'test#1': at('pass'), 'test#2': at('pass') },
      checks: { lint: 'pass', test: 'pass' },
      tests: {},
      missing: [],
    },
  ])('$title', ({ baselines, checks, tests, missing }) => {
    const merged = mergeLegBaselines(
      legs,
      config.checks,
      new Map(Object.entries(baselines)),
      BASE,
      '2026-01-01T00:00:00.000Z',
    )
    // The verify-only check is never in the baseline, as in the single job.
    expect(merged).toEqual({ baseline: { takenAt: '2026-01-01T00:00:00.000Z', checks, tests }, missing })
  })

  it('keys the legs as mergeVerdicts does', () => {
    expect(legs.map((leg) => legRunKey(leg.check, leg.shard))).toEqual(['lint', 'test#1', 'test#2', 'e2e'])
  })
})

describe('legBaselineMessage', () => {
  it('says each verdict at the base and the checks without one', () => {
    const merged = mergeLegBaselines(legs, config.checks, new Map([['lint', at('fail')]]), BASE, 'now')
    expect(legBaselineMessage(merged, BASE)).toBe(
      `baseline (the verify legs, at ${BASE.slice(0, 12)}): fail: lint · no baseline for test (no baseline from 'test shard 1/2', 'test shard 2/2'): not judged for regressions as a check, as one the baseline lacks`,
    )
  })
})
