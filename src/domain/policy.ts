/**
 * The policy: everything the engine needs from the loop config, resolved once and checked. Pure: no I/O.
 */
import type { LoopConfig } from './loop-config.js'
import {
  CHECK_KINDS,
  type CheckKind,
  DEFAULT_EXIT_REQUIREMENTS,
  PIPELINE_PRESETS,
  STAGES,
  type Stage,
  type Strategy,
} from './stages.js'

/** What a failure pattern tells the retry rules. */
export interface PatternPolicy {
  strategy: Strategy
  alternates: Strategy[]
  retryable: boolean
  maxAutoRetries?: number
}

/** A check as the exit requirements see it. */
export interface PolicyCheck {
  name: string
  kind: CheckKind
  required: boolean
  /** Runs only when the work reaches VERIFY; only VERIFY's exit waits for it. */
  verifyOnly: boolean
}

/** A gate: raised by changed paths (the runner matches them) or always when leaving `atStage`. */
export interface PolicyGate {
  name: string
  paths: string[]
  atStage?: Stage
  required: boolean
}

export interface Policy {
  /** The ordered stages; always ends in COMPLETE. */
  pipeline: Stage[]
  /** The hard iteration cap. */
  maxIterations: number
  /** Why the cap is above {@link CAP_WITHOUT_REASON}; recorded in state. */
  capReason?: string
  retry: { perFailure: number; sameError: number; total: number; backoffSeconds: number }
  budget: { minutes?: number; tokens?: number; costUsd?: number }
  /**
   * What leaving a stage requires: check kinds, check names, or `approved` (every required gate at that
   * stage approved). Kinds that no required check provides are dropped, except `build` and `test`, which
   * then mean "every required check passes" (see {@link requirementsMet} in the engine), so that a loop
   * whose checks are all `custom` (the simple mode) still never moves on a red matrix.
   */
  exitRequirements: Partial<Record<Stage, string[]>>
  /** Required task names per stage (each must be completed or skipped with a reason to leave the stage). */
  stageTasks: Partial<Record<Stage, string[]>>
  gates: PolicyGate[]
  /** Capability names, in order, for the IMPLEMENT -> TEST -> VERIFY loop. */
  capabilities: string[]
  /** The verification matrix, as far as exit requirements care. */
  checks: PolicyCheck[]
  /** The config's kill switch (`stop: true`). */
  stop: boolean
}

/** A policy the config cannot express safely. The message names the key, the value and what is expected. */
export class PolicyError extends Error {
  override name = 'PolicyError'
}

// The cap rule lives in caps.ts; the constant is re-exported here for the engine's index.
import { CAP_WITHOUT_REASON, capNeedsReason } from './caps.js'

export { CAP_WITHOUT_REASON }

/** Kinds whose requirement falls back to "every required check passes" when no check has that kind. */
const FALLBACK_KINDS: readonly string[] = ['build', 'test']

/** The requirement that means "the stage's gates are approved". */
export const APPROVED_REQUIREMENT = 'approved'

/** A verify-only check must be able to run: VERIFY is in the pipeline, and no ordinary check waits for it. */
function checkVerifyOnly(config: LoopConfig, pipeline: readonly Stage[]): void {
  const verifyOnly = new Set(config.checks.filter((c) => c['verify-only']).map((c) => c.name))
  if (verifyOnly.size === 0) return
  if (!pipeline.includes('VERIFY')) {
    throw new PolicyError(
      `checks.${[...verifyOnly][0]}.verify-only: the pipeline (${pipeline.join(' -> ')}) has no VERIFY stage, so ` +
        `this check would never run; add VERIFY to pipeline or remove verify-only.`,
    )
  }
  for (const check of config.checks) {
    const waitsFor = check['verify-only'] ? undefined : check.needs.find((need) => verifyOnly.has(need))
    if (waitsFor) {
      throw new PolicyError(
        `checks.${check.name}.needs: '${waitsFor}' runs only at VERIFY, but '${check.name}' runs every iteration; ` +
          `make '${check.name}' verify-only too or remove '${waitsFor}' from its needs.`,
      )
    }
  }
}

