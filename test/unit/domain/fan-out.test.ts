import { describe, expect, it } from 'vitest'
import {
  boundedTests,
  FanOutError,
  iterationLegs,
  legRunKey,
  legsOf,
  MAX_LEG_TESTS,
  MAX_MATRIX_LEGS,
  MAX_TEST_ID_CHARS,
  matrixOf,
  mergeVerdicts,
  noVerdict,
  type PlanFile,
  parseHandOff,
  planFileSchema,
  type VerdictFile,
  verdictFileSchema,
} from '../../../src/domain/fan-out.js'
import { MAX_JOB_WALL_MS } from '../../../src/domain/fan-out-time.js'
import { testKey } from '../../../src/domain/test-ids.js'

const checksNamed = (...names: string[]) =>
  ({ checks: names.map((name) => ({ name })) }) as Parameters<typeof legsOf>[0]
const A = 'a'.repeat(40)
const B = 'b'.repeat(40)

describe('legsOf', () => {
  it.each([
    { title: 'one leg per check, in order', names: ['lint', 'unit'], legs: ['lint', 'unit'] },
    { title: 'no checks, no legs', names: [], legs: [] },
    {
      title: `exactly ${MAX_MATRIX_LEGS} checks fit`,
      names: Array.from({ length: 256 }, (_, i) => `c${i}`),
      legs: 256,
    },
  ])('$title', ({ names, legs }) => {
    const got = legsOf(checksNamed(...names))
    if (typeof legs === 'number') expect(got).toHaveLength(legs)
    else expect(got.map((l) => l.leg)).toEqual(legs)
    for (const leg of got)
      expect(leg).toEqual({ leg: leg.check, check: leg.check, artifact: `loop-verdict-${leg.check}` })
  })

  it.each([
    {
      title: 'a matrix wider than GitHub runs, naming the check count',
      names: Array.from({ length: 257 }, (_, i) => `c${i}`),
      message: /has 257 checks; .* at most 256 jobs from one matrix/,
    },
    {
      title: 'two checks whose verdicts would share an artifact name',
      names: ['unit tests', 'unit_tests'],
      message:
        /Legs 'unit tests' and 'unit_tests' would upload their verdicts under one artifact name \(loop-verdict-unit_tests\)/,
    },
  ])('refuses $title', ({ names, message }) => {
    expect(() => legsOf(checksNamed(...names))).toThrow(FanOutError)
    expect(() => legsOf(checksNamed(...names))).toThrow(message)
  })

  it('runs a sharded check as one leg per shard, each with its own artifact', () => {
    const config = {
      checks: [
        { name: 'lint', run: 'lint' },
        { name: 'test', run: 'vitest --shard={shard}/{shards}', shards: 3 },
      ],
    } as Parameters<typeof legsOf>[0]
    expect(legsOf(config)).toEqual([
      { leg: 'lint', check: 'lint', artifact: 'loop-verdict-lint' },
      { leg: 'test shard 1/3', check: 'test', artifact: 'loop-verdict-test_shard_1_3', shard: 1, shards: 3 },
      { leg: 'test shard 2/3', check: 'test', artifact: 'loop-verdict-test_shard_2_3', shard: 2, shards: 3 },
      { leg: 'test shard 3/3', check: 'test', artifact: 'loop-verdict-test_shard_3_3', shard: 3, shards: 3 },
    ])
  })

  it.each([
    { title: '4 checks of 64 shards fit (256 legs)', sharded: 4, plain: 0, fits: true },
    { title: '4 checks of 64 shards and one more check do not', sharded: 4, plain: 1, fits: false },
  ])('counts legs, checks x shards, against the limit: $title', ({ sharded, plain, fits }) => {
    const checks = [
      ...Array.from({ length: sharded }, (_, i) => ({ name: `s${i}`, run: 'run {shard}', shards: 64 })),
      ...Array.from({ length: plain }, (_, i) => ({ name: `p${i}`, run: 'run' })),
    ]
    const legs = () => legsOf({ checks } as Parameters<typeof legsOf>[0])
    if (fits) expect(legs()).toHaveLength(256)
    else
      expect(legs).toThrow(
        /^The loop config has 5 checks; fan-out runs 257 verify jobs \(one per check, one per shard of a sharded check \(s0: 64 shards, s1: 64 shards, s2: 64 shards, s3: 64 shards\)\) and GitHub runs at most 256 jobs from one matrix\. Use fewer shards/,
      )
  })

  it.each([
    { title: 'a check', needs: ['build'], pre: false },
    { title: 'a pre check', needs: ['build'], pre: true },
  ])('refuses a needs between checks, naming both and why: $title', ({ needs, pre }) => {
    const config = {
      checks: [
        { name: 'build', run: 'npm run build', needs: [], pre },
        { name: 'unit', run: 'npm test', needs, pre },
      ],
    } as unknown as Parameters<typeof legsOf>[0]
    expect(() => legsOf(config)).toThrow(FanOutError)
    expect(() => legsOf(config)).toThrow(
      /^checks\.unit\.needs: check 'unit' needs 'build', and in fan-out each check runs in its own verify job on a fresh runner, so 'unit' would not see what 'build' made there\. .* verify-setup/,
    )
  })

  it.each([
    {
      title: 'with the verify-only checks where the iteration may reach VERIFY',
      verifyOnly: true,
      legs: ['unit', 'e2e shard 1/2', 'e2e shard 2/2', 'lint'],
    },
    { title: 'without them elsewhere', verifyOnly: false, legs: ['unit', 'lint'] },
  ])('gives an iteration its legs $title', ({ verifyOnly, legs }) => {
    const config = {
      checks: [
        { name: 'unit', run: 'npm test', needs: [] },
        { name: 'e2e', run: 'e2e {shard}', needs: [], 'verify-only': true, shards: 2 },
        { name: 'lint', run: 'lint', needs: [], 'verify-only': false },
      ],
    } as unknown as Parameters<typeof legsOf>[0]
    expect(iterationLegs(legsOf(config), config.checks, verifyOnly).map((l) => l.leg)).toEqual(legs)
  })

  it('makes the verify job a matrix of include entries', () => {
    expect(matrixOf(legsOf(checksNamed('lint')))).toEqual({
      include: [{ leg: 'lint', check: 'lint', artifact: 'loop-verdict-lint' }],
    })
  })
})

