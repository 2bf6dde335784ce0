/**
 * A failed iteration: which failure counts, how it is recorded in the history and the metrics, and
 * whether the loop retries (with which strategy) or goes BLOCKED. Pure; mutates the state copy it is given.
 */
import { MAX_FAILING_TESTS } from '../analysis/failing-tests.js'
import { normaliseTokens } from '../analysis/similarity.js'
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { Stage, Strategy } from '../stages.js'
import type { CheckResult, FailureRecord, LoopState } from '../state.js'
import { compactState } from './compact.js'
import type { IterationOutcome } from './outcome.js'
import { judgeProgress } from './progress.js'
import { chooseStrategy, detectCircularFailure, type FailureInput, isSameFailure } from './retry.js'
import { taskHandoff } from './stage-tasks.js'
import type { Emit } from './stage-walk.js'

export function handleFailure(
  next: LoopState,
  state: LoopState,
  outcome: IterationOutcome,
  policy: Policy,
  failedAt: Stage,
  failingChecks: string[],
  previous: FailureRecord | null,
  at: string,
  emit: Emit,
  events: JourneyEvent[],
): { state: LoopState; events: JourneyEvent[] } {
  const iteration = state.iteration
  const relevant = failingChecks.map(
    (name) => outcome.failures.find((f) => f.check === name) ?? synthesizeFailure(name, outcome.checks),
  )
  const primary = relevant.find((f) => f.check === previous?.check) ?? (relevant[0] as FailureInput)
  const sameFailure = isSameFailure(previous, primary)
  // Progress (fewer or other failing tests, another message) is a fresh start on the same failure: it
  // resets the counters and the strategy ladder. Only an attempt that changed nothing counts as "the same".
  const progress = judgeProgress(previous, primary)
  const stuck = sameFailure && !progress.progress
  const tried = stuck ? [...state.failures.tried] : []
  if (stuck && outcome.strategyUsed) tried.push({ strategy: outcome.strategyUsed, iteration, outcome: 'same error' })
  if (previous && !sameFailure) {
    // The failure retried last time is gone; a different one took its place.
    setResolution(next, previous, 'resolved')
    patternMetric(next, previous.pattern).resolved += 1
    recordAttempt(next, previous, outcome, 'resolved')
  }
  if (previous && sameFailure && progress.progress) {
    emit('progress', progress.detail, { check: primary.check, kind: progress.kind })
  }
  const maxAttempts = primary.maxAutoRetries ?? policy.retry.perFailure
  const choice = chooseStrategy(primary, stuck ? previous : null, tried, policy)
  next.failures.total = state.failures.total + 1
  next.failures.consecutive = stuck ? state.failures.consecutive + 1 : 1
  next.failures.sameError = stuck ? state.failures.sameError + 1 : 0
  next.failures.tried = tried
  const circular = detectCircularFailure(next.failures.history, iteration, [primary.signature])
  const record = openFailure(next, primary, choice.strategy ?? 'escalate', outcome, at, failedAt, maxAttempts)

  const label = primary.pattern ?? 'unclassified failure'
  const others =
    relevant.length > 1 ? ` (and ${relevant.length - 1} more failing check${relevant.length > 2 ? 's' : ''})` : ''
  emit('analysis', `'${primary.check}' failed at ${failedAt}: ${label}${others} -> ${choice.reason}`, {
    check: primary.check,
    pattern: primary.pattern,
    confidence: primary.confidence,
    strategy: choice.strategy,
    attempt: next.failures.consecutive,
    maxAttempts,
    sameError: choice.sameError,
    signature: primary.signature,
  })

  let blockedReason: string | null = null
  if (choice.strategy === null && !choice.sameError) blockedReason = choice.reason
  else if (circular) {
    blockedReason = `circular failure: fixing one failure brings back the other (${circular.a} and ${circular.b})`
  } else if (next.failures.total >= policy.retry.total) {
    blockedReason = `${next.failures.total} failures in total reached the limit of ${policy.retry.total} (retry.total)`
  } else if (next.failures.consecutive > maxAttempts) {
    blockedReason = `${label} in '${primary.check}' is still failing, unchanged, after ${maxAttempts} ${maxAttempts === 1 ? 'retry' : 'retries'}`
  } else if (next.failures.sameError >= policy.retry.sameError) {
    blockedReason = `${progress.detail} came back unchanged ${next.failures.sameError} time${next.failures.sameError === 1 ? '' : 's'} after ${tried.map((t) => t.strategy).join(', ') || 'no change'} (retry.same-error is ${policy.retry.sameError})`
  } else if (choice.strategy === null) blockedReason = choice.reason
  if (blockedReason !== null)
    blockedReason = taskHandoff(primary.check, failedAt, next.failures.consecutive, primary.error) ?? blockedReason

  if (blockedReason !== null) {
    next.status = 'blocked'
    next.statusReason = blockedReason
    setResolution(next, record, 'escalated')
    patternMetric(next, record.pattern).escalated += 1
    next.metrics.deadLetters += 1
    if (sameFailure) recordAttempt(next, previous, outcome, 'escalated')
    emit('escalated', `BLOCKED: ${blockedReason}`, { reason: blockedReason, check: primary.check })
    return { state: compactState(next), events }
  }
  if (sameFailure) recordAttempt(next, previous, outcome, 'failed')
  next.status = 'running'
  next.statusReason = `${label} in '${primary.check}'; next: ${choice.strategy} (attempt ${next.failures.consecutive} of ${maxAttempts})`
  return { state: compactState(next), events }
}

