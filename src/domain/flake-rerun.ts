/**
 * The flake check, only where a flake is possible: re-running a type checker, a linter, a formatter or a
 * build on unchanged files cannot pass, so only checks of kind `test` or `custom` and network-class
 * failures are re-run. Where the check's command is recognisably a test runner that can select tests,
 * only the failing tests are re-run (vitest and jest `-t`, `pytest --lf`, `go test -run`). Pure.
 */
import type { Command } from './loop-config.js'
import type { CheckKind } from './stages.js'

/**
 * Patterns of failures that come and go with the network or the machine's load, whatever the check
 * (`infrastructure`: a shard that was killed or cancelled before it reported).
 */
export const TRANSIENT_PATTERNS: readonly string[] = ['network-error', 'timeout', 'infrastructure']

/** Above this many failing tests the filter is not worth it (and the regex grows): the whole check. */
export const MAX_SELECTED_TESTS = 50

export type FlakeRerun =
  /** Not re-run: the failure cannot be a flake. */
  | { scope: 'none'; reason: string }
  /** The whole check, unchanged. */
  | { scope: 'check'; reason: string }
  /** Only the failing tests, with the runner's own filter. */
  | { scope: 'tests'; runner: TestRunner; command: Command; tests: string[] }

export type TestRunner = 'vitest' | 'jest' | 'pytest' | 'go'

export interface FlakeRerunInput {
  kind: CheckKind
  run: Command
  /** The failure's pattern (null: unclassified). */
  pattern: string | null
  /** The failing tests named in the check's output (`failingTestsIn`), null when none. */
  failingTests: readonly string[] | null
}

/** What the flake check re-runs for a failing check. */
export function flakeRerun(input: FlakeRerunInput): FlakeRerun {
  const transient = input.pattern !== null && TRANSIENT_PATTERNS.includes(input.pattern)
  if (!transient && input.kind !== 'test' && input.kind !== 'custom') {
    return { scope: 'none', reason: `a ${input.kind} check on unchanged files cannot pass when re-run` }
  }
  if (transient) return { scope: 'check', reason: `${input.pattern} is transient` }
  const runner = runnerOf(input.run)
  if (!runner) return { scope: 'check', reason: 'the command is not a test runner that can select tests' }
  const filter = selectTests(runner, input.failingTests ?? [])
  if (!filter) return { scope: 'check', reason: `no failing ${runner} test could be named` }
  return { scope: 'tests', runner, command: appendArgs(input.run, filter.args), tests: filter.tests }
}

/** The test runner a command runs, when it is one simple command (no shell operators) that can filter. */
export function runnerOf(run: Command): TestRunner | null {
  let words: string[]
  if (typeof run === 'string') {
    if (/[;&|<>`$(){}\n\\*?'"]/.test(run)) return null
    words = run.trim().split(/\s+/)
  } else {
    words = [...run]
  }
  const names = words.map((word) => word.split('/').pop() ?? word)
  // A filter of its own already: ours would fight with it.
  if (
    words.some((w) =>
      /^(-t|--testNamePattern|--testNamePattern=.*|-run|-run=.*|-k|--lf|--last-failed|--watch)$/.test(w),
    )
  )
    return null
  if (names.includes('vitest')) return 'vitest'
  if (names.includes('jest')) return 'jest'
  if (names.includes('pytest') || names.includes('py.test')) return 'pytest'
  const m = names.indexOf('-m')
  if (m >= 0 && names[m + 1] === 'pytest') return 'pytest'
  const go = names.indexOf('go')
  if (go >= 0 && names[go + 1] === 'test') return 'go'
  return null
}

/** The runner's arguments that select the failing tests, or null when none can be named. */
function selectTests(runner: TestRunner, failing: readonly string[]): { args: string[]; tests: string[] } | null {
  if (runner === 'pytest') return { args: ['--lf'], tests: [...failing] }
  const tests = unique(failing.map((id) => testName(runner, id)).filter((name): name is string => name !== null))
  if (tests.length === 0 || tests.length > MAX_SELECTED_TESTS) return null
  if (runner === 'go') return { args: ['-run', `^(${tests.map(escapeRegex).join('|')})$`], tests }
  return { args: ['-t', tests.map(escapeRegex).join('|')], tests }
}

/** The name a runner's filter matches, from the id `failingTestsIn` gives; null when the id is not this runner's. */
function testName(runner: TestRunner, id: string): string | null {
  if (runner === 'vitest') {
    // `test/math.test.ts > sum > adds`: vitest matches `-t` against the names joined by spaces.
    const parts = id.split(' > ')
    return parts.length >= 2 && /\.[cm]?[jt]sx?$/.test(parts[0] ?? '') ? parts.slice(1).join(' ') : null
  }
  if (runner === 'jest') return id.includes(' > ') ? null : id.split(' › ').join(' ')
  // go: `TestAdd/negative` runs with its top-level test, which `-run '^(TestAdd)$'` selects whole.
  const top = id.split('/')[0] ?? ''
  return /^(Test|Example|Fuzz)\w*$/.test(top) ? top : null
}

/** The command with `args` after it: a string gets them shell-quoted, an argument list as they are. */
function appendArgs(run: Command, args: readonly string[]): Command {
  if (typeof run !== 'string') return [...run, ...args]
  return `${run.trim()} ${args.map(shellQuote).join(' ')}`
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./=:-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}
