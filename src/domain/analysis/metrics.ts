/** Aggregated loop metrics (issue 3 item 10): success and attempts by pattern, escalation and dead-letter rates. */
import type { Metrics } from '../state.js'

export interface AggregatedMetrics {
  /** Resolved attempts / attempts, per pattern (`unknown` for no match), in [0, 1]. */
  successRateByPattern: Record<string, number>
  /** Attempts per failure episode (an episode ends resolved or escalated), per pattern. */
  averageAttemptsByPattern: Record<string, number>
  /** Escalated / attempts over all patterns, in [0, 1]. */
  escalationRate: number
  /** Dead letters / failure episodes, in [0, 1]. */
  deadLetterRate: number
}

/** Aggregates from `metrics.byPattern` (which survives compaction of the attempt list). */
export function aggregateMetrics(metrics: Metrics): AggregatedMetrics {
  const successRateByPattern: Record<string, number> = {}
  const averageAttemptsByPattern: Record<string, number> = {}
  let attempts = 0
  let escalated = 0
  let episodes = 0
  for (const [pattern, counts] of Object.entries(metrics.byPattern).sort(([a], [b]) => a.localeCompare(b))) {
    if (counts.attempts <= 0) continue
    attempts += counts.attempts
    escalated += counts.escalated
    const ended = counts.resolved + counts.escalated
    episodes += ended
    successRateByPattern[pattern] = round(counts.resolved / counts.attempts)
    averageAttemptsByPattern[pattern] = round(counts.attempts / Math.max(1, ended))
  }
  return {
    successRateByPattern,
    averageAttemptsByPattern,
    escalationRate: attempts === 0 ? 0 : round(escalated / attempts),
    deadLetterRate: episodes === 0 ? 0 : round(Math.min(1, metrics.deadLetters / episodes)),
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}
