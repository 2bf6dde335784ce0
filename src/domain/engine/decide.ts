/**
 * The decision engine: what the loop does next, from its state, what was observed
 * outside it, and the policy. Pure: no I/O, no clock (time comes in `observations.now`).
 */
import type { Policy } from '../policy.js'
import type { Stage, Strategy } from '../stages.js'
import type { LoopState } from '../state.js'
import { pendingRequiredGates } from './pipeline.js'

/** What was observed outside the state since it was saved. */
export interface Observations {
  now: Date
  /** A kill switch: the `loop/stop` label, or the CLI's `abort`. (`stop: true` in config is in the policy.) */
  stopRequested?: boolean
  /** The loop's pull request is merged (checked through the API). Only SHIP looks at it. */
  pullRequestMerged?: boolean
}

export type CapLimit = 'iterations' | 'minutes' | 'tokens' | 'cost'

export type Decision =
  | { kind: 'WAIT_FOR_HUMAN'; reason: string }
  | { kind: 'WAIT_FOR_APPROVAL'; gate: string; reason: string }
  | { kind: 'CAP_REACHED'; limit: CapLimit; reason: string }
  | {
      kind: 'RETRY'
      stage: Stage
      capability: string | null
      strategy: Strategy
      attempt: number
      maxAttempts: number
      backoffMs: number
      reason: string
    }
  | { kind: 'ESCALATE'; reason: string }
  | { kind: 'EXECUTE_STAGE'; stage: Stage; capability: string | null; reason: string }
  | { kind: 'COMPLETE'; reason: string }
  | { kind: 'ABORTED'; reason: string }

/**
 * Decides the next step. The order (first match wins):
 * 1. a loop already complete (status or stage COMPLETE) -> COMPLETE: nothing left to run;
 * 2. aborted, or a stop requested (observation or `stop: true` in the policy) -> ABORTED;
 * 3. BLOCKED -> WAIT_FOR_HUMAN;
 * 4. SHIP with its pull request merged -> COMPLETE (it costs no iteration, so it precedes gates and caps);
 * 5. a capped loop -> CAP_REACHED: it stays capped until a person lifts its limit (see `capped.ts`);
 * 6. a pending required gate -> WAIT_FOR_APPROVAL; SHIP done and waiting for the merge -> WAIT_FOR_HUMAN;
 * 7. the iteration cap or a budget -> CAP_REACHED (naming the limit);
 * 8. an open failure -> RETRY (within budget) or ESCALATE;
 * 9. otherwise EXECUTE_STAGE with the current stage and capability.
 *
 * The minutes budget counts `usage.wallMs`, the time iterations actually spent (controller and
 * commands; a fan-out iteration's plan, slowest verify leg and decide, see `fan-out-time.ts`), not the
 * calendar time since `startedAt`: time queued between dispatches or spent waiting for a person's
 * approval does not use up the budget.
 */
