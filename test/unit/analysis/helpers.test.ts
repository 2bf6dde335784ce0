import { describe, expect, it } from 'vitest'
import {
  aggregateMetrics,
  buildDeadLetter,
  countTokens,
  detectRegressions,
  inspectProtectedChanges,
  matchGlob,
  parseJUnit,
  regressionEnabled,
} from '../../../src/domain/analysis/index.js'
import { type FailureRecord, metricsSchema } from '../../../src/domain/state.js'

describe('parseJUnit', () => {
  it.each([
    ['', []],
    ['<testsuite><testcase classname="a" name="t1"/></testsuite>', [{ id: 'a.t1', status: 'pass' }]],
    [
      '<testcase name="x &amp; y" classname="S"><failure message="no"/></testcase><testcase name="e"><error/></testcase><testcase name="s"><skipped/></testcase>',
      [
        { id: 'S.x & y', status: 'fail' },
        { id: 'e', status: 'fail' },
        { id: 's', status: 'skipped' },
      ],
    ],
    ['<testcase classname="no-name"/>', []],
    ['not xml at all <<<', []],
  ])('%s', (xml, expected) => {
    expect(parseJUnit(xml)).toEqual(expected)
  })
})

describe('detectRegressions and regressionEnabled', () => {
  it.each([
    [
      { checks: { build: 'pass', test: 'fail' }, tests: { a: 'pass' } },
      { checks: { build: 'fail', test: 'fail' }, tests: { a: 'fail', b: 'fail' } },
      { checks: ['build'], tests: ['a'] },
    ],
    [
      { checks: {}, tests: {} },
      { checks: { build: 'fail' }, tests: {} },
      { checks: [], tests: [] },
    ],
    [
      { checks: { lint: 'fail' }, tests: {} },
      { checks: { lint: 'pass' }, tests: {} },
      { checks: [], tests: [] },
    ],
  ] as const)('regressions %#', (baseline, current, expected) => {
    expect(detectRegressions(baseline, current)).toEqual(expected)
  })
  it.each([
    ['low', 'auto', false],
    ['medium', 'auto', true],
    ['high', 'auto', true],
    ['low', 'on', true],
    ['high', 'off', false],
  ] as const)('%s/%s -> %s', (complexity, setting, expected) => {
    expect(regressionEnabled(complexity, setting)).toBe(expected)
  })
})

describe('matchGlob', () => {
  it.each([
    ['.github/**', '.github/workflows/ci.yml', true],
    ['.github/**', '.githubx/a', false],
    ['**/*.test.ts', 'a.test.ts', true],
    ['**/*.test.ts', 'src/deep/a.test.ts', true],
    ['src/*.ts', 'src/deep/a.ts', false],
    ['test/**/fixtures/*.txt', 'test/fixtures/a.txt', true],
    ['a?c', 'abc', true],
    ['a.b', 'axb', false],
    ['./src/**', 'src/a', true],
  ] as const)('%s ~ %s = %s', (glob, path, expected) => {
    expect(matchGlob(glob, path)).toBe(expected)
  })
})

