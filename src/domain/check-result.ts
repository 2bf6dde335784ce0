/**
 * A check's result that no failure analysis has read: no pattern, strategy, signature or locations. What
 * a check is taken to report before it runs (fan-out's plan weighing the stages as if all passed) and
 * what a leg that never reported is recorded as. Pure.
 */
import type { CheckResult } from './state.js'

export function unanalyzedResult(
  check: Pick<CheckResult, 'name' | 'kind' | 'required'>,
  outcome: Pick<CheckResult, 'verdict' | 'durationMs' | 'exitCode'> & { excerpt?: string },
): CheckResult {
  return {
    name: check.name,
    kind: check.kind,
    verdict: outcome.verdict,
    required: check.required,
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    pattern: null,
    confidence: null,
    strategy: null,
    signature: null,
    locations: [],
    excerpt: outcome.excerpt ?? '',
    autoFixed: false,
  }
}