export function decide(state: LoopState, observations: Observations, policy: Policy): Decision {
  if (state.status === 'complete' || state.stage === 'COMPLETE') {
    return { kind: 'COMPLETE', reason: `the loop is complete after ${plural(state.iteration, 'iteration')}` }
  }
  if (state.status === 'aborted') {
    return { kind: 'ABORTED', reason: state.statusReason || 'the loop was aborted' }
  }
  if (observations.stopRequested || policy.stop) {
    const source = observations.stopRequested
      ? 'a stop was requested (loop/stop label or abort)'
      : 'stop: true in config'
    return { kind: 'ABORTED', reason: `${source}; the loop stops before iteration ${state.iteration + 1}` }
  }
  if (state.status === 'blocked') {
    return { kind: 'WAIT_FOR_HUMAN', reason: state.statusReason || 'the loop is blocked and needs a person' }
  }
  const merged = observations.pullRequestMerged === true || state.pullRequest?.merged === true
  if (state.stage === 'SHIP' && merged) {
    const pr = state.pullRequest ? ` #${state.pullRequest.number}` : ''
    return { kind: 'COMPLETE', reason: `the pull request${pr} is merged` }
  }
  if (state.status === 'capped') {
    // Its limit raised since (a budget in the config) without a resume: the loop waits for the person.
    return (
      capReached(state, policy) ?? {
        kind: 'CAP_REACHED',
        limit: cappedBy(state) ?? 'iterations',
        reason: `${state.statusReason || 'the loop is capped'}; that limit is raised since: resume the loop to go on`,
      }
    )
  }
  const pending = pendingRequiredGates(state, policy)
  const gate = pending[0]
  if (gate !== undefined) {
    const detail = state.gates[gate]?.reason
    return {
      kind: 'WAIT_FOR_APPROVAL',
      gate,
      reason: `gate '${gate}' needs approval${detail ? `: ${detail}` : ''}`,
    }
  }
  if (state.stage === 'SHIP' && state.status === 'waiting') {
    return { kind: 'WAIT_FOR_HUMAN', reason: state.statusReason || 'waiting for the pull request to be merged' }
  }
  const cap = capReached(state, policy)
  if (cap) return cap
  const failure = state.failures.current
  if (failure && failure.resolution === 'open') {
    const maxAttempts = failure.maxAttempts ?? state.failures.limits.perFailure
    const attempt = state.failures.consecutive
    const label = failure.pattern ?? 'unclassified failure'
    if (failure.strategy === 'escalate') {
      return { kind: 'ESCALATE', reason: `${label} in '${failure.check}': its strategy is to escalate` }
    }
    if (attempt > maxAttempts) {
      return {
        kind: 'ESCALATE',
        reason: `${label} in '${failure.check}' is still failing after ${plural(maxAttempts, 'retry', 'retries')}`,
      }
    }
    if (state.failures.sameError >= state.failures.limits.sameError) {
      return {
        kind: 'ESCALATE',
        reason: `the same ${label} came back ${plural(state.failures.sameError + 1, 'time')} in '${failure.check}'`,
      }
    }
    if (state.failures.total >= state.failures.limits.total) {
      return {
        kind: 'ESCALATE',
        reason: `${state.failures.total} failures in total reached the limit of ${state.failures.limits.total}`,
      }
    }
    return {
      kind: 'RETRY',
      stage: state.stage,
      capability: state.capabilities.current,
      strategy: failure.strategy,
      attempt,
      maxAttempts,
      backoffMs: backoffMs(failure.strategy, state, policy),
      reason: `${label} in '${failure.check}'${failure.confidence !== null ? ` (${failure.confidence.toFixed(2)})` : ''}`,
    }
  }
  const capability = state.capabilities.current
  return {
    kind: 'EXECUTE_STAGE',
    stage: state.stage,
    capability,
    reason: capability
      ? `${state.stage} for capability '${capability}' (${state.capabilities.completed.length + 1} of ${state.capabilities.total})`
      : `${state.stage}`,
  }
}

/**
 * The first cap or budget reached, or null. The iteration cap is the loop's own, kept in its state
 * across jobs (a run given another cap changes it first, see `changeCap`); budgets a run's policy sets
 * apply over the state's.
 */
export function capReached(
  state: LoopState,
  policy: Pick<Policy, 'budget'>,
): Extract<Decision, { kind: 'CAP_REACHED' }> | null {
  const { maxIterations } = state
  if (state.iteration >= maxIterations) {
    return {
      kind: 'CAP_REACHED',
      limit: 'iterations',
      reason: `the iteration cap is reached: ${state.iteration} of ${maxIterations} iterations (max-iterations)`,
    }
  }
  const budget = { ...state.budget, ...policy.budget }
  const minutes = state.usage.wallMs / 60_000
  if (budget.minutes !== undefined && minutes >= budget.minutes) {
    return {
      kind: 'CAP_REACHED',
      limit: 'minutes',
      reason: `the time budget is spent: ${round(minutes)} of ${budget.minutes} minutes (budget.minutes)`,
    }
  }
  if (budget.tokens !== undefined && state.usage.tokens >= budget.tokens) {
    return {
      kind: 'CAP_REACHED',
      limit: 'tokens',
      reason: `the token budget is spent: ${state.usage.tokens} of ${budget.tokens} tokens (budget.tokens)`,
    }
  }
  if (budget.costUsd !== undefined && state.usage.costUsd >= budget.costUsd) {
    return {
      kind: 'CAP_REACHED',
      limit: 'cost',
      reason: `the cost budget is spent: $${state.usage.costUsd.toFixed(2)} of $${budget.costUsd.toFixed(2)} (budget.cost-usd)`,
    }
  }
  return null
}

const CAP_LIMITS: readonly string[] = ['iterations', 'minutes', 'tokens', 'cost'] satisfies CapLimit[]

/**
 * The limit that capped the loop, as its CAP_REACHED decision recorded it; null when it is not capped.
 * A capped state without the record (older states) was capped by its iterations.
 */
export function cappedBy(state: LoopState): CapLimit | null {
  if (state.status !== 'capped') return null
  const limit = state.lastDecision?.kind === 'CAP_REACHED' ? state.lastDecision.limit : undefined
  return limit !== undefined && CAP_LIMITS.includes(limit) ? (limit as CapLimit) : 'iterations'
}

/** `retry_with_backoff` waits backoff x 2^(n-1) before its n-th use on this failure; others do not wait. */
export function backoffMs(strategy: Strategy, state: LoopState, policy: Policy): number {
  if (strategy !== 'retry_with_backoff') return 0
  const used = state.failures.tried.filter((t) => t.strategy === 'retry_with_backoff').length
  return policy.retry.backoffSeconds * 1000 * 2 ** used
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`
}
