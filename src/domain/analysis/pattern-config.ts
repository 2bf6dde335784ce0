/**
 * A failure pattern as users write it, validated and with its defaults filled in. The config layer
 * parses pattern files and the loop config's `patterns` into this type; the default library is
 * generated into `default-patterns.ts` in the same shape.
 */
import type { CheckKind, Strategy } from '../stages.js'

export interface PatternConfig {
  id: string
  description?: string | undefined
  /** Literal strings, or `/regex/flags` (flags i, m, s). */
  signals: string[]
  /** Decisive signals: one anchor weighs as much as three signals. */
  anchors: string[]
  kinds: CheckKind[]
  strategy: Strategy
  alternates: Strategy[]
  max_auto_retries?: number | undefined
  retryable: boolean
  /** Location regexes with the named groups file, line, column, message. */
  locations: string[]
  /**
   * Lines the excerpt keeps when this pattern wins, beside its signals' lines, never scored (literal or
   * `/regex/flags`): which test failed, what it received.
   */
  excerpt?: string[] | undefined
  hint?: string | undefined
  /**
   * Ids of broader patterns this one beats when one of its anchors matched: a test file that fails to
   * import is `import-not-found`, though the runner also reports a failed suite.
   */
  outranks?: string[] | undefined
}

/** A pattern file or list that is not valid, with the source and the offending entry named. */
export class PatternError extends Error {
  override name = 'PatternError'
}

/** The error for an id that appears twice in one list (a user pattern overrides a default by id, once). */
export function duplicatePatternError(id: string, source: string): PatternError {
  return new PatternError(`Pattern '${id}' appears twice in ${source}; each id at most once.`)
}

/** Refuses a list in which an id appears twice. */
export function assertUniquePatternIds(list: readonly Pick<PatternConfig, 'id'>[], source: string): void {
  const seen = new Set<string>()
  for (const { id } of list) {
    if (seen.has(id)) throw duplicatePatternError(id, source)
    seen.add(id)
  }
}
