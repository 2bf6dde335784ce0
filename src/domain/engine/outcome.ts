/**
 * Folding an iteration's outcome into the state: usage, metrics, gates, then the stage walk or the
 * failure handling. Pure.
 */
import { type AgentFailure, failureHandoff, stopsTheLoop } from '../agents/index.js'
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { Stage, Strategy } from '../stages.js'
import type { CheckResult, LoopState } from '../state.js'
import { compactState } from './compact.js'
import { copyForUpdate } from './copy-state.js'
import { EngineError } from './errors.js'
import {
  firstLine,
  handleFailure,
  openFailure,
  patternMetric,
  recordAttempt,
  setResolution,
} from './failure-handling.js'
import { matrixIsGreen } from './pipeline.js'
import type { FailureInput } from './retry.js'
import { taskFailures, type UnfinishedTask } from './stage-tasks.js'
import { type Emit, settleStatus, walkStages } from './stage-walk.js'

/** What one iteration did, as the runner observed it. */
export interface IterationOutcome {
  now: Date
  /** The stage that was executed (the decision's stage). */
  stage: Stage
  work?: {
    exitCode: number | null
    /** The work command asked for a person (exit 3 or a `BLOCKED:` line). */
    blocked: boolean
    blockedReason?: string
    durationMs: number
    tokens?: number
    costUsd?: number
    session?: string
    /** The session's running totals so far (with `session`). */
    sessionUsage?: { tokens: number; costUsd: number }
    /** The agent preset's CLI failed (its API, its key, its limits): not a failure of the checks. */
    failure?: AgentFailure
    /** Who the agent is, for the handoff ('Claude Code', 'the work command'). */
    agent?: string
  }
  /** The whole matrix, for the exit requirements and `lastVerification`. */
  checks: CheckResult[]
  /** Failing required checks (after the flake check and auto-fix), analyzed. */
  failures: FailureInput[]
  /** Checks that failed, then passed on re-run. */
  flaky: string[]
  autoFixed: string[]
  /** Gates raised this iteration (changed paths, the verifier guard). */
  gatesRaised: { gate: string; reason: string }[]
  tasksCompleted: string[]
  /** Stage tasks that ran after the work and did not succeed: failures under the retry budget. */
  tasksFailed?: UnfinishedTask[]
  /** The strategy this iteration carried out (from the RETRY decision). */
  strategyUsed?: Strategy
  /** Controller and commands time spent this iteration. */
  wallMs: number
  externalDependencyDown?: boolean
}

/**
 * Folds an iteration's outcome into the state and returns the journey events it implies (analysis,
 * flaky, auto-fix, regression, transition, gate, escalated, completed; the runner logs the work and
 * each check itself).
 *
 * Stages advance while their exit requirements are met: the stage's required checks pass, its tasks are
 * completed or skipped, its gates approved. A verification stage (VERIFY) reached this way is judged by
 * the same matrix in the same iteration; when it fails, the loop stays in the stage whose work it did.
 * In the capability loop, leaving the loop's last stage starts the next capability at its first stage.
 * SHIP, once its requirements are met, waits for its pull request to be merged.
 *
 * A failure (the first failing check that blocks the exit, preferring the check that failed before)
 * counts against the retry budget: `consecutive` counts attempts on the same failure (same check and
 * pattern) and resets on a different one; `sameError` counts returns of the same error (> 80% token
 * overlap); `total` counts failed iterations. The loop goes BLOCKED on: the work command asking for a
 * person, an unavailable external dependency, a security finding, a protected change (with
 * `protect.on-change: fail`), a non-retryable or escalating pattern, a circular failure, `total`
 * reaching `retry.total`, more retries than the failure's budget (the pattern's `max_auto_retries`, else
 * `retry.per-failure`), the same error `retry.same-error` times, or no untried strategy left for a
 * repeated error.
 */