const plan: PlanFile = {
  version: 2,
  loopId: 'demo',
  stateVersion: 'v1',
  iteration: 2,
  stage: 'IMPLEMENT',
  base: A,
  candidate: B,
  report: { work: null, tasksCompleted: [], tasksFailed: [], usage: [], events: [], wallMs: 4200 },
  legs: [{ leg: 'lint', check: 'lint', artifact: 'loop-verdict-lint' }],
  baseline: false,
}
const run = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  durationMs: 5,
  output: 'ok\n',
  totalBytes: 3,
  truncated: false,
}
const verdict: VerdictFile = { version: 2, loopId: 'demo', iteration: 2, candidate: B, leg: 'lint', check: 'lint', run }

describe('hand-off files', () => {
  it('reads a valid plan and verdict back as written', () => {
    expect(parseHandOff(planFileSchema, JSON.stringify(plan), 'plan.json')).toEqual(plan)
    expect(parseHandOff(verdictFileSchema, JSON.stringify(verdict), 'verdict')).toEqual(verdict)
  })

  it('refuses a verdict of version 1, which carried a run at the base of its own', () => {
    const old = { ...verdict, version: 1, baseline: { commit: A, verdict: 'pass', durationMs: 1 } }
    expect(() => parseHandOff(verdictFileSchema, JSON.stringify(old), 'verdict')).toThrow(
      /version: Invalid input: expected 2; \(top\): Unrecognized key: "baseline"/,
    )
  })

  it('reads a baseline round’s plan: no work, its base as the candidate', () => {
    const round = { ...plan, candidate: A, baseline: true }
    expect(parseHandOff(planFileSchema, JSON.stringify(round), 'plan.json')).toEqual(round)
  })

  it.each([
    { title: 'text that is not JSON', text: '{', message: /^plan.json is not JSON: / },
    {
      title: 'a plan of version 1 (its legs ran the baseline beside the candidate)',
      text: JSON.stringify({ ...plan, version: 1 }),
      message: /version: Invalid input: expected 2/,
    },
    {
      title: 'a plan that does not say whether it is a baseline round',
      text: JSON.stringify({ ...plan, baseline: undefined }),
      message: /baseline: Invalid input: expected boolean/,
    },
    {
      title: 'a baseline round whose candidate is not its base',
      text: JSON.stringify({ ...plan, baseline: true }),
      message: /baseline: a baseline round has an iteration, does no work and names its base as the candidate/,
    },
    {
      title: 'a baseline round that did work',
      text: JSON.stringify({
        ...plan,
        candidate: A,
        baseline: true,
        report: { ...plan.report, work: { exitCode: 0, blocked: false, durationMs: 1 } },
      }),
      message: /baseline: a baseline round has an iteration/,
    },

    {
      title: 'a candidate that is not a commit id',
      text: JSON.stringify({ ...plan, candidate: 'HEAD' }),
      message: /candidate: a full commit id/,
    },
    {
      title: 'an unknown field',
      text: JSON.stringify({ ...plan, extra: 1 }),
      message: /is not a valid hand-off file: \(top\): Unrecognized key/,
    },
    {
      title: 'a leg whose artifact is no verdict artifact',
      text: JSON.stringify({ ...plan, legs: [{ leg: 'x', check: 'x', artifact: '../x' }] }),
      message: /legs\.0\.artifact/,
    },
    {
      title: 'a leg that names its shard without how many',
      text: JSON.stringify({ ...plan, legs: [{ leg: 'x', check: 'x', artifact: 'loop-verdict-x', shard: 2 }] }),
      message: /legs\.0: a leg names its shard and how many shards together/,
    },
    {
      title: 'a leg whose shard is past their count',
      text: JSON.stringify({
        ...plan,
        legs: [{ leg: 'x', check: 'x', artifact: 'loop-verdict-x', shard: 5, shards: 4 }],
      }),
      message: /legs\.0: a leg names its shard/,
    },
    {
      title: 'a plan report with an event the plan may not write',
      text: JSON.stringify({
        ...plan,
        report: { ...plan.report, events: [{ at: 'x', iteration: 2, type: 'completed', message: 'done' }] },
      }),
      message: /report\.events\.0\.type/,
    },
    ...[
      { what: 'a negative', wallMs: -1, message: /report\.wallMs: Too small/ },
      { what: 'a fractional', wallMs: 1.5, message: /report\.wallMs: Invalid input: expected int/ },
      { what: 'a longer than a job runs', wallMs: MAX_JOB_WALL_MS + 1, message: /report\.wallMs: Too big/ },
      { what: 'a textual', wallMs: '60000', message: /report\.wallMs: Invalid input: expected number/ },
    ].map(({ what, wallMs, message }) => ({
      title: `a plan report with ${what} wall time`,
      text: JSON.stringify({ ...plan, report: { ...plan.report, wallMs } }),
      message,
    })),
    {
      title: 'a plan report without its wall time',
      text: JSON.stringify({ ...plan, report: { ...plan.report, wallMs: undefined } }),
      message: /report\.wallMs: Invalid input: expected number/,
    },
  ])('refuses $title', ({ text, message }) => {
    expect(() => parseHandOff(planFileSchema, text, 'plan.json')).toThrow(message)
  })

  it.each([
    { title: 'more test verdicts than a leg hands on', tests: manyTests(MAX_LEG_TESTS + 1), message: /tests: at most/ },
    {
      title: 'a test id longer than a leg keeps',
      tests: { [`t:${'x'.repeat(MAX_TEST_ID_CHARS)}`]: 'pass' },
      message: /tests\./,
    },
    { title: 'a test verdict that is neither pass nor fail', tests: { 't:a': 'skipped' }, message: /tests\.t:a/ },
  ])('refuses a verdict with $title', ({ tests, message }) => {
    expect(() => parseHandOff(verdictFileSchema, JSON.stringify({ ...verdict, tests }), 'verdict')).toThrow(message)
  })

  it('refuses a verdict whose output is larger than a verdict carries', () => {
    const big = { ...verdict, run: { ...run, output: 'x'.repeat(256 * 1024 + 1) } }
    expect(() => parseHandOff(verdictFileSchema, JSON.stringify(big), 'verdict')).toThrow(/run\.output/)
  })
})

