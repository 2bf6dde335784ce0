/**
 * Keeps loop state small: a 1,000-iteration loop stays well under 1 MiB. Old
 * entries are dropped from the bounded lists and counted; the aggregates (`metrics.byPattern`,
 * `metrics.strategiesUsed`, the counters, `usage` totals) are kept up to date as entries are added, so
 * nothing they summarise is lost. The full record of every iteration stays in the audit trail.
 */
import type { LoopState } from '../state.js'

/** How many entries each list keeps. */
export const COMPACTION_LIMITS = {
  usageLog: 100,
  failureHistory: 50,
  attempts: 100,
  checkpoints: 100,
  /** Tokens kept per failure record once it is closed (open ones keep all, for the same-error rule). */
  closedFailureTokens: 40,
} as const

/** Returns a state with its lists trimmed to {@link COMPACTION_LIMITS}; the input is not changed. */
export function compactState(state: LoopState): LoopState {
  const { usageLog, failureHistory, attempts, checkpoints, closedFailureTokens } = COMPACTION_LIMITS
  const usageDropped = Math.max(0, state.usage.log.length - usageLog)
  const historyDropped = Math.max(0, state.failures.history.length - failureHistory)
  const needsWork =
    usageDropped > 0 ||
    historyDropped > 0 ||
    state.metrics.attempts.length > attempts ||
    state.checkpoints.length > checkpoints ||
    state.failures.history.some((r) => r.resolution !== 'open' && r.tokens.length > closedFailureTokens)
  if (!needsWork) return state
  return {
    ...state,
    usage: {
      ...state.usage,
      log: state.usage.log.slice(usageDropped),
      compacted: state.usage.compacted + usageDropped,
    },
    failures: {
      ...state.failures,
      // Keep the tail: circular-failure detection and the handoff read the most recent records.
      history: state.failures.history
        .slice(historyDropped)
        .map((r) =>
          r.resolution !== 'open' && r.tokens.length > closedFailureTokens
            ? { ...r, tokens: r.tokens.slice(0, closedFailureTokens) }
            : r,
        ),
      compacted: state.failures.compacted + historyDropped,
    },
    metrics: { ...state.metrics, attempts: state.metrics.attempts.slice(-attempts) },
    checkpoints: state.checkpoints.slice(-checkpoints),
  }
}