export function applyOutcome(
  state: LoopState,
  outcome: IterationOutcome,
  policy: Policy,
): { state: LoopState; events: JourneyEvent[] } {
  if (state.iteration === 0) {
    throw new EngineError('applyOutcome needs a started iteration; call beginIteration first.')
  }
  if (state.status !== 'running') {
    throw new EngineError(`loop '${state.loopId}' is ${state.status}; an iteration outcome cannot be applied.`)
  }
  if (outcome.stage !== state.stage) {
    throw new EngineError(`the outcome is for stage ${outcome.stage}, but loop '${state.loopId}' is at ${state.stage}.`)
  }
  const at = outcome.now.toISOString()
  const iteration = state.iteration
  const events: JourneyEvent[] = []
  const emit: Emit = (type, message, data) => {
    events.push({ at, iteration, type, message, ...(data ? { data } : {}) })
  }
  const next = copyForUpdate(state)
  next.updatedAt = at
  next.failures.limits = {
    perFailure: policy.retry.perFailure,
    sameError: policy.retry.sameError,
    total: policy.retry.total,
  }

  recordUsage(next, outcome, at)
  const agentFailure = outcome.work?.failure
  const agentStopsTheLoop = agentFailure !== undefined && stopsTheLoop(agentFailure)
  // A failed agent call is not verified (nothing changed): the last verification stays the one to show.
  if (!agentStopsTheLoop || outcome.checks.length > 0)
    next.lastVerification = { iteration, at, results: outcome.checks }
  // Flakes and auto-fixes are counted here and told once, by the step that re-ran or fixed the check.
  next.metrics.flakes += outcome.flaky.length
  next.metrics.autoFixes += outcome.autoFixed.length
  // Regressions are counted and told once per check by the analyze step (tallyRegressions), not per iteration.
  for (const task of outcome.tasksCompleted) {
    if (!next.tasks.completed.includes(task)) next.tasks.completed.push(task)
  }
  for (const raised of outcome.gatesRaised) {
    next.gates[raised.gate] = { status: 'pending', reason: raised.reason, requestedAt: at }
    emit('gate', `gate '${raised.gate}' raised: ${raised.reason}`, { gate: raised.gate })
  }
  if (next.metrics.timeToGreenMs === null && matrixIsGreen(outcome.checks, policy)) {
    next.metrics.timeToGreenMs = Math.max(0, outcome.now.getTime() - Date.parse(state.startedAt))
  }

  const previous = state.failures.current?.resolution === 'open' ? state.failures.current : null
  if (outcome.strategyUsed) {
    next.metrics.strategiesUsed[outcome.strategyUsed] = (next.metrics.strategiesUsed[outcome.strategyUsed] ?? 0) + 1
    if (previous) patternMetric(next, previous.pattern).attempts += 1
  }

  const block = (reason: string, deadLetter: boolean): { state: LoopState; events: JourneyEvent[] } => {
    next.status = 'blocked'
    next.statusReason = reason
    if (next.failures.current?.resolution === 'open') {
      setResolution(next, next.failures.current, 'escalated')
      patternMetric(next, next.failures.current.pattern).escalated += 1
    }
    if (deadLetter) next.metrics.deadLetters += 1
    recordAttempt(next, previous, outcome, 'escalated')
    emit('escalated', `BLOCKED: ${reason}`, { reason })
    return { state: compactState(next), events }
  }

  if (outcome.work?.blocked) {
    const why = outcome.work.blockedReason?.trim() || `it exited with code ${outcome.work.exitCode ?? 'none'}`
    return block(`the work command asked for a person: ${why}`, false)
  }
  if (agentFailure && agentStopsTheLoop) {
    return block(failureHandoff(agentFailure, outcome.work?.agent ?? 'the agent'), false)
  }
  if (agentFailure) emit('work', `the agent's call was cut short (${agentFailure.kind}): ${agentFailure.message}`)
  if (outcome.externalDependencyDown) {
    return block('an external dependency is unavailable; retrying cannot help until it is back', false)
  }
  const security = outcome.failures.find((f) => f.security)
  if (security) {
    const where = security.pattern ? `${security.pattern} in '${security.check}'` : `'${security.check}'`
    if (previous) setResolution(next, previous, 'escalated')
    openFailure(next, security, security.strategy, outcome, at)
    return block(`a security finding (${where}) needs a person: ${firstLine(security.error)}`, true)
  }
  // protect.on-change: fail. The work changed what judges it, so no verdict of the checks can be trusted.
  const protectedChange = outcome.failures.find((f) => f.protectedChange)
  if (protectedChange) return block(protectedChange.error, false)

  // Walk forward from the executed stage while exit requirements are met.
  const beforeWalk = copyForUpdate(next)
  const { stop, transitions } = walkStages(next, outcome.stage, outcome.checks, policy, at, emit)

  if (stop.kind === 'failed') {
    // A verification stage reached in this walk failed: stay in the stage whose work was done.
    const failedAt = stop.stage
    const walked = next
    const reverted = failedAt !== outcome.stage ? beforeWalk : walked
    return handleFailure(reverted, state, outcome, policy, failedAt, stop.failingChecks, previous, at, emit, events)
  }
  // The checks pass but a task of this stage, run after the work, is not done: a failure like a check's.
  const unfinished = stop.kind === 'tasks' ? taskFailures(stop.pendingTasks, outcome.tasksFailed ?? []) : []
  if (stop.kind === 'tasks' && unfinished.length > 0) {
    const withTasks = { ...outcome, failures: [...outcome.failures, ...unfinished] }
    const names = unfinished.map((f) => f.check)
    return handleFailure(next, state, withTasks, policy, stop.stage, names, previous, at, emit, events)
  }

  if (previous) {
    setResolution(next, previous, 'resolved')
    patternMetric(next, previous.pattern).resolved += 1
    recordAttempt(next, previous, outcome, 'resolved')
    next.failures.current = null
    next.failures.consecutive = 0
    next.failures.sameError = 0
    next.failures.tried = []
  }
  for (const transition of transitions) emit('transition', transition)
  settleStatus(next, stop, emit)
  return { state: compactState(next), events }
}

