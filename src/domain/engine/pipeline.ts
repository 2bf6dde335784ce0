/**
 * Where the loop goes next and what leaving a stage requires. Pure.
 */
import { unanalyzedResult } from '../check-result.js'
import { APPROVED_REQUIREMENT, type Policy, type PolicyCheck, type PolicyGate } from '../policy.js'
import { CAPABILITY_LOOP, type Stage } from '../stages.js'
import type { CheckResult, LoopState } from '../state.js'

/**
 * Stages with no work of their own: their job is the verification matrix that the iteration reaching
 * them has just run, so the engine evaluates them in that same iteration. A failure there is retried in
 * the stage whose work was done (IMPLEMENT in the `iterate` preset).
 */
export const VERIFICATION_STAGES: readonly Stage[] = ['VERIFY']

/** Verdicts that satisfy a requirement: a pass, or a flaky check (failed, then passed on re-run). */
const PASSING_VERDICTS: readonly CheckResult['verdict'][] = ['pass', 'flaky']

export function isVerificationStage(stage: Stage): boolean {
  return VERIFICATION_STAGES.includes(stage)
}

/** The stage after `stage` in the pipeline, ignoring capabilities; COMPLETE after the last. */
export function followingStage(pipeline: readonly Stage[], stage: Stage): Stage {
  const index = pipeline.indexOf(stage)
  return pipeline[index + 1] ?? 'COMPLETE'
}

/** The capability loop's first and last stage in this pipeline, or null when it has none of them. */
export function capabilityLoopBounds(pipeline: readonly Stage[]): { first: Stage; last: Stage } | null {
  const inLoop = pipeline.filter((s) => CAPABILITY_LOOP.includes(s))
  const first = inLoop[0]
  const last = inLoop[inLoop.length - 1]
  return first && last ? { first, last } : null
}

export interface StageStep {
  to: Stage
  /** Set when leaving the stage finished a capability and started the next one. */
  capabilityDone?: string
  nextCapability?: string | null
}

/**
 * Leaving `stage`: the next stage, or, at the end of the capability loop with capabilities remaining,
 * back to the loop's first stage with the next capability.
 */
export function stepFrom(state: LoopState, stage: Stage): StageStep {
  const bounds = capabilityLoopBounds(state.pipeline)
  const { current, remaining } = state.capabilities
  if (bounds && stage === bounds.last && current !== null) {
    const next = remaining[0]
    if (next !== undefined) return { to: bounds.first, capabilityDone: current, nextCapability: next }
    return { to: followingStage(state.pipeline, stage), capabilityDone: current, nextCapability: null }
  }
  return { to: followingStage(state.pipeline, stage) }
}

export interface ExitEvaluation {
  /** Checks that must pass to leave the stage and did not (a missing result counts as not passing). */
  failingChecks: string[]
  /** Required tasks neither completed nor skipped. */
  pendingTasks: string[]
  /** Required gates at this stage that are not approved yet. */
  gatesToApprove: PolicyGate[]
  /** Any required gate pending anywhere (path gates raised during the stage block its exit too). */
  pendingGates: string[]
}

/** The checks a stage's requirements name (see {@link Policy.exitRequirements} for the fallback rule). */
export function requiredChecksFor(stage: Stage, policy: Policy): PolicyCheck[] {
  const requirements = policy.exitRequirements[stage] ?? []
  // A verify-only check runs at VERIFY alone, so no other stage can wait for it.
  const runsHere = policy.checks.filter((c) => !c.verifyOnly || isVerificationStage(stage))
  const required = runsHere.filter((c) => c.required)
  const selected = new Map<string, PolicyCheck>()
  for (const requirement of requirements) {
    if (requirement === APPROVED_REQUIREMENT) continue
    const byName = runsHere.find((c) => c.name === requirement)
    if (byName) {
      selected.set(byName.name, byName)
      continue
    }
    const ofKind = required.filter((c) => c.kind === requirement)
    // `build` and `test` with no check of that kind mean the whole matrix: never a transition on nothing.
    const chosen = ofKind.length > 0 ? ofKind : requirement === 'build' || requirement === 'test' ? required : []
    for (const check of chosen) selected.set(check.name, check)
  }
  return [...selected.values()]
}

