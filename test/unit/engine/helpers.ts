// Builders shared by the engine tests: real configs through the real schema, real outcomes.
import { type LoopConfigInput, loopConfigSchema } from '../../../src/config/loop-config.js'
import { normaliseTokens } from '../../../src/domain/analysis/similarity.js'
import { unanalyzedResult } from '../../../src/domain/check-result.js'
import {
  applyOutcome,
  beginIteration,
  decide,
  type FailureInput,
  type IterationOutcome,
  initialState,
  type Policy,
  policyFromConfig,
} from '../../../src/domain/engine/index.js'
import type { CheckKind, Strategy } from '../../../src/domain/stages.js'
import type { CheckResult, LoopState } from '../../../src/domain/state.js'

export const T0 = new Date('2025-01-01T00:00:00.000Z')
export const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000)

export const STANDARD_CHECKS = [
  { name: 'build', run: 'npm run build', kind: 'build' },
  { name: 'unit', run: 'npm test', kind: 'test' },
  { name: 'lint', run: 'npm run lint', kind: 'lint' },
  { name: 'types', run: 'tsc --noEmit', kind: 'typecheck' },
] as const

export function configOf(input: Partial<LoopConfigInput> = {}) {
  return loopConfigSchema.parse({ work: { run: 'agent' }, checks: STANDARD_CHECKS, ...input })
}

export function policyOf(input: Partial<LoopConfigInput> = {}): Policy {
  return policyFromConfig(configOf(input))
}

export function startState(policy: Policy, loopId = 'loop-1'): LoopState {
  return initialState({ loopId, goal: 'make it green', policy, now: T0 })
}

export function result(name: string, kind: CheckKind, verdict: CheckResult['verdict'] = 'pass'): CheckResult {
  return unanalyzedResult(
    { name, kind, required: true },
    { verdict, durationMs: 100, exitCode: verdict === 'pass' ? 0 : 1 },
  )
}

/** The policy's matrix with every check passing except the named failing ones. */
export function matrix(policy: Policy, failing: readonly string[] = []): CheckResult[] {
  return policy.checks.map((c) => result(c.name, c.kind, failing.includes(c.name) ? 'fail' : 'pass'))
}

export function failure(check: string, options: Partial<FailureInput> & { text?: string } = {}): FailureInput {
  const text = options.text ?? `error in ${check}: Type 'string' is not assignable to type 'number'`
  const tokens = options.tokens ?? normaliseTokens(text)
  const pattern = options.pattern === undefined ? 'type-error' : options.pattern
  return {
    check,
    kind: options.kind ?? 'typecheck',
    pattern,
    confidence: options.confidence ?? 0.9,
    strategy: options.strategy ?? 'context_expand',
    alternates: options.alternates ?? [],
    retryable: options.retryable ?? true,
    signature: options.signature ?? `${pattern ?? 'unknown'}:ts:${tokens.join('').length.toString(16)}`,
    tokens,
    error: text,
    ...(options.maxAutoRetries !== undefined ? { maxAutoRetries: options.maxAutoRetries } : {}),
    ...(options.regression ? { regression: true } : {}),
    ...(options.security ? { security: true } : {}),
  }
}

export function outcomeOf(
  state: LoopState,
  policy: Policy,
  options: Partial<IterationOutcome> & { failing?: FailureInput[] } = {},
): IterationOutcome {
  const failing = options.failing ?? options.failures ?? []
  return {
    now: options.now ?? at(state.iteration),
    stage: options.stage ?? state.stage,
    work: options.work ?? { exitCode: 0, blocked: false, durationMs: 1000 },
    checks:
      options.checks ??
      matrix(
        policy,
        failing.map((f) => f.check),
      ),
    failures: failing,
    flaky: options.flaky ?? [],
    autoFixed: options.autoFixed ?? [],
    gatesRaised: options.gatesRaised ?? [],
    tasksCompleted: options.tasksCompleted ?? [],
    ...(options.tasksFailed ? { tasksFailed: options.tasksFailed } : {}),
    wallMs: options.wallMs ?? 1000,
    ...(options.strategyUsed ? { strategyUsed: options.strategyUsed } : {}),
    ...(options.externalDependencyDown ? { externalDependencyDown: true } : {}),
  }
}

/**
 * One iteration as the runner does it: decide, begin, apply. Throws when the decision does not run an
 * iteration (tests assert on the decision first when that matters).
 */
export function iterate(
  state: LoopState,
  policy: Policy,
  options: Partial<IterationOutcome> & { failing?: FailureInput[] } = {},
): { state: LoopState; decision: ReturnType<typeof decide>; events: ReturnType<typeof applyOutcome>['events'] } {
  const decision = decide(state, { now: at(state.iteration) }, policy)
  if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
    throw new Error(`expected an iteration, got ${decision.kind}: ${decision.reason}`)
  }
  const started = beginIteration(state, decision, at(state.iteration))
  const strategyUsed: Strategy | undefined = decision.kind === 'RETRY' ? decision.strategy : undefined
  const applied = applyOutcome(
    started,
    outcomeOf(started, policy, { ...(strategyUsed ? { strategyUsed } : {}), ...options }),
    policy,
  )
  return { state: applied.state, decision, events: applied.events }
}
