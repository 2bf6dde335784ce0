/**
 * Starting an iteration and folding its outcome into the state (DESIGN.md sections 3 and 4). Pure.
 */
import { normaliseTokens } from '../analysis/similarity.js'
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { Stage, Strategy } from '../stages.js'
import type { CheckResult, DecisionRecord, FailureRecord, LoopState } from '../state.js'
import { compactState } from './compact.js'
import { copyForUpdate } from './copy-state.js'
import type { Decision } from './decide.js'
import { CapExceededError, EngineError } from './errors.js'
import { evaluateExit, isVerificationStage, matrixIsGreen, stepFrom } from './pipeline.js'
import { chooseStrategy, detectCircularFailure, type FailureInput, isRepeatedError, isSameFailure } from './retry.js'

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
  /** The strategy this iteration carried out (from the RETRY decision). */
  strategyUsed?: Strategy
  /** Controller and commands time spent this iteration. */
  wallMs: number
  externalDependencyDown?: boolean
}

/**
 * Called when an iteration starts: the next iteration number (above both `iteration` and
 * `claimedIteration`, so a lost write can never hand out a number twice), `claimedIteration`, the
 * decision. Throws {@link CapExceededError} past the cap: the cap is structural.
 */
export function beginIteration(state: LoopState, decision: Decision, now: Date): LoopState {
  if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
    throw new EngineError(`an iteration runs only on an EXECUTE_STAGE or RETRY decision; got ${decision.kind}.`)
  }
  if (state.status !== 'running' && state.status !== 'waiting') {
    throw new EngineError(`loop '${state.loopId}' is ${state.status}; it cannot start an iteration.`)
  }
  if (decision.stage !== state.stage) {
    throw new EngineError(
      `the decision is for stage ${decision.stage}, but loop '${state.loopId}' is at ${state.stage}.`,
    )
  }
  const iteration = Math.max(state.iteration, state.claimedIteration) + 1
  if (iteration > state.maxIterations) {
    throw new CapExceededError(
      `loop '${state.loopId}' has run ${Math.max(state.iteration, state.claimedIteration)} of ` +
        `${state.maxIterations} iterations (max-iterations); iteration ${iteration} would pass the cap.`,
    )
  }
  return {
    ...state,
    iteration,
    claimedIteration: iteration,
    status: 'running',
    statusReason: '',
    updatedAt: now.toISOString(),
    lastDecision: decisionRecord(decision),
  }
}

/** A decision as recorded in state. ABORTED is not a recorded kind; callers record it as a status. */
export function decisionRecord(decision: Decision): DecisionRecord {
  const kind = decision.kind === 'ABORTED' ? 'ESCALATE' : decision.kind
  const record: DecisionRecord = { kind, reason: decision.reason }
  if (decision.kind === 'EXECUTE_STAGE' || decision.kind === 'RETRY') {
    record.stage = decision.stage
    record.capability = decision.capability
  }
  if (decision.kind === 'RETRY') record.strategy = decision.strategy
  if (decision.kind === 'WAIT_FOR_APPROVAL') record.gate = decision.gate
  if (decision.kind === 'CAP_REACHED') record.limit = decision.limit
  return record
}

