// Fan-out's flake check as the hand-off files carry it and decide judges it: the verdict's `flakeCheck`
// validated like the rest of the verdict, handed on by mergeVerdicts only for a leg whose verdict holds,
// and a check flaky only when every failing leg could be a flake and passed its re-run.
import { describe, expect, it } from 'vitest'
import {
  legsOf,
  mergeVerdicts,
  parseHandOff,
  type VerdictFile,
  verdictFileSchema,
} from '../../../src/domain/fan-out.js'
import { flakeRerun, MAX_SELECTED_TESTS } from '../../../src/domain/flake-rerun.js'
import {
  describeLegFlaky,
  describeLegReruns,
  type FailingLeg,
  judgeLegFlakes,
  type LegFlakeCheck,
  legFlakeCheck,
  legRerunData,
  MAX_FLAKE_TEST_CHARS,
} from '../../../src/domain/leg-flake.js'

const B = 'b'.repeat(40)
const failedRun = {
  exitCode: 1,
  signal: null,
  timedOut: false,
  durationMs: 5,
  output: 'FAIL test/a.test.ts > a > works\n',
  totalBytes: 32,
  truncated: false,
}
const wholeCheck: LegFlakeCheck = {
  scope: 'check',
  reason: 'the command is not a test runner',
  attempts: 1,
  passed: true,
}
const twoTests: LegFlakeCheck = {
  scope: 'tests',
  runner: 'vitest',
  tests: ['a works', 'b works'],
  attempts: 2,
  passed: true,
}
const verdict = (over: Partial<VerdictFile> = {}): VerdictFile => ({
  version: 2,
  loopId: 'demo',
  iteration: 2,
  candidate: B,
  leg: 'unit',
  check: 'unit',
  run: failedRun,
  ...over,
})
const parse = (value: unknown) => parseHandOff(verdictFileSchema, JSON.stringify(value), 'verdict')

describe('a verdict’s flake check', () => {
  it.each([
    { title: 'a whole-check re-run that passed', flakeCheck: wholeCheck },
    { title: 'a re-run of the failing tests that failed again', flakeCheck: { ...twoTests, passed: false } },
    { title: 'pytest’s last failed tests, with no names', flakeCheck: { ...twoTests, runner: 'pytest', tests: [] } },
  ])('reads back $title as written', ({ flakeCheck }) => {
    const written = verdict({ flakeCheck: flakeCheck as LegFlakeCheck })
    expect(parse(written)).toEqual(written)
  })

  it.each([
    { title: 'no attempt', flakeCheck: { ...wholeCheck, attempts: 0 }, message: /flakeCheck\.attempts/ },
    { title: 'more attempts than a config allows', flakeCheck: { ...wholeCheck, attempts: 4 }, message: /attempts/ },
    { title: 'an unknown scope', flakeCheck: { ...wholeCheck, scope: 'shards' }, message: /flakeCheck/ },
    {
      title: 'a runner the flake check does not know',
      flakeCheck: { ...twoTests, runner: 'mocha' },
      message: /runner/,
    },
    {
      title: 'a whole-check re-run naming tests',
      flakeCheck: { ...wholeCheck, tests: ['a'] },
      message: /Unrecognized/,
    },
    {
      title: 'a narrowed re-run without its tests',
      flakeCheck: { ...wholeCheck, scope: 'tests', runner: 'go' },
      message: /tests/,
    },
    {
      title: 'more test names than the flake check selects',
      flakeCheck: { ...twoTests, tests: Array.from({ length: MAX_SELECTED_TESTS + 1 }, (_, i) => `t${i}`) },
      message: /flakeCheck\.tests/,
    },
    {
      title: 'a test name longer than a verdict keeps',
      flakeCheck: { ...twoTests, tests: ['x'.repeat(MAX_FLAKE_TEST_CHARS + 1)] },
      message: /flakeCheck\.tests\.0/,
    },
    {
      title: 'a reason longer than a verdict keeps',
      flakeCheck: { ...wholeCheck, reason: 'r'.repeat(501) },
      message: /reason/,
    },
    { title: 'no outcome', flakeCheck: { scope: 'check', reason: 'x', attempts: 1 }, message: /passed/ },
    { title: 'a negative re-run time', flakeCheck: { ...wholeCheck, durationMs: -1 }, message: /durationMs/ },
    { title: 'a fractional re-run time', flakeCheck: { ...wholeCheck, durationMs: 1.5 }, message: /durationMs/ },
    {
      title: 'a re-run longer than a job can run',
      flakeCheck: { ...twoTests, durationMs: 5 * 24 * 60 * 60_000 + 1 },
      message: /durationMs/,
    },
  ])('refuses $title', ({ flakeCheck, message }) => {
    expect(() => parse({ ...verdict(), flakeCheck })).toThrow(message)
  })

  it.each([
    { title: 'a run that passed', run: { ...failedRun, exitCode: 0 } },
    { title: 'a run that timed out', run: { ...failedRun, exitCode: null, timedOut: true } },
  ])('refuses a flake check after $title (the leg re-runs only a failure a flake could be)', ({ run }) => {
    expect(() => parse(verdict({ run, flakeCheck: wholeCheck }))).toThrow(
      /flakeCheck: a flake check follows only a run that failed and did not time out/,
    )
  })
})

