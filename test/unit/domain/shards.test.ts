import { describe, expect, it } from 'vitest'
import type { CheckConfig } from '../../../src/domain/loop-config.js'
import {
  expandShards,
  legCheck,
  legOf,
  mergeShards,
  missingShardResult,
  noVerdictLine,
  noVerdictReason,
  type ShardReport,
  shardConfigProblem,
  substituteShard,
  unionTests,
  worstVerdict,
} from '../../../src/domain/shards.js'
import type { CheckResult } from '../../../src/domain/state.js'

const CHECK = { name: 'test', kind: 'test' as const, required: true }

function result(verdict: CheckResult['verdict'], over: Partial<CheckResult> = {}): CheckResult {
  const failing = verdict === 'fail' || verdict === 'error' || verdict === 'timeout'
  return {
    name: 'test',
    kind: 'test',
    verdict,
    required: true,
    durationMs: 1000,
    exitCode: verdict === 'pass' ? 0 : 1,
    pattern: failing ? 'test-failure' : null,
    confidence: failing ? 0.87 : null,
    strategy: failing ? 'analyze_then_fix' : null,
    signature: failing ? 'test-failure:ts:0000000a' : null,
    locations: [],
    excerpt: failing ? `${verdict} output` : '',
    autoFixed: false,
    ...over,
  }
}

describe('expanding a check into its shard legs', () => {
  it.each([
    {
      name: 'a shell line with both placeholders, and a JUnit path',
      check: {
        name: 'test',
        run: 'vitest run --shard={shard}/{shards}',
        junit: 'reports/{shard}-of-{shards}.xml',
        shards: 3,
      },
      want: [
        { shard: 1, command: 'vitest run --shard=1/3', junit: 'reports/1-of-3.xml' },
        { shard: 2, command: 'vitest run --shard=2/3', junit: 'reports/2-of-3.xml' },
        { shard: 3, command: 'vitest run --shard=3/3', junit: 'reports/3-of-3.xml' },
      ],
    },
    {
      name: 'an argument list, each word substituted, a placeholder used twice',
      check: { name: 'unit', run: ['jest', '--shard={shard}/{shards}', 'out-{shard}'], shards: 2 },
      want: [
        { shard: 1, command: ['jest', '--shard=1/2', 'out-1'] },
        { shard: 2, command: ['jest', '--shard=2/2', 'out-2'] },
      ],
    },
    {
      name: 'the environment only (the command unchanged)',
      check: { name: 'py', run: 'pytest --splits "$LOOP_SHARDS" --group "$LOOP_SHARD"', shards: 2 },
      want: [
        { shard: 1, command: 'pytest --splits "$LOOP_SHARDS" --group "$LOOP_SHARD"' },
        { shard: 2, command: 'pytest --splits "$LOOP_SHARDS" --group "$LOOP_SHARD"' },
      ],
    },
    {
      name: 'a check that is not sharded: one leg',
      check: { name: 'lint', run: 'eslint .' },
      want: [{ shard: 1, command: 'eslint .' }],
    },
  ])('$name', ({ check, want }) => {
    const legs = expandShards(check)
    const shards = want.length
    expect(legs).toEqual(
      want.map((leg) => ({
        check: check.name,
        shards,
        ...leg,
        env: { LOOP_SHARD: String(leg.shard), LOOP_SHARDS: String(shards) },
      })),
    )
  })

  it.each([
    {
      text: 'go test $(go list ./... | split {shard} {shards})',
      shard: 2,
      shards: 5,
      want: 'go test $(go list ./... | split 2 5)',
    },
    { text: '{shards}{shard}{shards}', shard: 1, shards: 4, want: '414' },
    { text: 'no placeholder', shard: 3, shards: 4, want: 'no placeholder' },
    { text: '{Shard} {SHARDS} {shard_}', shard: 3, shards: 4, want: '{Shard} {SHARDS} {shard_}' },
  ])('substitutes $text', ({ text, shard, shards, want }) => {
    expect(substituteShard(text, shard, shards)).toBe(want)
  })

  it.each([0, 5, 1.5])('refuses leg %s of a 4-shard check, naming the range', (shard) => {
    expect(() => legOf({ name: 'test', run: 'x {shard}', shards: 4 }, shard)).toThrow(
      `shard: expected a whole number from 1 to 4 for check 'test'; got ${shard}`,
    )
  })
})