describe('inspectProtectedChanges', () => {
  const rules = {
    protectedGlobs: ['.github/**', '.github/loop.yml'],
    testGlobs: ['**/*.test.ts', 'tests/**/*.py', '**/*_test.go'],
  }
  it.each([
    [{ path: '.github/workflows/ci.yml', before: 'a', after: 'b' }, [/protected path modified/]],
    [
      { path: 'src/a.test.ts', before: 'expect(a).toBe(1)\nexpect(b).toBe(2)', after: 'expect(a).toBe(1)' },
      [/lost assertions \(2 -> 1\)/],
    ],
    [{ path: 'src/a.test.ts', before: "it('a', () => {})", after: "it.skip('a', () => {})" }, [/gained skips/]],
    [{ path: 'src/a.test.ts', before: "it('a')", after: "xit('a')\ntest.todo('b')" }, [/gained skips \(0 -> 2\)/]],
    [
      { path: 'tests/test_x.py', before: 'def test(): assert x', after: '@pytest.mark.skip\ndef test(): assert x' },
      [/gained skips/],
    ],
    [
      {
        path: 'pkg/a_test.go',
        before: 'func TestA(t *testing.T) {}',
        after: 'func TestA(t *testing.T) { t.Skip("later") }',
      },
      [/gained skips/],
    ],
    [{ path: 'src/a.test.ts', before: 'expect(a).toBe(1)', after: null }, [/deleted with 1 assertion/]],
    [{ path: 'src/a.ts', before: 'x', after: 'y' }, []],
    [{ path: 'src/a.test.ts', before: 'expect(a)', after: 'expect(a)\nexpect(b)' }, []],
  ])('%j', (change, reasons) => {
    const findings = inspectProtectedChanges([change], rules)
    expect(findings.length).toBe(reasons.length)
    for (const [i, reason] of reasons.entries()) expect(findings[i]?.reason).toMatch(reason)
  })
})

const failure = (iteration: number, error: string, overrides: Partial<FailureRecord> = {}): FailureRecord => ({
  iteration,
  stage: 'VERIFY',
  capability: null,
  check: 'test',
  error,
  pattern: null,
  confidence: null,
  strategy: 'analyze_then_fix',
  signature: 'unknown:none:1a2b3c4d',
  tokens: ['widget', 'exploded', '<n>'],
  resolution: 'open',
  at: `2026-01-0${iteration}T00:00:00Z`,
  ...overrides,
})

describe('buildDeadLetter', () => {
  it('finds similar failures, keeps suggestions short and proposes a candidate pattern at 3', () => {
    const history = [1, 2, 3].map((i) => failure(i, `step ${i}\nWidgetFactory exploded at frame ${i * 7}\n`))
    const current = failure(4, 'step 4\nWidgetFactory exploded at frame 99\n')
    const letter = buildDeadLetter({
      loopId: 'L1',
      failure: current,
      history,
      tried: [{ strategy: 'analyze_then_fix', iteration: 3, outcome: 'failed' }],
    })
    expect(letter.signature).toBe('unknown:none:1a2b3c4d')
    expect(letter.similar).toHaveLength(3)
    const s = letter.suggestions
    expect(countTokens(`${s.rootCause} ${s.whereToLook} ${s.alternative}`)).toBeLessThan(200)
    expect(letter.candidatePattern?.signals).toEqual(['WidgetFactory exploded at frame'])
    expect(letter.markdown).toContain('## Candidate pattern (for review)')
  })
  it('proposes nothing when the failures were matched confidently', () => {
    const history = [1, 2, 3].map((i) => failure(i, 'boom', { pattern: 'test-failure', confidence: 0.9 }))
    const letter = buildDeadLetter({
      loopId: 'L1',
      failure: failure(4, 'boom', { pattern: 'test-failure', confidence: 0.9 }),
      history,
      tried: [],
    })
    expect(letter.candidatePattern).toBeUndefined()
    expect(letter.suggestions.rootCause).toMatch(/test expectation/)
  })
})

describe('aggregateMetrics', () => {
  it('computes rates by pattern', () => {
    const metrics = metricsSchema.parse({
      byPattern: {
        'lint-error': { attempts: 4, resolved: 2, escalated: 0 },
        'type-error': { attempts: 2, resolved: 0, escalated: 1 },
      },
      deadLetters: 1,
    })
    expect(aggregateMetrics(metrics)).toEqual({
      successRateByPattern: { 'lint-error': 0.5, 'type-error': 0 },
      averageAttemptsByPattern: { 'lint-error': 2, 'type-error': 2 },
      escalationRate: 0.167,
      deadLetterRate: 0.333,
    })
  })
  it('is all zero for no attempts', () => {
    expect(aggregateMetrics(metricsSchema.parse({}))).toEqual({
      successRateByPattern: {},
      averageAttemptsByPattern: {},
      escalationRate: 0,
      deadLetterRate: 0,
    })
  })
})