describe('mergeVerdicts', () => {
  const expected = { loopId: 'demo', iteration: 2, candidate: B, verifyResult: 'failure' }
  const line = (reason: string) => `loop-controller: no verdict from lint: ${reason}`

  it.each([
    { title: 'its own verdict', verdicts: [verdict], output: 'ok\n', spawnError: undefined },
    {
      title: 'no verdict: the verify job result is named',
      verdicts: [],
      output: `${line("no verdict was uploaded (the verify job's result: failure)")}\n`,
      spawnError: line("no verdict was uploaded (the verify job's result: failure)"),
    },
    {
      title: 'a verdict for another candidate',
      verdicts: [{ ...verdict, candidate: A }],
      output: `${line(`its verdict is for commit ${A.slice(0, 12)}, not the candidate ${B.slice(0, 12)}`)}\n`,
      spawnError: line(`its verdict is for commit ${A.slice(0, 12)}, not the candidate ${B.slice(0, 12)}`),
    },
    {
      title: 'a verdict for another iteration',
      verdicts: [{ ...verdict, iteration: 1 }],
      output: `${line('its verdict is for loop demo iteration 1, not demo iteration 2')}\n`,
      spawnError: line('its verdict is for loop demo iteration 1, not demo iteration 2'),
    },
    {
      title: 'two verdicts for one leg',
      verdicts: [verdict, verdict],
      output: `${line('2 verdicts were uploaded for it')}\n`,
      spawnError: line('2 verdicts were uploaded for it'),
    },
  ])('$title', ({ verdicts, output, spawnError }) => {
    const merged = mergeVerdicts(plan.legs, verdicts, expected).runs.get('lint')
    expect(merged?.output).toBe(output)
    expect(merged?.spawnError).toBe(spawnError)
  })

  it('names why a leg whose artifact gave no verdict has none (decide reads the files and says why)', () => {
    const unreadable = new Map([
      ['loop-verdict-lint', 'its verdict file is not valid (The verdict file loop-verdict-lint.json is not JSON)'],
    ])
    const merged = mergeVerdicts(plan.legs, [], expected, unreadable).runs.get('lint')
    expect(merged?.spawnError).toBe(
      line('its verdict file is not valid (The verdict file loop-verdict-lint.json is not JSON)'),
    )
  })

  it("gives each shard leg its run under its own key, and unites the legs' test verdicts (fail wins)", () => {
    const legs = legsOf({
      checks: [{ name: 'test', run: 'run {shard}', shards: 3 }],
    } as Parameters<typeof legsOf>[0])
    const shard = (
      n: number,
      tests: Record<string, 'pass' | 'fail'>,
      extra: Partial<VerdictFile> = {},
    ): VerdictFile => ({
      ...verdict,
      leg: `test shard ${n}/3`,
      check: 'test',
      run: { ...run, output: `shard ${n}\n` },
      tests,
      ...extra,
    })
    const merged = mergeVerdicts(
      legs,
      [
        shard(1, { 'test:a': 'pass', 'test:b': 'fail', 'lint:x': 'fail' }),
        // Shard 3's verdict is for another candidate: neither its run nor its tests count.
        shard(2, { 'test:a': 'fail', 'test:c': 'pass' }),
        shard(3, { 'test:d': 'fail' }, { candidate: A }),
      ],
      expected,
    )
    expect([...merged.runs.keys()]).toEqual([legRunKey('test', 1), legRunKey('test', 2), legRunKey('test', 3)])
    expect(merged.runs.get('test#2')?.output).toBe('shard 2\n')
    expect(merged.runs.get('test#3')?.spawnError).toMatch(
      /^loop-controller: no verdict from test shard 3\/3: its verdict is for commit a{12}, not the candidate b{12}$/,
    )
    // A leg speaks for its own check's tests only.
    expect(merged.tests).toEqual({ 'test:a': 'fail', 'test:b': 'fail', 'test:c': 'pass' })
  })

  it('a leg without a verdict is never a pass: no exit code, a start failure (the matrix calls it error)', () => {
    expect(noVerdict('unit', 'cancelled')).toMatchObject({
      exitCode: null,
      spawnError: 'loop-controller: no verdict from unit: cancelled',
    })
  })
})

