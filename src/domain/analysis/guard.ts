/**
 * The verifier-gaming guard: changes by the work command to protected paths, and
 * test files that lose assertions or gain skips, are flagged with exactly what changed. Pure.
 */

/** One file's content before and after the work command (`null`: absent). */
export interface FileChange {
  path: string
  before: string | null
  after: string | null
}

export interface GuardRules {
  protectedGlobs: string[]
  testGlobs: string[]
}

export interface GuardFinding {
  path: string
  reason: string
}

const ASSERTION = /\bexpect\s*\(|\bassert(?:\.\w+|_\w+)?\s*[(.]|\bassert\s+\S|\.should\b|\bshould\.\w/g
const SKIP =
  /\.skip\s*\(|\bx(?:it|describe|test)\s*\(|\btest\.todo\s*\(|\bit\.todo\s*\(|@pytest\.mark\.(?:skip|xfail)\b|\bt\.Skip(?:Now|f)?\s*\(|#\[ignore\]|@Disabled\b|@Ignore\b|\bpytest\.skip\s*\(/g

/** Flags changes to protected paths, and test files that lose assertions or gain skips. */
export function inspectProtectedChanges(changes: readonly FileChange[], rules: GuardRules): GuardFinding[] {
  const findings: GuardFinding[] = []
  for (const change of changes) {
    const path = change.path.replace(/^\.\//, '')
    const action = change.before === null ? 'created' : change.after === null ? 'deleted' : 'modified'
    const protectedBy = rules.protectedGlobs.find((glob) => matchGlob(glob, path))
    if (protectedBy !== undefined && change.before !== change.after) {
      findings.push({ path, reason: `protected path ${action} (matches '${protectedBy}')` })
      continue
    }
    if (!rules.testGlobs.some((glob) => matchGlob(glob, path))) continue
    const assertionsBefore = count(change.before, ASSERTION)
    const assertionsAfter = count(change.after, ASSERTION)
    const skipsBefore = count(change.before, SKIP)
    const skipsAfter = count(change.after, SKIP)
    if (change.after === null && assertionsBefore > 0) {
      findings.push({ path, reason: `test file deleted with ${assertionsBefore} assertion(s)` })
      continue
    }
    if (assertionsAfter < assertionsBefore) {
      findings.push({ path, reason: `test file lost assertions (${assertionsBefore} -> ${assertionsAfter})` })
    }
    if (skipsAfter > skipsBefore) {
      findings.push({ path, reason: `test file gained skips (${skipsBefore} -> ${skipsAfter})` })
    }
  }
  return findings
}

function count(text: string | null, pattern: RegExp): number {
  if (text === null) return 0
  return text.match(pattern)?.length ?? 0
}

/**
 * Whether `path` matches `glob`: `**` matches any number of path segments (including none), `*` any
 * characters but `/`, `?` one character but `/`; everything else is literal. Paths use `/`.
 */
export function matchGlob(glob: string, path: string): boolean {
  const normalised = path.replace(/\\/g, '/').replace(/^\.\//, '')
  return globToRegExp(glob).test(normalised)
}

const compiledGlobs = new Map<string, RegExp>()

function globToRegExp(glob: string): RegExp {
  const cached = compiledGlobs.get(glob)
  if (cached) return cached
  let source = '^'
  const pattern = glob.replace(/^\.\//, '')
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '*' && pattern[i + 1] === '*') {
      const atSegmentStart = i === 0 || pattern[i - 1] === '/'
      const atSegmentEnd = i + 2 === pattern.length || pattern[i + 2] === '/'
      if (atSegmentStart && atSegmentEnd) {
        if (pattern[i + 2] === '/') {
          source += '(?:[^/]*/)*'
          i += 2
        } else {
          source += '.*'
          i += 1
        }
        continue
      }
      source += '[^/]*'
      i += 1
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  const regex = new RegExp(`${source}$`)
  if (compiledGlobs.size < 1000) compiledGlobs.set(glob, regex)
  return regex
}