describe('legFlakeCheck: what a leg records of its re-run', () => {
  const redact = (text: string) => text.replaceAll('s3cret', '***')

  it.each([
    {
      title: 'a whole-check re-run keeps its reason',
      rerun: flakeRerun({ kind: 'test', run: 'make test', pattern: null, failingTests: null }),
      want: {
        scope: 'check',
        reason: 'the command is not a test runner that can select tests',
        attempts: 1,
        passed: true,
        durationMs: 0,
      },
    },
    {
      title: 'a narrowed re-run names its runner and tests',
      rerun: flakeRerun({
        kind: 'test',
        run: 'vitest run',
        pattern: null,
        failingTests: ['test/a.test.ts > a > works'],
      }),
      want: { scope: 'tests', runner: 'vitest', tests: ['a works'], attempts: 1, passed: true, durationMs: 0 },
    },
    {
      title: 'names are redacted, and one too long is left out',
      rerun: {
        scope: 'tests' as const,
        runner: 'go' as const,
        command: 'go test',
        tests: ['TestS3cret_s3cret', `Test${'x'.repeat(MAX_FLAKE_TEST_CHARS)}`],
      },
      want: { scope: 'tests', runner: 'go', tests: ['TestS3cret_***'], attempts: 1, passed: true, durationMs: 0 },
    },
  ])('$title', ({ rerun, want }) => {
    if (rerun.scope === 'none') throw new Error('expected a re-run')
    const recorded = legFlakeCheck(rerun, 1, true, redact)
    expect(recorded).toEqual(want)
    expect(parse(verdict({ flakeCheck: recorded })).flakeCheck).toEqual(want)
  })

  it.each([
    { rerunMs: 1234.4, want: 1234 },
    { rerunMs: -3, want: 0 },
    { rerunMs: 6 * 24 * 60 * 60_000, want: 5 * 24 * 60 * 60_000 },
  ])('records the re-runs’ time $rerunMs ms as $want (the leg’s time counts it)', ({ rerunMs, want }) => {
    const rerun = flakeRerun({ kind: 'test', run: 'make test', pattern: null, failingTests: null })
    if (rerun.scope === 'none') throw new Error('expected a re-run')
    expect(legFlakeCheck(rerun, 2, false, (text) => text, rerunMs).durationMs).toBe(want)
  })
})

describe('judgeLegFlakes', () => {
  const on = { enabled: true, reruns: 1 }
  const leg = (over: Partial<FailingLeg> = {}): FailingLeg => ({
    timedOut: false,
    flakePossible: true,
    flakeCheck: wholeCheck,
    ...over,
  })
  const noFlakeCheck = (): FailingLeg => ({ timedOut: false, flakePossible: true })

  it.each([
    { title: 'one leg that passed its re-run', legs: [leg()], config: on, flaky: true, reran: 1 },
    {
      title: 'every failing shard passed',
      legs: [leg({ shard: 1 }), leg({ shard: 3 })],
      config: on,
      flaky: true,
      reran: 2,
    },
    {
      title: 'one failing shard failed again',
      legs: [leg({ shard: 1 }), leg({ shard: 2, flakeCheck: { ...wholeCheck, passed: false } })],
      config: on,
      flaky: false,
      reran: 2,
    },
    {
      title: 'a failing shard without a verdict (infrastructure)',
      legs: [leg({ shard: 1 }), noFlakeCheck()],
      config: on,
      flaky: false,
      reran: 1,
    },
    { title: 'a leg that timed out', legs: [leg({ timedOut: true })], config: on, flaky: false, reran: 1 },
    {
      title: 'a failure decide judges no flake (a lint)',
      legs: [leg({ flakePossible: false })],
      config: on,
      flaky: false,
      reran: 1,
    },
    {
      title: 'more attempts than the config allows',
      legs: [leg({ flakeCheck: { ...wholeCheck, attempts: 2 } })],
      config: on,
      flaky: false,
      reran: 1,
    },
    {
      title: 'two attempts where the config allows them',
      legs: [leg({ flakeCheck: { ...wholeCheck, attempts: 2 } })],
      config: { enabled: true, reruns: 2 },
      flaky: true,
      reran: 1,
    },
    {
      title: 'the flake check off (the legs’ reports are not heard)',
      legs: [leg()],
      config: { enabled: false, reruns: 1 },
      flaky: false,
      reran: 0,
    },
    { title: 'no failing leg', legs: [], config: on, flaky: false, reran: 0 },
  ])('$title', ({ legs, config, flaky, reran }) => {
    const judged = judgeLegFlakes(legs, config)
    expect(judged.flaky).toBe(flaky)
    expect(judged.reran).toHaveLength(reran)
  })
})

