import { describe, expect, it } from 'vitest'
import { loopConfigSchema } from '../../../src/config/loop-config.js'
import { legRunKey, legsOf, noVerdict, type RecordedRun } from '../../../src/domain/fan-out.js'
import { keptBaselineFailures, mergeLegBaselines } from '../../../src/domain/fan-out-baseline.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import type { FailureForAgent } from '../../../src/domain/work-context.js'

const config = loopConfigSchema.parse({
  work: { run: 'agent' },
  checks: [
    { name: 'lint', run: 'npm run lint' },
    { name: 'test', run: 'npm test -- {shard}/{shards}', kind: 'test', shards: 2 },
    { name: 'e2e', run: 'npm run e2e', kind: 'test', 'verify-only': true },
  ],
})
const legs = legsOf(config)
const exited = (exitCode: number, over: Partial<RecordedRun> = {}): RecordedRun => ({
  exitCode,
  signal: null,
  timedOut: false,
  durationMs: 1,
  output: '',
  totalBytes: 0,
  truncated: false,
  ...over,
})
const lost = (leg: string) => noVerdict(leg, 'no verdict was uploaded')
const AT = '2026-01-01T00:00:00.000Z'

describe('mergeLegBaselines, from the baseline round legs’ runs', () => {
  it.each([
    {
      title: 'each check passes where all its legs passed, fails where any failed; tests as merged',
      runs: { lint: exited(0), 'test#1': exited(0), 'test#2': exited(1) },
      tests: { 'test:a': 'fail', 'test:b': 'fail' },
      checks: { lint: 'pass', test: 'fail' },
      keptTests: { 'test:a': 'fail', 'test:b': 'fail' },
      missing: [],
    },
    {
      title: 'a run that timed out or could not start fails at the base',
      runs: { lint: exited(0, { timedOut: true }), 'test#1': exited(0), 'test#2': exited(0, { spawnError: 'ENOENT' }) },
      tests: {},
      checks: { lint: 'fail', test: 'fail' },
      keptTests: {},
      missing: [],
    },
    {
      title: 'a lost shard leaves its check out of the baseline, named; the other shard’s tests stay',
      runs: { lint: exited(1), 'test#1': exited(0), 'test#2': lost('test shard 2/2') },
      tests: { 'test:a': 'pass' },
      checks: { lint: 'fail' },
      keptTests: { 'test:a': 'pass' },
      missing: [{ check: 'test', legs: ['test shard 2/2'] }],
    },
    {
      title: 'a leg with no run at all is lost too, and a lost check keeps no tests',
      runs: { 'test#1': exited(0), 'test#2': exited(0) },
      tests: { 'lint:x': 'fail', 'test:a': 'pass' },
      checks: { test: 'pass' },
      keptTests: { 'test:a': 'pass' },
      missing: [{ check: 'lint', legs: ['lint'] }],
    },
  ] as const)('$title', ({ runs, tests, checks, keptTests, missing }) => {
    const verdicts = Object.fromEntries(Object.entries(tests)) as Record<string, 'pass' | 'fail'>
    const merged = mergeLegBaselines(legs, config.checks, new Map(Object.entries(runs)), verdicts, AT)
    // The verify-only check is never in the baseline, as in the single job.
    expect(merged).toEqual({ baseline: { takenAt: AT, checks, tests: keptTests }, missing })
  })

  it('keys the legs as mergeVerdicts does', () => {
    expect(legs.map((leg) => legRunKey(leg.check, leg.shard))).toEqual(['lint', 'test#1', 'test#2', 'e2e'])
  })
})

describe('keptBaselineFailures', () => {
  const failure: FailureForAgent = {
    check: 'lint',
    kind: 'lint',
    pattern: 'eslint-error',
    confidence: 0.9,
    strategy: 'analyze_then_fix',
    locations: Array.from({ length: 30 }, (_, i) => ({ file: 'src/a.ts', line: i + 1 })),
    excerpt: 'x'.repeat(9000),
    hint: 'h'.repeat(5000),
  }

  it('bounds what the state keeps, so a state with them is valid', () => {
    const [kept] = keptBaselineFailures([failure])
    expect(kept?.locations).toHaveLength(20)
    expect(kept?.excerpt).toHaveLength(4000)
    expect(kept?.hint).toHaveLength(2000)
    const shape = loopStateSchema.shape.baseline.unwrap()
    expect(shape.safeParse({ takenAt: AT, checks: { lint: 'fail' }, tests: {}, failures: [kept] }).success).toBe(true)
    expect(shape.safeParse({ takenAt: AT, checks: { lint: 'fail' }, tests: {}, failures: [failure] }).success).toBe(
      false,
    )
  })
})
