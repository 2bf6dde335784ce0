/**
 * The stages of a loop and the pipeline presets.
 * Pure data: no I/O.
 */
export const STAGES = [
  'INIT',
  'SCAFFOLD',
  'IMPLEMENT',
  'TEST',
  'VERIFY',
  'VALIDATE',
  'DOCUMENT',
  'REVIEW',
  'SHIP',
  'COMPLETE',
] as const
export type Stage = (typeof STAGES)[number]

/** Failure states a loop can be in besides the pipeline stages. */
export const FAILURE_STATES = ['FAILED', 'RETRY', 'BLOCKED'] as const
export type FailureState = (typeof FAILURE_STATES)[number]

export const CHECK_KINDS = ['build', 'test', 'lint', 'typecheck', 'format', 'security', 'custom'] as const
export type CheckKind = (typeof CHECK_KINDS)[number]

export const PIPELINE_PRESETS = {
  iterate: ['IMPLEMENT', 'VERIFY', 'COMPLETE'],
  full: STAGES,
} as const satisfies Record<string, readonly Stage[]>
export type PipelinePreset = keyof typeof PIPELINE_PRESETS

/** Stages that make up the per-capability loop in the `full` preset. */
export const CAPABILITY_LOOP: readonly Stage[] = ['IMPLEMENT', 'TEST', 'VERIFY']

/**
 * Required check kinds to leave a stage. `approved` is not a check kind: it means
 * the `REVIEW` gate must be approved. A kind no required check has is dropped (policy.ts). VERIFY names
 * every kind: leaving it needs the whole matrix, every required check, the verify-only ones included.
 */
export const DEFAULT_EXIT_REQUIREMENTS: Readonly<Partial<Record<Stage, readonly string[]>>> = {
  SCAFFOLD: ['build'],
  IMPLEMENT: ['build'],
  TEST: ['build', 'test'],
  VERIFY: CHECK_KINDS,
  VALIDATE: ['build', 'test'],
  DOCUMENT: ['build', 'test'],
  REVIEW: ['build', 'test', 'approved'],
}

export const LOOP_STATUSES = ['running', 'waiting', 'blocked', 'complete', 'capped', 'aborted', 'queued'] as const
export type LoopStatus = (typeof LOOP_STATUSES)[number]

export const STRATEGIES = [
  'auto_fix',
  'context_expand',
  'analyze_then_fix',
  'dependency_check',
  'retry_with_backoff',
  'escalate',
] as const
export type Strategy = (typeof STRATEGIES)[number]

/** Universal fallbacks when a pattern's own strategy and alternates are used up. */
export const UNIVERSAL_FALLBACKS: readonly Strategy[] = ['context_expand', 'analyze_then_fix']

export const DEFAULT_GATES = ['architecture', 'security', 'database', 'external', 'deploy', 'verifier'] as const

export const DECISION_KINDS = [
  'WAIT_FOR_HUMAN',
  'WAIT_FOR_APPROVAL',
  'CAP_REACHED',
  'RETRY',
  'ESCALATE',
  'EXECUTE_STAGE',
  'COMPLETE',
  'ABORTED',
] as const
export type DecisionKind = (typeof DECISION_KINDS)[number]
