/**
 * The verifier-gaming guard: changes by the work command to protected paths, and
 * test files that lose assertions or gain skips (each language's forms: test-weakening.ts), are flagged
 * with exactly what changed. Pure.
 */

import { packageScriptChanges } from './package-scripts.js'
import { countAssertions, testWeakening } from './test-weakening.js'

/** Why a side of a change could not be read as text: a binary file, or one over the size read. */
export type Unreadable = 'binary' | 'large'

/**
 * One file's content before and after the work command (`null`: absent). A side named in `unreadable`
 * holds '' (present, not read). `ignored`: a file the repository ignores, so no commit would show it.
 */
export interface FileChange {
  path: string
  before: string | null
  after: string | null
  unreadable?: { before?: Unreadable; after?: Unreadable }
  ignored?: boolean
}

export interface GuardRules {
  protectedGlobs: string[]
  testGlobs: string[]
}

export interface GuardFinding {
  path: string
  reason: string
}

/** Flags changes to protected paths, and test files that lose assertions or gain skips. */
export function inspectProtectedChanges(changes: readonly FileChange[], rules: GuardRules): GuardFinding[] {
  const findings: GuardFinding[] = []
  for (const change of changes) {
    const path = change.path.replace(/^\.\//, '')
    const action = change.before === null ? 'created' : change.after === null ? 'deleted' : 'modified'
    const protectedBy = rules.protectedGlobs.find((glob) => matchGlob(glob, path))
    // Only changed paths are handed in: an unreadable side cannot be compared, so it counts as changed.
    if (protectedBy !== undefined && (change.unreadable || change.before !== change.after)) {
      const what = `${change.ignored ? 'ignored file on a ' : ''}protected path ${action}${unreadableNote(change)}`
      findings.push({ path, reason: `${what} (matches '${protectedBy}')` })
      continue
    }
    if (/(?:^|\/)package\.json$/.test(path) && change.before !== null && change.after !== null) {
      for (const reason of packageScriptChanges(change.before, change.after)) findings.push({ path, reason })
    }
    if (!rules.testGlobs.some((glob) => matchGlob(glob, path))) continue
    if (change.unreadable?.before) continue
    if (change.unreadable?.after) {
      const assertions = countAssertions(path, change.before)
      if (assertions > 0) {
        findings.push({
          path,
          reason: `test file with ${assertions} assertion(s) became ${describe(change.unreadable.after)}`,
        })
      }
      continue
    }
    if (change.after === null) {
      const assertions = countAssertions(path, change.before)
      if (assertions > 0) findings.push({ path, reason: `test file deleted with ${assertions} assertion(s)` })
      continue
    }
    for (const reason of testWeakening(path, change.before ?? '', change.after)) findings.push({ path, reason })
  }
  return findings
}

function describe(unreadable: Unreadable): string {
  return unreadable === 'binary' ? 'binary' : 'too large to read'
}

function unreadableNote(change: FileChange): string {
  const side = change.unreadable?.after ?? change.unreadable?.before
  return side ? ` (${describe(side)}, not compared line by line)` : ''
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