type WalkStop =
  | { kind: 'failed'; stage: Stage; failingChecks: string[] }
  | { kind: 'tasks'; stage: Stage; pendingTasks: string[] }
  | { kind: 'gates'; stage: Stage; gates: string[] }
  | { kind: 'merge' }
  | { kind: 'work' }
  | { kind: 'complete' }

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
 * person, an unavailable external dependency, a security finding, a non-retryable or escalating
 * pattern, a circular failure, `total` reaching `retry.total`, more retries than the failure's budget
 * (the pattern's `max_auto_retries`, else `retry.per-failure`), the same error `retry.same-error`
 * times, or no untried strategy left for a repeated error.
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
  next.lastVerification = { iteration, at, results: outcome.checks }
  for (const check of outcome.flaky) emit('flaky', `'${check}' failed, then passed on re-run: marked flaky`)
  for (const check of outcome.autoFixed) emit('auto-fix', `'${check}' was fixed by its fix command`)
  next.metrics.flakes += outcome.flaky.length
  next.metrics.autoFixes += outcome.autoFixed.length
  for (const failure of outcome.failures.filter((f) => f.regression)) {
    next.metrics.regressions += 1
    emit('regression', `'${failure.check}' passed in the baseline and fails now`, { signature: failure.signature })
  }
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

/**
 * Moves `next` forward from `start` while the stages' exit requirements are met by `results`; raises the
 * gates a stage needs on its way out. Mutates `next`; the caller decides whether to keep the result.
 */
function walkStages(
  next: LoopState,
  start: Stage,
  results: readonly CheckResult[],
  policy: Policy,
  at: string,
  emit: Emit,
): { stop: WalkStop; transitions: string[] } {
  const transitions: string[] = []
  let stage = start
  for (;;) {
    const exit = evaluateExit(stage, results, next, policy)
    if (exit.failingChecks.length > 0)
      return { stop: { kind: 'failed', stage, failingChecks: exit.failingChecks }, transitions }
    if (exit.pendingTasks.length > 0)
      return { stop: { kind: 'tasks', stage, pendingTasks: exit.pendingTasks }, transitions }
    if (exit.gatesToApprove.length > 0 || exit.pendingGates.length > 0) {
      for (const gate of exit.gatesToApprove) {
        if (next.gates[gate.name]?.status === 'pending') continue
        next.gates[gate.name] = { status: 'pending', reason: `leaving ${stage} needs approval`, requestedAt: at }
        emit('gate', `gate '${gate.name}' raised: leaving ${stage} needs approval`, { gate: gate.name })
      }
      const gates = [...new Set([...exit.pendingGates, ...exit.gatesToApprove.map((g) => g.name)])]
      return { stop: { kind: 'gates', stage, gates }, transitions }
    }
    if (stage === 'SHIP') return { stop: { kind: 'merge' }, transitions }
    const step = stepFrom(next, stage)
    enterStage(next, stage, step, at)
    transitions.push(
      step.capabilityDone !== undefined
        ? `${stage} -> ${step.to} (capability '${step.capabilityDone}' done${step.nextCapability ? `; next: '${step.nextCapability}'` : ''})`
        : `${stage} -> ${step.to}`,
    )
    stage = step.to
    if (stage === 'COMPLETE') return { stop: { kind: 'complete' }, transitions }
    if (!isVerificationStage(stage)) return { stop: { kind: 'work' }, transitions }
  }
}

/** The status after a walk that did not fail. */
function settleStatus(next: LoopState, stop: Exclude<WalkStop, { kind: 'failed' }>, emit: Emit): void {
  const iteration = next.iteration
  switch (stop.kind) {
    case 'complete':
      next.status = 'complete'
      next.statusReason = `complete after ${iteration} iteration${iteration === 1 ? '' : 's'}`
      emit('completed', `COMPLETE after ${iteration} iteration${iteration === 1 ? '' : 's'}`)
      return
    case 'merge': {
      const pr = next.pullRequest ? ` #${next.pullRequest.number}` : ''
      next.status = 'waiting'
      next.statusReason = `waiting for the pull request${pr} to be merged`
      return
    }
    case 'gates':
      next.status = 'waiting'
      next.statusReason = `waiting for approval: ${stop.gates.map((g) => `'${g}'`).join(', ')}`
      return
    case 'tasks':
      next.status = 'running'
      next.statusReason = `${stop.stage} has tasks left: ${stop.pendingTasks.join(', ')} (complete them, or skip with a reason)`
      return
    case 'work':
      next.status = 'running'
      next.statusReason = ''
      return
  }
}

/**
 * Re-judges the current stage against the last verification matrix without running anything. Call it
 * after an approval or a skip: when that was the last missing requirement, the loop moves on at once
 * (for example to COMPLETE) instead of spending an iteration. Leaves the state as it is when the matrix
 * is older than the last iteration, a failure is open, or something is still missing.
 */
export function advance(state: LoopState, policy: Policy, now: Date): { state: LoopState; events: JourneyEvent[] } {
  const unchanged = { state, events: [] as JourneyEvent[] }
  const verification = state.lastVerification
  if (state.status !== 'running' && state.status !== 'waiting') return unchanged
  if (!verification || verification.iteration !== state.iteration) return unchanged
  if (state.failures.current?.resolution === 'open') return unchanged
  if (state.stage === 'SHIP' || state.stage === 'COMPLETE') return unchanged
  const at = now.toISOString()
  const events: JourneyEvent[] = []
  const emit: Emit = (type, message, data) => {
    events.push({ at, iteration: state.iteration, type, message, ...(data ? { data } : {}) })
  }
  const next = copyForUpdate(state)
  const { stop, transitions } = walkStages(next, state.stage, verification.results, policy, at, emit)
  if (stop.kind === 'failed' || (transitions.length === 0 && stop.kind === 'tasks')) return unchanged
  next.updatedAt = at
  for (const transition of transitions) emit('transition', transition)
  settleStatus(next, stop, emit)
  return { state: next, events }
}

type Emit = (type: JourneyEvent['type'], message: string, data?: Record<string, unknown>) => void

function handleFailure(
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
  const repeated = sameFailure && isRepeatedError(previous, primary)
  const tried = sameFailure ? [...state.failures.tried] : []
  if (sameFailure && outcome.strategyUsed) {
    tried.push({ strategy: outcome.strategyUsed, iteration, outcome: repeated ? 'same error' : 'changed error' })
  }
  if (previous && !sameFailure) {
    // The failure retried last time is gone; a different one took its place.
    setResolution(next, previous, 'resolved')
    patternMetric(next, previous.pattern).resolved += 1
    recordAttempt(next, previous, outcome, 'resolved')
  }
  const maxAttempts = primary.maxAutoRetries ?? policy.retry.perFailure
  const choice = chooseStrategy(primary, sameFailure ? previous : null, tried, policy)
  next.failures.total = state.failures.total + 1
  next.failures.consecutive = sameFailure ? state.failures.consecutive + 1 : 1
  next.failures.sameError = repeated ? state.failures.sameError + 1 : 0
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
    blockedReason = `${label} in '${primary.check}' is still failing after ${maxAttempts} ${maxAttempts === 1 ? 'retry' : 'retries'}`
  } else if (next.failures.sameError >= policy.retry.sameError) {
    blockedReason = `the same ${label} in '${primary.check}' came back ${next.failures.sameError} time${next.failures.sameError === 1 ? '' : 's'} after ${tried.map((t) => t.strategy).join(', ') || 'no change'} (retry.same-error is ${policy.retry.sameError})`
  } else if (choice.strategy === null) blockedReason = choice.reason

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
function openFailure(
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
    resolution: 'open',
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
    at,
  }
  next.failures.current = record
  next.failures.history.push({ ...record, tokens: [...record.tokens] })
  return record
}

