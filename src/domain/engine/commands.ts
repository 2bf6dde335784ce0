/**
 * What people do to a loop (approve, reject, skip, resume, abort) and the status changes the runner
 * records after a decision. Pure: each returns a new state and the journey events; a request that does
 * not fit the loop's state throws {@link EngineError} with a message that says why.
 */
import type { JourneyEvent } from '../journey.js'
import type { Policy } from '../policy.js'
import type { LoopState } from '../state.js'
import { cappedResumeError } from './capped.js'
import type { Decision } from './decide.js'
import { EngineError } from './errors.js'
import { decisionRecord } from './iteration.js'

export interface CommandResult {
  state: LoopState
  events: JourneyEvent[]
}

const TERMINAL: readonly LoopState['status'][] = ['complete', 'aborted']

function event(
  state: LoopState,
  at: string,
  type: JourneyEvent['type'],
  message: string,
  data?: Record<string, unknown>,
) {
  return { at, iteration: state.iteration, type, message, ...(data ? { data } : {}) } satisfies JourneyEvent
}

function requireText(value: string, what: string): string {
  const trimmed = value.trim()
  if (trimmed === '') throw new EngineError(`${what} must not be empty.`)
  return trimmed
}

function refuseTerminal(state: LoopState, action: string): void {
  if (TERMINAL.includes(state.status)) {
    throw new EngineError(`loop '${state.loopId}' is ${state.status}; it cannot ${action}.`)
  }
}

/** After a gate changes: a loop that waited only on gates runs again once none is pending. */
function settleAfterGates(state: LoopState): LoopState {
  const pending = Object.entries(state.gates).filter(([, g]) => g.status === 'pending')
  if (state.status !== 'waiting' || pending.length > 0) return state
  // SHIP waits for its merge, not for a gate.
  if (state.stage === 'SHIP' && state.statusReason.startsWith('waiting for the pull request')) return state
  return { ...state, status: 'running', statusReason: '' }
}

/** Approves a pending (or rejected) gate. Call `advance` afterwards to move on without an iteration. */
export function approveGate(state: LoopState, gate: string, by: string, now: Date): CommandResult {
  refuseTerminal(state, `approve gate '${gate}'`)
  const approver = requireText(by, 'the approver')
  const current = state.gates[gate]
  if (!current) {
    const pending = Object.keys(state.gates).filter((g) => state.gates[g]?.status === 'pending')
    throw new EngineError(
      `loop '${state.loopId}' has no gate '${gate}' to approve; pending gates: ${pending.length > 0 ? pending.join(', ') : 'none'}.`,
    )
  }
  if (current.status === 'approved') {
    throw new EngineError(`gate '${gate}' is already approved (by ${current.decidedBy ?? 'someone'}).`)
  }
  const at = now.toISOString()
  const next = settleAfterGates({
    ...state,
    updatedAt: at,
    gates: { ...state.gates, [gate]: { ...current, status: 'approved', decidedBy: approver, decidedAt: at } },
  })
  return {
    state: next,
    events: [event(state, at, 'approval', `gate '${gate}' approved by ${approver}`, { gate, by: approver })],
  }
}

/** Rejects a pending gate: the loop goes BLOCKED until a person resumes it. */
export function rejectGate(state: LoopState, gate: string, by: string, now: Date): CommandResult {
  refuseTerminal(state, `reject gate '${gate}'`)
  const rejecter = requireText(by, 'the person rejecting')
  const current = state.gates[gate]
  if (current?.status !== 'pending') {
    throw new EngineError(
      `gate '${gate}' is ${current ? current.status : 'not raised'} in loop '${state.loopId}'; only a pending gate can be rejected.`,
    )
  }
  const at = now.toISOString()
  const reason = `gate '${gate}' was rejected by ${rejecter}`
  return {
    state: {
      ...state,
      updatedAt: at,
      status: 'blocked',
      statusReason: reason,
      gates: { ...state.gates, [gate]: { ...current, status: 'rejected', decidedBy: rejecter, decidedAt: at } },
    },
    events: [event(state, at, 'approval', reason, { gate, by: rejecter, rejected: true })],
  }
}

/**
 * Skips a required task with a recorded reason. `knownTasks`, when given (the policy's task names),
 * refuses a name that is no task of this loop.
 */
export function skipTask(
  state: LoopState,
  task: string,
  reason: string,
  by: string,
  now: Date,
  knownTasks?: readonly string[],
): CommandResult {
  refuseTerminal(state, `skip task '${task}'`)
  const name = requireText(task, 'the task name')
  const why = requireText(reason, `the reason for skipping '${name}' (--reason)`)
  const who = requireText(by, 'who skips the task')
  if (knownTasks && !knownTasks.includes(name)) {
    throw new EngineError(
      `'${name}' is not a task of this loop; tasks: ${knownTasks.length > 0 ? knownTasks.join(', ') : 'none'}.`,
    )
  }
  if (state.tasks.completed.includes(name)) throw new EngineError(`task '${name}' is already completed.`)
  const skipped = state.tasks.skipped.find((s) => s.task === name)
  if (skipped) throw new EngineError(`task '${name}' is already skipped (by ${skipped.by}: ${skipped.reason}).`)
  const at = now.toISOString()
  return {
    state: {
      ...state,
      updatedAt: at,
      tasks: { ...state.tasks, skipped: [...state.tasks.skipped, { task: name, reason: why, by: who, at }] },
    },
    events: [event(state, at, 'task-skipped', `task '${name}' skipped by ${who}: ${why}`, { task: name, by: who })],
  }
}

