/**
 * Progress between two attempts: the heart of an iterate-until loop. An agent that fixes one failing
 * test per iteration is making progress and must not be stopped as if it were stuck; one that hands
 * back the same failures with the same output is stuck and must be stopped early. docs/architecture.md
 * ("Progress") states the rule; this is its one implementation. Pure.
 */
import { isSameError } from '../analysis/similarity.js'

/** What one attempt left failing, as far as progress is concerned. */
export interface AttemptFailure {
  check: string
  pattern: string | null
  /** The failing tests of the check (JUnit or the runner's output), or null when none were named. */
  failingTests?: readonly string[] | null
  /** The normalised tokens of the failure's text. */
  tokens: readonly string[]
}

export type ProgressKind =
  | 'first'
  | 'other-check'
  | 'other-pattern'
  | 'fewer-tests'
  | 'other-tests'
  | 'other-output'
  | 'none'

export interface ProgressVerdict {
  progress: boolean
  kind: ProgressKind
  /** One sentence for the journey log and the handoff. */
  detail: string
}

/**
 * Compares the failure an attempt left with the one before it. Progress, in this order: a different
 * failing check (another failing step), a different failure pattern, a different set of failing tests
 * (fewer, or other ones), or a different message (the normalised text no longer > 80% the same). No
 * progress: the same check, pattern and failing tests, with nearly the same text.
 */
export function judgeProgress(previous: AttemptFailure | null, current: AttemptFailure): ProgressVerdict {
  if (previous === null) return { progress: true, kind: 'first', detail: `'${current.check}' fails` }
  if (previous.check !== current.check) {
    return { progress: true, kind: 'other-check', detail: `'${previous.check}' passes now; '${current.check}' fails` }
  }
  const label = current.pattern ?? 'unclassified failure'
  if (previous.pattern !== current.pattern) {
    return {
      progress: true,
      kind: 'other-pattern',
      detail: `'${current.check}' fails differently: ${previous.pattern ?? 'unclassified failure'} became ${label}`,
    }
  }
  const before = previous.failingTests ?? null
  const now = current.failingTests ?? null
  if (before !== null && now !== null && !sameSet(before, now)) {
    const fixed = before.filter((test) => !now.includes(test)).length
    const added = now.filter((test) => !before.includes(test)).length
    if (added === 0) {
      return {
        progress: true,
        kind: 'fewer-tests',
        detail: `'${current.check}': ${now.length} failing test${plural(now.length)}, down from ${before.length}`,
      }
    }
    return {
      progress: true,
      kind: 'other-tests',
      detail: `'${current.check}': ${fixed} failing test${plural(fixed)} fixed, ${added} other${added === 1 ? '' : 's'} failing`,
    }
  }
  if (!isSameError(previous.tokens, current.tokens)) {
    return { progress: true, kind: 'other-output', detail: `'${current.check}' fails with another message` }
  }
  const tests = now === null ? '' : ` (the same ${now.length} failing test${plural(now.length)})`
  return { progress: false, kind: 'none', detail: `the same ${label} in '${current.check}'${tests}` }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  const left = new Set(a)
  return b.every((item) => left.has(item))
}

function plural(count: number): string {
  return count === 1 ? '' : 's'
}