describe('the journey’s lines of a flake check in the legs', () => {
  it.each([
    {
      title: 'a plain check, re-run whole',
      reran: [{ flakeCheck: wholeCheck }],
      shards: undefined,
      check: 're-running the whole check (the command is not a test runner) in its leg',
      flaky: 'failed, then passed when re-run in its leg (flaky, no retry spent)',
      data: { scope: 'check', reason: 'the command is not a test runner', inLegs: true },
    },
    {
      title: 'a plain check, its failing tests',
      reran: [{ flakeCheck: twoTests }],
      shards: undefined,
      check: 're-running only the 2 failing tests (vitest) in its leg',
      flaky: 'failed, its failing tests passed when re-run in its leg (flaky, no retry spent)',
      data: { scope: 'tests', runner: 'vitest', tests: ['a works', 'b works'], inLegs: true },
    },
    {
      title: 'pytest’s last failed tests',
      reran: [{ flakeCheck: { ...twoTests, runner: 'pytest' as const } }],
      shards: undefined,
      check: 're-running the last failed tests (pytest) in its leg',
      flaky: 'failed, its failing tests passed when re-run in its leg (flaky, no retry spent)',
      data: { scope: 'tests', runner: 'pytest', tests: ['a works', 'b works'], inLegs: true },
    },
    {
      title: 'one failing shard',
      reran: [{ shard: 2, flakeCheck: wholeCheck }],
      shards: 2,
      check: 're-running only the failing shard 2/2 of 2 in its leg (test shard 2/2: the whole shard)',
      flaky: 'failed, then its failing shard passed when re-run in its leg (flaky, no retry spent)',
      data: { scope: 'shards', shards: [2], inLegs: true },
    },
    {
      title: 'two failing shards',
      reran: [
        { shard: 1, flakeCheck: twoTests },
        { shard: 3, flakeCheck: wholeCheck },
      ],
      shards: 4,
      check:
        're-running only the failing shards 1/4, 3/4 of 4 in their legs (test shard 1/4: only its failing tests (vitest); test shard 3/4: the whole shard)',
      flaky: 'failed, then its failing shards passed when re-run in their legs (flaky, no retry spent)',
      data: { scope: 'shards', shards: [1, 3], inLegs: true },
    },
  ])('$title', ({ reran, shards, check, flaky, data }) => {
    expect(describeLegReruns('test', reran, shards)).toBe(check)
    expect(describeLegFlaky(reran, shards !== undefined)).toBe(flaky)
    expect(legRerunData(reran, shards)).toEqual(data)
  })
})

describe('mergeVerdicts hands on the legs’ flake checks', () => {
  const config = {
    checks: [
      { name: 'unit', run: 'u' },
      { name: 'test', run: 't {shard}', shards: 2 },
    ],
  } as Parameters<typeof legsOf>[0]
  const legs = legsOf(config)
  const expected = { loopId: 'demo', iteration: 2, candidate: B, verifyResult: 'success' }

  it.each([
    {
      title: 'under each leg’s run key, a plain check’s and a shard’s',
      verdicts: [
        verdict({ flakeCheck: wholeCheck }),
        verdict({ leg: 'test shard 2/2', check: 'test', flakeCheck: twoTests }),
      ],
      want: [
        ['unit', wholeCheck],
        ['test#2', twoTests],
      ],
    },
    {
      title: 'none from a verdict for another candidate (that leg has no verdict)',
      verdicts: [verdict({ candidate: 'c'.repeat(40), flakeCheck: wholeCheck })],
      want: [],
    },
    { title: 'none from a leg that re-ran nothing', verdicts: [verdict()], want: [] },
  ])('$title', ({ verdicts, want }) => {
    expect([...mergeVerdicts(legs, verdicts, expected).flakeChecks]).toEqual(want)
  })
})