/** Makes `failure` the current open failure and appends it to the history. */
export function openFailure(
  next: LoopState,
  failure: FailureInput,
  strategy: Strategy,
  outcome: IterationOutcome,
  at: string,
  stage: Stage = outcome.stage,
  maxAttempts?: number,
): FailureRecord {
  const record: FailureRecord = {
    iteration: next.iteration,
    stage,
    capability: next.capabilities.current,
    check: failure.check,
    error: failure.error.slice(0, 2000),
    pattern: failure.pattern,
    confidence: failure.confidence === null ? null : Math.min(1, Math.max(0, failure.confidence)),
    strategy,
    signature: failure.signature,
    tokens: failure.tokens.slice(0, 400),
    ...(failure.failingTests ? { failingTests: failure.failingTests.slice(0, MAX_FAILING_TESTS) } : {}),
    resolution: 'open',
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    at,
  }
  next.failures.current = record
  // The history keeps no test lists: only the current failure is compared with the next attempt.
  const { failingTests: _tests, ...kept } = record
  next.failures.history.push({ ...kept, tokens: [...record.tokens] })
  return record
}

/**
 * Sets a failure's resolution on the current record and on its history entries: every still-open record
 * of the same failure (same check and pattern), since a failure retried three times has three records.
 */
export function setResolution(next: LoopState, record: FailureRecord, resolution: FailureRecord['resolution']): void {
  for (const entry of next.failures.history) {
    if (entry.resolution === 'open' && entry.check === record.check && entry.pattern === record.pattern) {
      entry.resolution = resolution
    }
  }
  const current = next.failures.current
  if (current && current.check === record.check && current.pattern === record.pattern) {
    current.resolution = resolution
  }
}

export function patternMetric(
  next: LoopState,
  pattern: string | null,
): { attempts: number; resolved: number; escalated: number } {
  const key = pattern ?? 'unclassified'
  const existing = next.metrics.byPattern[key]
  if (existing) return existing
  const created = { attempts: 0, resolved: 0, escalated: 0 }
  next.metrics.byPattern[key] = created
  return created
}

/** One attempt (a retry carried out with a strategy) and how it ended. */
export function recordAttempt(
  next: LoopState,
  previous: FailureRecord | null,
  outcome: IterationOutcome,
  verdict: 'resolved' | 'failed' | 'escalated',
): void {
  if (!outcome.strategyUsed || !previous) return
  next.metrics.attempts.push({
    iteration: next.iteration,
    pattern: previous.pattern,
    strategy: outcome.strategyUsed,
    durationMs: Math.max(0, outcome.wallMs),
    verdict,
  })
}

/** A failing check with no analysis from the runner (a timeout, a skipped dependency): a generic failure. */
function synthesizeFailure(name: string, results: readonly CheckResult[]): FailureInput {
  const result = results.find((r) => r.name === name)
  const excerpt =
    result?.excerpt || (result ? `'${name}' ended with verdict ${result.verdict}` : `'${name}' did not run`)
  const tokens = normaliseTokens(excerpt)
  return {
    check: name,
    kind: result?.kind ?? 'custom',
    pattern: result?.pattern ?? null,
    confidence: result?.confidence ?? null,
    strategy: result?.strategy ?? 'analyze_then_fix',
    alternates: [],
    retryable: true,
    signature: result?.signature ?? `${result?.pattern ?? 'unknown'}:none:${name}`,
    tokens,
    error: excerpt,
  }
}

export function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 200)
}