/**
 * Sets a failure's resolution on the current record and on its history entries: every still-open record
 * of the same failure (same check and pattern), since a failure retried three times has three records.
 */
function setResolution(next: LoopState, record: FailureRecord, resolution: FailureRecord['resolution']): void {
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

function patternMetric(
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
function recordAttempt(
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

function recordUsage(next: LoopState, outcome: IterationOutcome, at: string): void {
  next.usage.wallMs += Math.max(0, outcome.wallMs)
  const why = next.lastDecision?.reason ?? ''
  if (outcome.work) {
    const work = outcome.work
    next.usage.tokens += Math.max(0, work.tokens ?? 0)
    next.usage.costUsd += Math.max(0, work.costUsd ?? 0)
    next.metrics.workCalls += 1
    if (work.session) next.session = work.session.slice(0, 2000)
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
      status: work.blocked ? 'blocked' : work.exitCode === 0 ? 'done' : `exit ${work.exitCode ?? 'none'}`,
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

/** Enters the next stage: marks the old one done, starts the next capability when the loop wraps. */
function enterStage(next: LoopState, from: Stage, step: ReturnType<typeof stepFrom>, at: string): void {
  next.stages[from] = { ...next.stages[from], status: 'done', completedAt: at }
  if (step.capabilityDone !== undefined) {
    next.capabilities.completed.push(step.capabilityDone)
    next.capabilities.current = step.nextCapability ?? null
    if (step.nextCapability) {
      next.capabilities.remaining = next.capabilities.remaining.slice(1)
      // A new pass of the capability loop: its stages start over.
      const loopStart = next.pipeline.indexOf(step.to)
      const loopEnd = next.pipeline.indexOf(from)
      for (const s of next.pipeline.slice(loopStart, loopEnd + 1)) next.stages[s] = { status: 'pending' }
    }
  }
  next.stages[step.to] = { status: step.to === 'COMPLETE' ? 'done' : 'active', enteredAt: at }
  if (step.to === 'COMPLETE') next.stages[step.to] = { status: 'done', enteredAt: at, completedAt: at }
  next.stage = step.to
  next.stageEnteredAt = at
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

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 200)
}