describe('the config rule for a sharded check', () => {
  it.each([
    { check: { name: 't', run: 'x {shard}/{shards}', shards: 4 }, want: null },
    { check: { name: 't', run: 'x "$LOOP_SHARD"', shards: 4 }, want: null },
    { check: { name: 't', run: ['x', '--part={shard}'], shards: 2, junit: 'j-{shard}.xml' }, want: null },
    { check: { name: 't', run: 'npm test', shards: 1, junit: 'junit.xml' }, want: null },
    { check: { name: 't', run: 'npm test' }, want: null },
    {
      check: { name: 'unit', run: 'npm test', shards: 4 },
      want: /^checks\.unit\.shards: 4 shards, but the check's run \("npm test"\) names neither/,
    },
    {
      check: { name: 'unit', run: ['npm', 'test'], shards: 2 },
      want: /run \("npm test"\) names neither \{shard\} nor LOOP_SHARD/,
    },
    {
      check: { name: 'py', run: ['pytest', '--group', '$LOOP_SHARD'], shards: 2 },
      want: /^checks\.py\.run: an argument list \(\["pytest","--group","\$LOOP_SHARD"\]\) is run without a shell, so LOOP_SHARD in it is never expanded.*expected \{shard\}\/\{shards\} in its words.*or a string run/,
    },
    { check: { name: 'py', run: ['sh', '-c', 'pytest --group "$LOOP_SHARD"'], shards: 2 }, want: null },
    { check: { name: 'py', run: ['/bin/bash', '-c', 'pytest --group "$LOOP_SHARD"'], shards: 2 }, want: null },
    { check: { name: 'py', run: ['pytest', '--group={shard}', '# $LOOP_SHARD'], shards: 2 }, want: null },
    { check: { name: 'py', run: ['pytest', '--group', '$LOOP_SHARD'], shards: 1 }, want: null },
    {
      check: { name: 'e2e', run: 'x {shard}', shards: 2, junit: 'junit.xml' },
      want: /^checks\.e2e\.shards: .*checks\.e2e\.junit \("junit\.xml"\) has no \{shard\}/,
    },
    {
      check: { name: 'e2e', run: 'x {shard}', shards: 65 },
      want: /^checks\.e2e\.shards: expected a whole number from 1 to 64 \(1: not sharded\); got 65$/,
    },
    { check: { name: 'e2e', run: 'x {shard}', shards: 0 }, want: /got 0$/ },
    { check: { name: 'e2e', run: 'x {shard}', shards: 2.5 }, want: /got 2\.5$/ },
  ])('$check.name $check.shards $check.run: $want', ({ check, want }) => {
    const problem = shardConfigProblem(check)
    if (want === null) expect(problem).toBeNull()
    else expect(problem).toMatch(want)
  })
})

describe('a leg without a verdict', () => {
  it.each([
    {
      run: { exitCode: null, signal: 'SIGKILL', timedOut: false, cancelled: false },
      want: 'killed by SIGKILL before it reported',
    },
    {
      run: { exitCode: 137, signal: null, timedOut: false, cancelled: false },
      want: 'killed by SIGKILL (exit 137) before it reported',
    },
    {
      run: { exitCode: 143, signal: null, timedOut: false, cancelled: false },
      want: 'killed by SIGTERM (exit 143) before it reported',
    },
    {
      run: { exitCode: null, signal: 'SIGTERM', timedOut: false, cancelled: true },
      want: 'cancelled before it reported',
    },
    // The controller's own timeout is a verdict (`timeout`), as for any check.
    { run: { exitCode: null, signal: 'SIGKILL', timedOut: true, cancelled: false }, want: null },
    { run: { exitCode: 1, signal: null, timedOut: false, cancelled: false }, want: null },
    { run: { exitCode: 0, signal: null, timedOut: false, cancelled: false }, want: null },
    { run: { exitCode: 2, signal: null, timedOut: false, cancelled: false }, want: null },
  ])('$run gives $want', ({ run, want }) => {
    expect(noVerdictReason(run)).toBe(want)
  })

  it('is an error whose excerpt is the line the infrastructure pattern matches, never a pass', () => {
    expect(missingShardResult(CHECK, 3, 4, 'the job was cancelled')).toEqual({
      name: 'test',
      kind: 'test',
      verdict: 'error',
      required: true,
      durationMs: 0,
      exitCode: null,
      pattern: null,
      confidence: null,
      strategy: null,
      signature: null,
      locations: [],
      excerpt: 'loop-controller: no verdict from test shard 3/4: the job was cancelled',
      autoFixed: false,
    })
    expect(noVerdictLine('e2e', 1, 2, 'missing')).toBe('loop-controller: no verdict from e2e shard 1/2: missing')
  })
})