/**
 * Resumes a blocked, waiting or capped loop. The open failure is closed (a person has acted on it), the
 * per-failure counters start over and the strategies tried are forgotten; the total failure count is
 * kept. Rejected gates are cleared, so they are raised again when their trigger fires. A capped loop
 * resumes only once the limit that capped it is lifted (a higher cap given first with `changeCap`, or
 * `budget`, the config's, raised); else it throws {@link CappedResumeError} saying what to raise.
 */
export function resume(state: LoopState, by: string, now: Date, budget: Policy['budget'] = {}): CommandResult {
  refuseTerminal(state, 'resume')
  const who = requireText(by, 'who resumes the loop')
  if (state.status === 'running') {
    throw new EngineError(`loop '${state.loopId}' is already running; there is nothing to resume.`)
  }
  const stillCapped = cappedResumeError(state, budget)
  if (stillCapped) throw stillCapped
  const at = now.toISOString()
  const current = state.failures.current
  const gates = Object.fromEntries(Object.entries(state.gates).filter(([, g]) => g.status !== 'rejected'))
  const pendingGates = Object.keys(gates).filter((name) => gates[name]?.status === 'pending')
  const waitingOnGates = pendingGates.length > 0
  return {
    state: {
      ...state,
      updatedAt: at,
      status: waitingOnGates ? 'waiting' : 'running',
      statusReason: waitingOnGates ? `waiting for approval: ${pendingGates.map((g) => `'${g}'`).join(', ')}` : '',
      gates,
      failures: {
        ...state.failures,
        current: null,
        consecutive: 0,
        sameError: 0,
        tried: [],
        history: current
          ? state.failures.history.map((r) =>
              r.resolution === 'open' && r.check === current.check && r.pattern === current.pattern
                ? { ...r, resolution: 'escalated' as const }
                : r,
            )
          : state.failures.history,
      },
    },
    events: [
      event(
        state,
        at,
        'resumed',
        `resumed by ${who} (was ${state.status}: ${state.statusReason || 'no reason recorded'})`,
        { by: who },
      ),
    ],
  }
}

/** Aborts the loop for good; `reason`, when given, is recorded with who aborted it. */
export function abort(state: LoopState, by: string, now: Date, reason?: string): CommandResult {
  refuseTerminal(state, 'be aborted')
  const who = requireText(by, 'who aborts the loop')
  const why = reason?.trim() ?? ''
  const at = now.toISOString()
  const message = `aborted by ${who}${why ? `: ${why}` : ''}`
  return {
    state: { ...state, updatedAt: at, status: 'aborted', statusReason: message },
    events: [event(state, at, 'aborted', message, { by: who, ...(why ? { reason: why } : {}) })],
  }
}

/** Records a CAP_REACHED decision: the loop stops as `capped`, naming the limit. */
export function markCapped(state: LoopState, decision: Decision, now: Date): CommandResult {
  if (decision.kind !== 'CAP_REACHED')
    throw new EngineError(`markCapped needs a CAP_REACHED decision; got ${decision.kind}.`)
  refuseTerminal(state, 'be capped')
  const at = now.toISOString()
  return {
    state: {
      ...state,
      updatedAt: at,
      status: 'capped',
      statusReason: decision.reason,
      lastDecision: decisionRecord(decision),
    },
    events: [
      event(state, at, 'capped', `CAP_REACHED (${decision.limit}): ${decision.reason}`, { limit: decision.limit }),
    ],
  }
}

/** Records completion: SHIP's pull request merged, or a COMPLETE decision. */
export function markComplete(state: LoopState, now: Date): CommandResult {
  if (state.status === 'aborted') throw new EngineError(`loop '${state.loopId}' is aborted; it cannot complete.`)
  if (state.status === 'complete') return { state, events: [] }
  const at = now.toISOString()
  const stages: LoopState['stages'] = { ...state.stages }
  for (const stage of state.pipeline) {
    const entry = stages[stage]
    if (entry?.status !== 'skipped') stages[stage] = { ...entry, status: 'done', completedAt: entry?.completedAt ?? at }
  }
  const reason = state.stage === 'SHIP' ? 'the pull request is merged' : 'every stage is done'
  return {
    state: {
      ...state,
      updatedAt: at,
      stage: 'COMPLETE',
      stageEnteredAt: state.stage === 'COMPLETE' ? state.stageEnteredAt : at,
      stages,
      status: 'complete',
      statusReason: reason,
      pullRequest:
        state.pullRequest && state.stage === 'SHIP' ? { ...state.pullRequest, merged: true } : state.pullRequest,
      lastDecision: { kind: 'COMPLETE', reason },
    },
    events: [event(state, at, 'completed', `COMPLETE: ${reason}`)],
  }
}

