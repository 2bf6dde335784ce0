/**
 * How tests assert and skip in each language the analysis knows, for the verifier-gaming guard: a test
 * file that loses assertions, gains skips or exits 0 before its assertions is a weakened test. Pure.
 */

interface TestLanguage {
  name: string
  /** The files read with this row's rules (the first row that matches wins). */
  source: RegExp
  /** Where this language's tests live by default (`protect.test-files` replaces every row's). */
  testFiles: readonly string[]
  /** An assertion that can fail; a vacuous one (`assert True`) is left out so turning one into it counts. */
  assertions: RegExp
  skips: RegExp
  /** An exit that passes the test: counted when an assertion follows it, since that assertion never runs. */
  earlyExits?: RegExp
}

/** Where a shell word starts a command: a line's start, after a separator, or after a keyword. */
const SHELL_COMMAND = String.raw`(?:^|[;&|({!]|\b(?:if|then|else|elif|while|until|do)\b)[ \t]*`

const TEST_LANGUAGES: readonly TestLanguage[] = [
  {
    name: 'Python',
    source: /\.py$/,
    testFiles: ['**/test_*.py', '**/*_test.py'],
    assertions:
      /^[ \t]*assert\b(?![ \t(]*(?:True|1)[ \t)]*(?:[,#]|$))|\.assert(?:[A-Z]|_)\w*\s*\(|\bpytest\.raises\s*\(/gm,
    skips:
      /@pytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(|@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|\.skipTest\s*\(/g,
  },
  {
    name: 'Go',
    source: /\.go$/,
    testFiles: ['**/*_test.go'],
    // The conventional receivers only: `err.Error()` is no assertion.
    assertions: /\b(?:t|b|f|tb|tt)\.(?:Errorf?|Fatalf?|Fail|FailNow)\s*\(|\b(?:assert|require)\.[A-Z]\w*\s*\(/g,
    skips: /\b(?:t|b|f|tb|tt)\.(?:Skip|Skipf|SkipNow)\s*\(/g,
  },
  {
    name: 'shell',
    source: /\.(?:sh|bash|bats)$/,
    testFiles: ['**/*.bats', '**/test/**/*.sh', '**/tests/**/*.sh', '**/*_test.sh', '**/test_*.sh'],
    assertions: new RegExp(`${SHELL_COMMAND}(?:test|\\[\\[?|assert(?:_\\w+)?|refute(?:_\\w+)?)(?=[ \\t]|$)`, 'gm'),
    skips: new RegExp(`${SHELL_COMMAND}skip\\b`, 'gm'),
    earlyExits: new RegExp(`${SHELL_COMMAND}exit[ \\t]+0\\b`, 'gm'),
  },
  {
    // Any other file: JavaScript and TypeScript, and the skips of other runners (Rust, Java).
    name: 'JavaScript',
    source: /(?:)/,
    testFiles: ['**/*.test.*', '**/*.spec.*', '**/test/**', '**/tests/**', '**/__tests__/**'],
    assertions: /\bexpect\s*\(|\bassert(?:\.\w+|_\w+)?\s*[(.]|\bassert\s+\S|\.should\b|\bshould\.\w/g,
    skips:
      /\.skip\s*\(|\bx(?:it|describe|test)\s*\(|\btest\.todo\s*\(|\bit\.todo\s*\(|@pytest\.mark\.(?:skip|xfail)\b|\bt\.Skip(?:Now|f)?\s*\(|#\[ignore\]|@Disabled\b|@Ignore\b|\bpytest\.skip\s*\(/g,
  },
]

/** The test files the guard reads when `protect.test-files` names none: every language's. */
export const DEFAULT_TEST_FILES: readonly string[] = [...new Set(TEST_LANGUAGES.flatMap((l) => l.testFiles))]

function languageOf(path: string): TestLanguage {
  return TEST_LANGUAGES.find((language) => language.source.test(path)) as TestLanguage
}

/** The assertions in a test file's text (`null`: absent) that can fail. */
export function countAssertions(path: string, text: string | null): number {
  return count(text, languageOf(path).assertions)
}

/** How a test file was weakened from `before` to `after` (both present and read), as reasons. */
export function testWeakening(path: string, before: string, after: string): string[] {
  const language = languageOf(path)
  const reasons: string[] = []
  const assertionsBefore = count(before, language.assertions)
  const assertionsAfter = count(after, language.assertions)
  if (assertionsAfter < assertionsBefore) {
    reasons.push(`test file lost assertions (${assertionsBefore} -> ${assertionsAfter})`)
  }
  const skipsBefore = count(before, language.skips)
  const skipsAfter = count(after, language.skips)
  if (skipsAfter > skipsBefore) reasons.push(`test file gained skips (${skipsBefore} -> ${skipsAfter})`)
  if (language.earlyExits) {
    const exitsBefore = earlyExits(before, language)
    const exitsAfter = earlyExits(after, language)
    if (exitsAfter > exitsBefore) {
      reasons.push(`test file gained an exit 0 before its assertions (${exitsBefore} -> ${exitsAfter})`)
    }
  }
  return reasons
}

/** Exits that some assertion follows: each one passes a test without running what comes after it. */
function earlyExits(text: string, language: TestLanguage): number {
  if (!language.earlyExits) return 0
  const assertionAt = [...text.matchAll(language.assertions)].map((m) => m.index)
  const lastAssertion = Math.max(-1, ...assertionAt)
  return [...text.matchAll(language.earlyExits)].filter((m) => m.index < lastAssertion).length
}

function count(text: string | null, pattern: RegExp): number {
  if (text === null) return 0
  return text.match(pattern)?.length ?? 0
}
