/**
 * The retry rules: which strategy comes next, and when the budget is spent. Pure.
 */
import { isSameError } from '../analysis/similarity.js'
import type { Policy } from '../policy.js'
import { type CheckKind, type Strategy, UNIVERSAL_FALLBACKS } from '../stages.js'
import type { FailureRecord, LoopState } from '../state.js'

/** One failing required check, already analyzed (pattern, strategy, signature, normalised tokens). */
export interface FailureInput {
  check: string
  kind: CheckKind
  pattern: string | null
  confidence: number | null
  strategy: Strategy
  alternates: Strategy[]
  retryable: boolean
  maxAutoRetries?: number
  signature: string
  tokens: string[]
  /** The failing tests the check's JUnit report or output names (null: none named); judges progress. */
  failingTests?: string[] | null
  /** A short excerpt of the failure. */
  error: string
  regression?: boolean
  security?: boolean
  /** The work changed a protected path or weakened a test, and `protect.on-change` is `fail`. */
  protectedChange?: boolean
}

export interface StrategyChoice {
  /** The strategy for the next attempt, or null: escalate. */
  strategy: Strategy | null
  /** The failure is the same error as the previous one (same pattern, > 80% token overlap). */
  sameError: boolean
  reason: string
}

/**
 * Whether two failures are the same *failure* for the per-failure counter: the same check failing with
 * the same pattern. Its output may change from attempt to attempt (that is progress); a different check
 * or pattern is a different error and resets the counter.
 */
export function isSameFailure(previous: FailureRecord | null, failure: FailureInput): boolean {
  return previous !== null && previous.check === failure.check && previous.pattern === failure.pattern
}

/** The same failure with nearly the same output (> 80% token overlap after normalising): no progress. */
export function isRepeatedError(previous: FailureRecord | null, failure: FailureInput): boolean {
  return previous !== null && previous.pattern === failure.pattern && isSameError(previous.tokens, failure.tokens)
}

/**
 * The next strategy for a failure: the pattern's own; on the same error, the first strategy not tried
 * yet on this failure among the pattern's alternates and then the universal fallbacks (never the one
 * that just produced the same error); null when the pattern escalates, is not retryable, or nothing
 * untried is left.
 */
export function chooseStrategy(
  failure: FailureInput,
  previous: FailureRecord | null,
  tried: LoopState['failures']['tried'],
  _policy: Policy,
): StrategyChoice {
  const label = failure.pattern ?? 'unclassified failure'
  const sameError = isRepeatedError(previous, failure)
  if (!failure.retryable) {
    return { strategy: null, sameError, reason: `${label} is not retryable: a person has to act` }
  }
  if (failure.strategy === 'escalate') {
    return { strategy: null, sameError, reason: `${label} escalates by its pattern's strategy` }
  }
  if (!sameError) {
    return { strategy: failure.strategy, sameError, reason: `${label}: the pattern's strategy ${failure.strategy}` }
  }
  const used = new Set<Strategy>(tried.map((t) => t.strategy))
  if (previous) used.add(previous.strategy)
  const candidates = unique([failure.strategy, ...failure.alternates, ...UNIVERSAL_FALLBACKS]).filter(
    (s) => s !== 'escalate',
  )
  const next = candidates.find((s) => !used.has(s))
  if (next === undefined) {
    return {
      strategy: null,
      sameError,
      reason: `the same ${label} came back after ${[...used].join(', ')}; no untried strategy is left`,
    }
  }
  return {
    strategy: next,
    sameError,
    reason: `the same ${label} came back after ${[...used].join(', ')}; switching to ${next}`,
  }
}

/**
 * Circular failure: fixing A broke B and fixing B broke A. Seen in the last three consecutive failed
 * iterations as signature sets S(n-2), S(n-1), S(n) where S(n) and S(n-2) share a signature and S(n-1)
 * shares none with either. Returns the two signatures, or null.
 */
export function detectCircularFailure(
  history: readonly FailureRecord[],
  iteration: number,
  current: readonly string[],
): { a: string; b: string } | null {
  const setAt = (n: number): Set<string> =>
    new Set(history.filter((record) => record.iteration === n).map((record) => record.signature))
  const previous = setAt(iteration - 1)
  const before = setAt(iteration - 2)
  if (previous.size === 0 || before.size === 0) return null
  const a = current.find((s) => before.has(s))
  if (a === undefined) return null
  const overlaps = [...previous].some((s) => before.has(s) || current.includes(s))
  if (overlaps) return null
  const b = [...previous][0]
  return b === undefined ? null : { a, b }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}