function recordUsage(next: LoopState, outcome: IterationOutcome, at: string): void {
  next.usage.wallMs += Math.max(0, outcome.wallMs)
  const why = next.lastDecision?.reason ?? ''
  if (outcome.work) {
    const work = outcome.work
    next.usage.tokens += Math.max(0, work.tokens ?? 0)
    next.usage.costUsd += Math.max(0, work.costUsd ?? 0)
    next.metrics.workCalls += 1
    if (work.session) {
      if (work.session !== next.session) delete next.sessionUsage
      next.session = work.session.slice(0, 2000)
      if (work.sessionUsage) next.sessionUsage = { ...work.sessionUsage }
    }
    const outputs: Record<string, unknown> = { exitCode: work.exitCode }
    if (work.tokens !== undefined) outputs.tokens = work.tokens
    if (work.costUsd !== undefined) outputs.costUsd = work.costUsd
    if (outcome.strategyUsed) outputs.strategy = outcome.strategyUsed
    next.usage.log.push({
      iteration: next.iteration,
      what: `work ${outcome.stage}`,
      why,
      at,
      durationMs: Math.max(0, work.durationMs),
      status: work.blocked
        ? 'blocked'
        : work.failure
          ? `agent ${work.failure.kind}`
          : work.exitCode === 0
            ? 'done'
            : `exit ${work.exitCode ?? 'none'}`,
      outputs,
    })
  }
  if (outcome.checks.length > 0) {
    const failed = outcome.checks.filter(
      (c) => c.verdict === 'fail' || c.verdict === 'timeout' || c.verdict === 'error',
    )
    next.usage.log.push({
      iteration: next.iteration,
      what: 'verify',
      why: `verification matrix after ${outcome.stage}`,
      at,
      durationMs: outcome.checks.reduce((sum, c) => Math.max(sum, c.durationMs), 0),
      status: failed.length === 0 ? 'pass' : 'fail',
      outputs: { checks: outcome.checks.length, failed: failed.map((c) => c.name) },
    })
  }
}
