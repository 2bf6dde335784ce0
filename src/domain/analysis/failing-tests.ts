/**
 * The failing tests a runner names in its output. Progress between two attempts on the same check is
 * judged on this set (fewer or other failing tests is progress), so it must come from what the runners
 * really print, not from a count: vitest, jest, pytest, go test, cargo test, node's test runner (TAP)
 * and mocha.
 * Pure; bounded by the number of lines it reads.
 */
import { TERMINAL_ESCAPES } from '../display-text.js'

/** One line-shaped rule: a regex over a line, and how to turn its match into a test id. */
interface TestLineRule {
  runner: string
  line: RegExp
  id: (match: RegExpExecArray) => string
}

const RULES: readonly TestLineRule[] = [
  // vitest: ` FAIL  test/math.test.ts > sum > adds` (a whole file failing to import has no ` > `).
  {
    runner: 'vitest',
    line: /^\s*(?:×|✗|FAIL)\s+(\S+\.[cm]?[jt]sx?)\s+>\s+(.+?)\s*(?:\d+ms)?$/,
    id: (m) => `${m[1]} > ${m[2]}`,
  },
  // jest: `  ● sum › adds two numbers`
  { runner: 'jest', line: /^\s*● (?!Test suite failed to run)(.+›.+|[^›]+)$/, id: (m) => (m[1] ?? '').trim() },
  // pytest: `FAILED tests/test_math.py::test_add - assert 3 == 4`
  { runner: 'pytest', line: /^(?:FAILED|ERROR) (\S+::\S+)/, id: (m) => m[1] ?? '' },
  // go test: `--- FAIL: TestAdd (0.00s)` (subtests are indented: `    --- FAIL: TestAdd/negative`)
  { runner: 'go', line: /^\s*--- FAIL: (\S+)/, id: (m) => m[1] ?? '' },
  // node --test and other TAP producers: `not ok 3 - adds`
  { runner: 'tap', line: /^\s*not ok \d+ (?:- )?(.+?)(?:\s+#\s.*)?$/, id: (m) => m[1] ?? '' },
  // cargo test: `test tests::adds ... FAILED` (older releases: `tests::adds --- FAILED`)
  { runner: 'cargo', line: /^(?:test )?(\S+) (?:\.\.\.|---) FAILED$/, id: (m) => m[1] ?? '' },
  // mocha: `    1) adds` in the list and `  1) math` over the failure; both are stable across runs.
  { runner: 'mocha', line: /^\s+\d+\) (.+?):?$/, id: (m) => (m[1] ?? '').trim() },
]

/** At most this many distinct failing tests are kept (a suite failing wholesale is still one set). */
export const MAX_FAILING_TESTS = 500

/**
 * The failing tests the output names, sorted and distinct, or null when no runner line was recognised
 * (then progress falls back to the failure's text).
 */
export function failingTestsIn(output: string): string[] | null {
  const found = new Set<string>()
  for (const raw of output.split('\n')) {
    const line = raw.replace(TERMINAL_ESCAPES, '').replace(/\r$/, '')
    for (const rule of RULES) {
      const match = rule.line.exec(line)
      if (!match) continue
      const id = rule.id(match).trim()
      if (id) found.add(id)
      break
    }
    if (found.size >= MAX_FAILING_TESTS) break
  }
  return found.size === 0 ? null : [...found].sort()
}

/** The failing tests of one check from its JUnit verdicts (`check:test` keys), or null when it has none. */
export function failingTestsFromVerdicts(check: string, tests: Record<string, 'pass' | 'fail'>): string[] | null {
  const prefix = `${check}:`
  const names = Object.keys(tests).filter((key) => key.startsWith(prefix))
  if (names.length === 0) return null
  return names
    .filter((key) => tests[key] === 'fail')
    .map((key) => key.slice(prefix.length))
    .sort()
    .slice(0, MAX_FAILING_TESTS)
}
