/**
 * The loop engine: pure functions from state, observations and policy to decisions and new states.
 * No I/O, no clock.
 */

export {
  CAP_WITHOUT_REASON,
  type PatternPolicy,
  type Policy,
  type PolicyCheck,
  PolicyError,
  type PolicyGate,
  policyFromConfig,
  resolvePipeline,
} from '../policy.js'
export { CappedResumeError, cappedResumeError, capReopens, iterationsRun, reopenIfCapRaised } from './capped.js'
export {
  abort,
  approveGate,
  type CommandResult,
  changeCap,
  forgetLostCheckpoint,
  markBlocked,
  markCapped,
  markComplete,
  markWaiting,
  rejectGate,
  resume,
  skipTask,
} from './commands.js'
export { COMPACTION_LIMITS, compactState } from './compact.js'
export {
  backoffMs,
  type CapLimit,
  cappedBy,
  capReached,
  type Decision,
  decide,
  type Observations,
} from './decide.js'
export { CapExceededError, EngineError } from './errors.js'
export { initialState } from './initial.js'
export { beginIteration, decisionRecord } from './iteration.js'
export { applyOutcome, type IterationOutcome } from './outcome.js'
export {
  type ExitEvaluation,
  evaluateExit,
  isVerificationStage,
  matrixIsGreen,
  mayReachVerification,
  pendingRequiredGates,
  reachesVerification,
  requiredChecksFor,
  VERIFICATION_STAGES,
} from './pipeline.js'
export {
  chooseStrategy,
  detectCircularFailure,
  type FailureInput,
  isRepeatedError,
  isSameFailure,
  type StrategyChoice,
} from './retry.js'
export { taskFailureName, taskOfFailure, type UnfinishedTask } from './stage-tasks.js'
export { advance } from './stage-walk.js'
export { summarizeNextAction } from './summary.js'