function manyTests(count: number): Record<string, 'pass' | 'fail'> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`t:${i}`, i % 3 === 0 ? 'fail' : 'pass']))
}

describe('boundedTests', () => {
  it.each([
    { title: 'a small set as it is', tests: { 't:a': 'pass', 't:b': 'fail' } as const, kept: 2, dropped: 0 },
    {
      title: 'a test id too long kept, under its bounded key',
      tests: { [`t:${'x'.repeat(MAX_TEST_ID_CHARS)}`]: 'fail', 't:b': 'pass' } as const,
      kept: 2,
      dropped: 0,
    },
    { title: 'too many: the limit kept', tests: manyTests(MAX_LEG_TESTS + 50), kept: MAX_LEG_TESTS, dropped: 50 },
  ])('$title', ({ tests, kept, dropped }) => {
    const bounded = boundedTests(tests)
    expect(Object.keys(bounded.tests)).toHaveLength(kept)
    expect(bounded.dropped).toBe(dropped)
    expect(
      parseHandOff(verdictFileSchema, JSON.stringify({ ...verdict, tests: bounded.tests }), 'verdict').tests,
    ).toEqual(bounded.tests)
  })

  it('keys a long test id as the baseline keys it (junitResults: testKey), so its regression is seen', () => {
    const id = `renders ${'case '.repeat(60)}`
    const bounded = boundedTests({ [`unit:${id}`]: 'fail' })
    expect(bounded.tests).toEqual({ [testKey('unit', id)]: 'fail' })
    expect(Object.keys(bounded.tests)[0]).toHaveLength(MAX_TEST_ID_CHARS)
  })

  it('keeps every failing test before any passing one', () => {
    const tests = manyTests(MAX_LEG_TESTS * 2)
    const failing = Object.values(tests).filter((v) => v === 'fail').length
    const bounded = boundedTests(tests)
    expect(Object.values(bounded.tests).filter((v) => v === 'fail')).toHaveLength(failing)
  })
})
