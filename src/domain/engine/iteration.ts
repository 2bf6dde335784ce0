/** Starting an iteration: the number it gets, and the decision it records. Pure. */
import type { DecisionRecord, LoopState } from '../state.js'
import type { Decision } from './decide.js'
import { CapExceededError, EngineError } from './errors.js'

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