/** Resolves and checks the policy from a parsed loop config. Throws {@link PolicyError} on a bad combination. */
export function policyFromConfig(config: LoopConfig): Policy {
  const maxIterations = config['max-iterations']
  const capReason = config['cap-reason']?.trim()
  const capProblem = capNeedsReason(maxIterations, capReason)
  if (capProblem) throw new PolicyError(capProblem)

  const pipeline = resolvePipeline(config.pipeline)
  const checks: PolicyCheck[] = config.checks.map((c) => ({
    name: c.name,
    kind: c.kind,
    required: c.required,
    verifyOnly: c['verify-only'],
  }))
  checkVerifyOnly(config, pipeline)
  const checkNames = new Set(checks.map((c) => c.name))
  if (checkNames.size !== checks.length) {
    const duplicate = checks.find((c, i) => checks.findIndex((d) => d.name === c.name) !== i)?.name
    throw new PolicyError(`checks: the name '${duplicate}' is used twice; each check needs a unique name.`)
  }
  const requiredKinds = new Set(checks.filter((c) => c.required).map((c) => c.kind))

  const exitRequirements: Partial<Record<Stage, string[]>> = {}
  for (const stage of pipeline) {
    const override = config.stages[stage]?.['required-checks']
    if (override) {
      for (const requirement of override) {
        const key = `stages.${stage}.required-checks`
        const known =
          requirement === APPROVED_REQUIREMENT ||
          checkNames.has(requirement) ||
          (CHECK_KINDS as readonly string[]).includes(requirement)
        if (!known) {
          throw new PolicyError(
            `${key}: '${requirement}' is neither a check kind (${CHECK_KINDS.join(', ')}), a check name ` +
              `(${[...checkNames].join(', ')}), nor '${APPROVED_REQUIREMENT}'.`,
          )
        }
        const isKind = (CHECK_KINDS as readonly string[]).includes(requirement) && !checkNames.has(requirement)
        if (isKind && !requiredKinds.has(requirement as CheckKind) && !FALLBACK_KINDS.includes(requirement)) {
          throw new PolicyError(
            `${key}: '${requirement}' is required, but no required check has kind '${requirement}'; add such a ` +
              `check or remove '${requirement}' from ${key}.`,
          )
        }
      }
      exitRequirements[stage] = [...new Set(override)]
      continue
    }
    const defaults = DEFAULT_EXIT_REQUIREMENTS[stage]
    if (!defaults) continue
    // A default kind that no required check provides is not required (typecheck, lint, ...); build and
    // test are kept and fall back to the whole matrix.
    exitRequirements[stage] = defaults.filter(
      (r) => r === APPROVED_REQUIREMENT || FALLBACK_KINDS.includes(r) || requiredKinds.has(r as CheckKind),
    )
  }

  const stageTasks: Partial<Record<Stage, string[]>> = {}
  const taskOwner = new Map<string, Stage>()
  for (const stage of STAGES) {
    const tasks = config.stages[stage]?.tasks ?? []
    if (tasks.length === 0) continue
    if (!pipeline.includes(stage)) {
      throw new PolicyError(
        `stages.${stage}.tasks: the stage ${stage} is not in the pipeline (${pipeline.join(' -> ')}), so its ` +
          `tasks would never run; add ${stage} to pipeline or remove the tasks.`,
      )
    }
    for (const task of tasks) {
      const owner = taskOwner.get(task.name)
      if (owner) {
        throw new PolicyError(
          `stages.${stage}.tasks: the task name '${task.name}' is already used in stages.${owner}.tasks; ` +
            `task names must be unique so that 'loop skip ${task.name}' is unambiguous.`,
        )
      }
      taskOwner.set(task.name, stage)
    }
    stageTasks[stage] = tasks.map((t) => t.name)
  }

  const gates: PolicyGate[] = config.gates.map((g) => ({
    name: g.name,
    paths: g.paths,
    required: g.required,
    ...(g['at-stage'] ? { atStage: g['at-stage'] } : {}),
  }))
  const gateNames = new Set<string>()
  for (const gate of gates) {
    if (gateNames.has(gate.name)) {
      throw new PolicyError(`gates: the name '${gate.name}' is used twice; each gate needs a unique name.`)
    }
    gateNames.add(gate.name)
    if (gate.paths.length === 0 && !gate.atStage) {
      throw new PolicyError(
        `gates: the gate '${gate.name}' has neither paths nor at-stage, so nothing would ever raise it; ` +
          `give it changed-path globs (paths) or a stage (at-stage).`,
      )
    }
    if (gate.atStage && !pipeline.includes(gate.atStage)) {
      throw new PolicyError(
        `gates: the gate '${gate.name}' has at-stage ${gate.atStage}, which is not in the pipeline ` +
          `(${pipeline.join(' -> ')}).`,
      )
    }
  }
  // `approved` with no gate at that stage means a gate named after the stage (REVIEW -> `review`).
  for (const stage of pipeline) {
    if (!exitRequirements[stage]?.includes(APPROVED_REQUIREMENT)) continue
    if (gates.some((g) => g.atStage === stage && g.required)) continue
    const name = stage.toLowerCase()
    if (gateNames.has(name)) {
      throw new PolicyError(
        `gates: stage ${stage} requires approval, and the gate '${name}' exists but is not required at ` +
          `${stage}; set its at-stage to ${stage} and required to true, or rename it.`,
      )
    }
    gates.push({ name, paths: [], atStage: stage, required: true })
    gateNames.add(name)
  }

  const capabilities = config.capabilities.map((c) => (typeof c === 'string' ? c : c.name))
  const seen = new Set<string>()
  for (const capability of capabilities) {
    if (seen.has(capability)) {
      throw new PolicyError(`capabilities: '${capability}' is listed twice; each capability needs a unique name.`)
    }
    seen.add(capability)
  }

  const budget: Policy['budget'] = {}
  if (config.budget.minutes !== undefined) budget.minutes = config.budget.minutes
  if (config.budget.tokens !== undefined) budget.tokens = config.budget.tokens
  if (config.budget['cost-usd'] !== undefined) budget.costUsd = config.budget['cost-usd']

  return {
    pipeline,
    maxIterations,
    ...(capReason ? { capReason } : {}),
    retry: {
      perFailure: config.retry['per-failure'],
      sameError: config.retry['same-error'],
      total: config.retry.total,
      backoffSeconds: config.retry['backoff-seconds'],
    },
    budget,
    exitRequirements,
    stageTasks,
    gates,
    capabilities,
    checks,
    stop: config.stop,
  }
}

/** The ordered stages of a preset or a custom subset, always ending in COMPLETE. */
export function resolvePipeline(pipeline: LoopConfig['pipeline']): Stage[] {
  const stages: Stage[] = typeof pipeline === 'string' ? [...PIPELINE_PRESETS[pipeline]] : [...pipeline]
  if (stages[stages.length - 1] !== 'COMPLETE') stages.push('COMPLETE')
  return stages
}