describe('merging the shards into one check result', () => {
  it.each([
    { verdicts: ['pass', 'pass', 'pass'], want: 'pass', failing: [], leading: 1 },
    { verdicts: ['pass', 'flaky', 'pass'], want: 'flaky', failing: [], leading: 2 },
    { verdicts: ['pass', 'fail', 'pass'], want: 'fail', failing: [2], leading: 2 },
    { verdicts: ['fail', 'timeout', 'fail'], want: 'timeout', failing: [1, 2, 3], leading: 2 },
    { verdicts: ['timeout', 'error', 'fail'], want: 'error', failing: [1, 2, 3], leading: 2 },
    { verdicts: ['pass', 'skipped'], want: 'skipped', failing: [2], leading: 2 },
    { verdicts: ['skipped', 'skipped'], want: 'skipped', failing: [1, 2], leading: 1 },
    { verdicts: ['fail', 'fail'], want: 'fail', failing: [1, 2], leading: 1 },
  ] as const)('$verdicts is $want', ({ verdicts, want, failing, leading }) => {
    const reports = verdicts.map((verdict, i) => ({ shard: i + 1, result: result(verdict) }))
    const merged = mergeShards(CHECK, verdicts.length, reports)
    expect(merged.result.verdict).toBe(want)
    expect(merged.failing).toEqual(failing)
    expect(merged.leading).toBe(leading)
    expect(worstVerdict(verdicts)).toBe(want)
  })

  it('keeps the leading shard pattern, the longest duration, and the failing shards excerpts under their headings', () => {
    const merged = mergeShards(CHECK, 4, [
      { shard: 1, result: result('pass', { durationMs: 4000 }) },
      {
        shard: 2,
        result: result('fail', {
          durationMs: 2500,
          excerpt: 'FAIL b.test.ts > b',
          locations: [{ file: 'b.ts', line: 2 }],
        }),
      },
      {
        shard: 3,
        result: result('timeout', {
          durationMs: 9000,
          pattern: 'timeout',
          strategy: 'retry_with_backoff',
          signature: 'timeout:none:0000000b',
          excerpt: 'check timed out after 9 s',
          locations: [
            { file: 'c.ts', line: 3 },
            { file: 'b.ts', line: 2 },
          ],
        }),
      },
      { shard: 4, result: result('pass', { durationMs: 10 }) },
    ])
    expect(merged.result).toEqual({
      ...result('timeout'),
      durationMs: 9000,
      pattern: 'timeout',
      strategy: 'retry_with_backoff',
      signature: 'timeout:none:0000000b',
      locations: [
        { file: 'c.ts', line: 3 },
        { file: 'b.ts', line: 2 },
      ],
      excerpt: '### test shard 3/4: timeout\ncheck timed out after 9 s\n\n### test shard 2/4: fail\nFAIL b.test.ts > b',
    })
  })

  it.each([
    { name: 'a missing report', reports: [1, 2, 4], reason: 'no result reported' },
    {
      name: 'a report of no verdict',
      reports: [1, 2, 4],
      extra: { shard: 3, result: null, reason: 'the job was cancelled' },
      reason: 'the job was cancelled',
    },
  ])('makes the check an error for $name, with the no-verdict line', ({ reports, extra, reason }) => {
    const all: ShardReport[] = reports.map((shard) => ({ shard, result: result('pass') }))
    if (extra) all.push(extra as ShardReport)
    const merged = mergeShards(CHECK, 4, all)
    expect(merged.result.verdict).toBe('error')
    expect(merged.result.excerpt).toBe(
      `### test shard 3/4: error\nloop-controller: no verdict from test shard 3/4: ${reason}`,
    )
    expect(merged.failing).toEqual([3])
    expect(merged.leading).toBe(3)
  })

  it('never passes with no reports at all', () => {
    const merged = mergeShards(CHECK, 2, [])
    expect(merged.result.verdict).toBe('error')
    expect(merged.result.excerpt.split('\n').filter((l) => l.startsWith('loop-controller:'))).toEqual([
      'loop-controller: no verdict from test shard 1/2: no result reported',
      'loop-controller: no verdict from test shard 2/2: no result reported',
    ])
  })

  it('refuses a report for a shard outside the check', () => {
    expect(() => mergeShards(CHECK, 2, [{ shard: 3, result: result('pass') }])).toThrow(
      "mergeShards: a report for shard 3 of check 'test'; expected shards 1 to 2",
    )
  })

  it('keeps the excerpt within the state limit, the leading failure first and whole', () => {
    const long = (c: string) => c.repeat(3000)
    const merged = mergeShards(CHECK, 64, [
      ...Array.from({ length: 62 }, (_, i) => ({ shard: i + 1, result: result('fail', { excerpt: long('x') }) })),
      { shard: 63, result: null, reason: 'cancelled' },
      { shard: 64, result: result('fail', { excerpt: long('y') }) },
    ])
    expect(merged.result.excerpt.length).toBeLessThanOrEqual(4000)
    expect(
      merged.result.excerpt.startsWith(
        '### test shard 63/64: error\nloop-controller: no verdict from test shard 63/64: cancelled',
      ),
    ).toBe(true)
    expect(merged.result.excerpt).toContain('### test shard 64/64')
  })

  it.each([
    {
      name: 'a test failing in any shard fails',
      sets: [{ 'test:a': 'pass' }, { 'test:a': 'fail' }, { 'test:a': 'pass' }],
      want: { 'test:a': 'fail' },
    },
    {
      name: 'tests of each shard are kept',
      sets: [{ 'test:a': 'pass' }, { 'test:b': 'fail' }],
      want: { 'test:a': 'pass', 'test:b': 'fail' },
    },
    { name: 'no sets', sets: [], want: {} },
  ] as const)('unites JUnit verdicts: $name', ({ sets, want }) => {
    expect(unionTests(sets)).toEqual(want)
    const reports = sets.map((tests, i) => ({ shard: i + 1, result: result('pass'), tests }))
    if (reports.length > 0) expect(mergeShards(CHECK, reports.length, reports).tests).toEqual(want)
  })
})

