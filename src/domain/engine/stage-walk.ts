/**
 * Walking the pipeline: stages advance while their exit requirements are met, and the status the loop
 * settles in when the walk stops. Pure.
 */
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { Stage } from '../stages.js'
import type { CheckResult, LoopState } from '../state.js'
import { copyForUpdate } from './copy-state.js'
import { evaluateExit, isVerificationStage, stepFrom } from './pipeline.js'

/** Records a journey event of the iteration being applied. */
export type Emit = (type: JourneyEvent['type'], message: string, data?: Record<string, unknown>) => void

/** Where a walk along the pipeline stopped, and why. */
export type WalkStop =
  | { kind: 'failed'; stage: Stage; failingChecks: string[] }
  | { kind: 'tasks'; stage: Stage; pendingTasks: string[] }
  | { kind: 'gates'; stage: Stage; gates: string[] }
  | { kind: 'merge' }
  | { kind: 'work' }
  | { kind: 'complete' }

/**
 * Moves `next` forward from `start` while the stages' exit requirements are met by `results`; raises the
 * gates a stage needs on its way out. Mutates `next`; the caller decides whether to keep the result.
 */
export function walkStages(
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
export function settleStatus(next: LoopState, stop: Exclude<WalkStop, { kind: 'failed' }>, emit: Emit): void {
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