/** Whether a gate must be approved before the loop may go on (unknown gates, e.g. `verifier`, are). */
export function isRequiredGate(name: string, policy: Policy): boolean {
  return policy.gates.find((g) => g.name === name)?.required ?? true
}

/** The required gates currently pending, in name order. */
export function pendingRequiredGates(state: LoopState, policy: Policy): string[] {
  return Object.entries(state.gates)
    .filter(([name, gate]) => gate.status === 'pending' && isRequiredGate(name, policy))
    .map(([name]) => name)
    .sort()
}

/** What is still missing to leave `stage`, given this iteration's matrix. */
export function evaluateExit(
  stage: Stage,
  results: readonly CheckResult[],
  state: LoopState,
  policy: Policy,
): ExitEvaluation {
  const byName = new Map(results.map((r) => [r.name, r]))
  const failingChecks = requiredChecksFor(stage, policy)
    .filter((check) => {
      const result = byName.get(check.name)
      return !result || !PASSING_VERDICTS.includes(result.verdict)
    })
    .map((c) => c.name)
  const done = new Set([...state.tasks.completed, ...state.tasks.skipped.map((s) => s.task)])
  const pendingTasks = (policy.stageTasks[stage] ?? []).filter((t) => !done.has(t))
  const needsApproval = (policy.exitRequirements[stage] ?? []).includes(APPROVED_REQUIREMENT)
  const gatesToApprove = policy.gates.filter(
    (g) => g.atStage === stage && (g.required || needsApproval) && state.gates[g.name]?.status !== 'approved',
  )
  return { failingChecks, pendingTasks, gatesToApprove, pendingGates: pendingRequiredGates(state, policy) }
}

/** Every check in the matrix that is required and passing: the matrix is green (verify-only ones when they ran). */
export function matrixIsGreen(results: readonly CheckResult[], policy: Policy): boolean {
  const byName = new Map(results.map((r) => [r.name, r]))
  return policy.checks
    .filter((c) => c.required && (!c.verifyOnly || byName.has(c.name)))
    .every((c) => {
      const verdict = byName.get(c.name)?.verdict
      return verdict !== undefined && PASSING_VERDICTS.includes(verdict)
    })
}

/**
 * Whether an iteration in `stage` can reach a verification stage, whatever its checks say: where
 * `reachesVerification` would be true with every check passing (its tasks, gates and the pipeline
 * allowing). `reachesVerification` is true only where this is; fan-out's plan, which must choose the
 * legs before any check has run, runs the verify-only ones exactly here.
 */
export function mayReachVerification(stage: Stage, state: LoopState, policy: Policy): boolean {
  const passing = policy.checks.map((c) => unanalyzedResult(c, { verdict: 'pass', durationMs: 0, exitCode: 0 }))
  return reachesVerification(stage, passing, state, policy)
}

/**
 * Whether this iteration's matrix carries the loop from `stage` into a verification stage (or the loop is
 * at one): then the verify-only checks run too, so that VERIFY is judged on the whole matrix.
 */
export function reachesVerification(
  stage: Stage,
  results: readonly CheckResult[],
  state: LoopState,
  policy: Policy,
): boolean {
  let at = stage
  for (let step = 0; step < state.pipeline.length; step++) {
    if (isVerificationStage(at)) return true
    const exit = evaluateExit(at, results, state, policy)
    const blocked = exit.failingChecks.length + exit.pendingTasks.length + exit.gatesToApprove.length
    if (blocked + exit.pendingGates.length > 0 || at === 'SHIP' || at === 'COMPLETE') return false
    const next = stepFrom(state, at).to
    // Only a verification stage is judged in the iteration that reaches it; any other waits for its work.
    if (!isVerificationStage(next)) return false
    at = next
  }
  return false
}