describe('the check that runs one leg alone', () => {
  const base: Omit<CheckConfig, 'run' | 'env'> = {
    name: 'test',
    kind: 'test' as const,
    needs: [],
    timeout: 60,
    required: true,
    pre: false,
    'verify-only': false,
  }
  const cases: { name: string; check: CheckConfig; shard: number; want: CheckConfig }[] = [
    {
      name: 'a sharded check with a JUnit path',
      check: {
        ...base,
        run: 'vitest run --shard={shard}/{shards}',
        junit: 'j-{shard}.xml',
        shards: 4,
        env: { CI: '1' },
      },
      shard: 2,
      want: {
        ...base,
        run: 'vitest run --shard=2/4',
        junit: 'j-2.xml',
        env: { CI: '1', LOOP_SHARD: '2', LOOP_SHARDS: '4' },
      },
    },
    {
      name: 'a leg whose env overrides the check own LOOP_SHARD',
      check: { ...base, run: ['t', '$LOOP_SHARD'], shards: 2, env: { LOOP_SHARD: 'x' } },
      shard: 1,
      want: { ...base, run: ['t', '$LOOP_SHARD'], env: { LOOP_SHARD: '1', LOOP_SHARDS: '2' } },
    },
  ]
  it.each(cases)('$name', ({ check, shard, want }) => {
    expect(legCheck(check, legOf(check, shard))).toEqual(want)
  })
})