/** Records an escalation: the loop goes BLOCKED with the reason; the open failure is escalated. */
export function markBlocked(state: LoopState, reason: string, now: Date): CommandResult {
  refuseTerminal(state, 'be blocked')
  const why = requireText(reason, 'the reason for blocking')
  const at = now.toISOString()
  const current = state.failures.current
  const escalated = current?.resolution === 'open' ? { ...current, resolution: 'escalated' as const } : current
  return {
    state: {
      ...state,
      updatedAt: at,
      status: 'blocked',
      statusReason: why,
      lastDecision: { kind: 'ESCALATE', reason: why },
      failures: {
        ...state.failures,
        current: escalated,
        history:
          current && escalated !== current
            ? state.failures.history.map((r) =>
                r.resolution === 'open' && r.check === current.check && r.pattern === current.pattern
                  ? { ...r, resolution: 'escalated' as const }
                  : r,
              )
            : state.failures.history,
      },
    },
    events: [event(state, at, 'escalated', `BLOCKED: ${why}`, { reason: why })],
  }
}

/** Raises (or keeps) a pending gate and makes the loop wait for it. */
export function markWaiting(state: LoopState, gate: string, reason: string, now: Date): CommandResult {
  refuseTerminal(state, `wait for gate '${gate}'`)
  const name = requireText(gate, 'the gate name')
  const at = now.toISOString()
  const existing = state.gates[name]
  const pending =
    existing?.status === 'pending' ? existing : { status: 'pending' as const, reason: reason.trim(), requestedAt: at }
  return {
    state: {
      ...state,
      updatedAt: at,
      status: 'waiting',
      statusReason: `waiting for approval: '${name}'${reason.trim() ? ` (${reason.trim()})` : ''}`,
      gates: { ...state.gates, [name]: pending },
      lastDecision: { kind: 'WAIT_FOR_APPROVAL', gate: name, reason: reason.trim() || `gate '${name}' needs approval` },
    },
    events:
      existing?.status === 'pending'
        ? []
        : [event(state, at, 'gate', `gate '${name}' raised: ${reason.trim()}`, { gate: name })],
  }
}

/**
 * A person gave this run an iteration cap that differs from the loop's (a flag, an input): it becomes
 * the loop's cap. Raising it above the iterations run lets a loop the cap capped go on (see
 * `reopenIfCapRaised`, `resume`); lowering it below them caps the loop at its next decision. The cap
 * cannot go below 1.
 */
export function changeCap(state: LoopState, cap: number, now: Date, reason?: string): CommandResult {
  if (!Number.isInteger(cap) || cap < 1)
    throw new EngineError(`an iteration cap must be a whole number >= 1; got ${cap}.`)
  const why = reason?.trim()
  // A cap above the limit without a reason is the caller's to refuse (capNeedsReason); a reason given
  // with a new cap is kept with it, replacing the one the loop started with.
  if (cap === state.maxIterations && (!why || why === state.capReason)) return { state, events: [] }
  const at = now.toISOString()
  return {
    state: { ...state, maxIterations: cap, ...(why ? { capReason: why } : {}), updatedAt: at },
    events: [
      event(
        state,
        at,
        'cap-changed',
        `iteration cap ${state.maxIterations} -> ${cap} (given to this run)${why ? `: ${why}` : ''}`,
        { from: state.maxIterations, to: cap, ...(why ? { reason: why } : {}) },
      ),
    ],
  }
}

/**
 * The last iteration's commits never reached the loop's branch: the job that made them was lost after
 * the save and before its push. The state forgets them, so state and branch agree again; the iteration
 * still counts against the cap (its time was spent), and the next iteration redoes the work from the
 * branch as it is.
 */
export function forgetLostCheckpoint(state: LoopState, branch: string, now: Date): CommandResult {
  const last = state.checkpoints.at(-1)
  if (!last) return { state, events: [] }
  const lost = state.checkpoints.filter((c) => c.iteration === last.iteration)
  const at = now.toISOString()
  return {
    state: { ...state, checkpoints: state.checkpoints.filter((c) => c.iteration !== last.iteration), updatedAt: at },
    events: [
      event(
        state,
        at,
        'commit-lost',
        `iteration ${last.iteration}'s commit ${lost.map((c) => c.commit.slice(0, 12)).join(', ')} never reached ${branch} (its job was lost before the push): the next iteration redoes its work`,
        { iteration: last.iteration, commits: lost.map((c) => c.commit) },
      ),
    ],
  }
}
