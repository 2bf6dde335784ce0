import { describe, expect, it } from 'vitest'
import {
  FanOutError,
  legsOf,
  MAX_MATRIX_LEGS,
  matrixOf,
  mergeVerdicts,
  noVerdict,
  type PlanFile,
  parseHandOff,
  planFileSchema,
  type VerdictFile,
  verdictFileSchema,
} from '../../../src/domain/fan-out.js'

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
        /Checks 'unit tests' and 'unit_tests' would upload their verdicts under one artifact name \(loop-verdict-unit_tests\)/,
    },
  ])('refuses $title', ({ names, message }) => {
    expect(() => legsOf(checksNamed(...names))).toThrow(FanOutError)
    expect(() => legsOf(checksNamed(...names))).toThrow(message)
  })

  it('makes the verify job a matrix of include entries', () => {
    expect(matrixOf(legsOf(checksNamed('lint')))).toEqual({
      include: [{ leg: 'lint', check: 'lint', artifact: 'loop-verdict-lint' }],
    })
  })
})

const plan: PlanFile = {
  version: 1,
  loopId: 'demo',
  stateVersion: 'v1',
  iteration: 2,
  stage: 'IMPLEMENT',
  base: A,
  candidate: B,
  report: { work: null, tasksCompleted: [], tasksFailed: [], baseline: null, usage: [], events: [] },
  legs: [{ leg: 'lint', check: 'lint', artifact: 'loop-verdict-lint' }],
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
const verdict: VerdictFile = { version: 1, loopId: 'demo', iteration: 2, candidate: B, leg: 'lint', check: 'lint', run }

describe('hand-off files', () => {
  it('reads a valid plan and verdict back as written', () => {
    expect(parseHandOff(planFileSchema, JSON.stringify(plan), 'plan.json')).toEqual(plan)
    expect(parseHandOff(verdictFileSchema, JSON.stringify(verdict), 'verdict')).toEqual(verdict)
  })

  it.each([
    { title: 'text that is not JSON', text: '{', message: /^plan.json is not JSON: / },
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
      title: 'a plan report with an event the plan may not write',
      text: JSON.stringify({
        ...plan,
        report: { ...plan.report, events: [{ at: 'x', iteration: 2, type: 'completed', message: 'done' }] },
      }),
      message: /report\.events\.0\.type/,
    },
  ])('refuses $title', ({ text, message }) => {
    expect(() => parseHandOff(planFileSchema, text, 'plan.json')).toThrow(message)
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
    const merged = mergeVerdicts(plan.legs, verdicts, expected).get('lint')
    expect(merged?.output).toBe(output)
    expect(merged?.spawnError).toBe(spawnError)
  })

  it('names what is wrong with a verdict file that could not be read', () => {
    const unreadable = new Map([['loop-verdict-lint', 'The verdict file loop-verdict-lint.json is not JSON']])
    const merged = mergeVerdicts(plan.legs, [], expected, unreadable).get('lint')
    expect(merged?.spawnError).toBe(
      line('its verdict file is not valid (The verdict file loop-verdict-lint.json is not JSON)'),
    )
  })

  it('a leg without a verdict is never a pass: no exit code, a start failure (the matrix calls it error)', () => {
    expect(noVerdict('unit', 'cancelled')).toMatchObject({
      exitCode: null,
      spawnError: 'loop-controller: no verdict from unit: cancelled',
    })
  })
})
