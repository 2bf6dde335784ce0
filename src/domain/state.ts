/**
 * `loop-state.json`: the loop's state, validated with zod on every read and write (its invariants:
 * docs/architecture.md, "State and its invariants").
 * Older schema versions are migrated in `migrations.ts`; a newer one is refused.
 */
import { z } from 'zod'
import { loopTaskSchema } from './loop-task.js'
import { CHECK_KINDS, DECISION_KINDS, LOOP_STATUSES, STAGES, STRATEGIES } from './stages.js'

export const STATE_SCHEMA_VERSION = 1

const isoTime = z.string().min(1)
const stageOrFailure = z.enum([...STAGES, 'FAILED', 'RETRY', 'BLOCKED'])

export const locationSchema = z.strictObject({
  file: z.string(),
  line: z.number().int().nonnegative().optional(),
  column: z.number().int().nonnegative().optional(),
  message: z.string().optional(),
})
export type Location = z.infer<typeof locationSchema>

/** One check's result in one iteration, as recorded in state (trimmed output lives in the audit trail). */
export const checkResultSchema = z.strictObject({
  name: z.string(),
  kind: z.enum(CHECK_KINDS),
  verdict: z.enum(['pass', 'fail', 'timeout', 'skipped', 'flaky', 'error']),
  required: z.boolean().default(true),
  durationMs: z.number().nonnegative().default(0),
  exitCode: z.number().int().nullable().default(null),
  skippedReason: z.string().optional(),
  pattern: z.string().nullable().default(null),
  confidence: z.number().min(0).max(1).nullable().default(null),
  strategy: z.enum(STRATEGIES).nullable().default(null),
  signature: z.string().nullable().default(null),
  locations: z.array(locationSchema).default([]),
  /** A short excerpt of the failure (the full log stays in the audit trail). */
  excerpt: z.string().max(4000).default(''),
  autoFixed: z.boolean().default(false),
  /** It passed at the baseline and fails now. */
  regression: z.boolean().optional(),
})
export type CheckResult = z.infer<typeof checkResultSchema>

/** The most baseline failures, locations of one and characters of its hint the state keeps. */
export const MAX_BASELINE_FAILURES = 256
export const MAX_FAILURE_LOCATIONS = 20
export const MAX_FAILURE_HINT_CHARS = 2000

/** A failing check of the baseline as the work command is told of it (`FailureForAgent`). */
const baselineFailureSchema = z.strictObject({
  check: z.string(),
  kind: z.string(),
  pattern: z.string().nullable(),
  confidence: z.number().min(0).max(1).nullable(),
  strategy: z.enum(STRATEGIES),
  locations: z.array(locationSchema).max(MAX_FAILURE_LOCATIONS),
  excerpt: z.string().max(4000),
  hint: z.string().max(MAX_FAILURE_HINT_CHARS).optional(),
  regression: z.boolean().optional(),
  signature: z.string().optional(),
})

export const failureRecordSchema = z.strictObject({
  iteration: z.number().int().nonnegative(),
  stage: stageOrFailure,
  capability: z.string().nullable().default(null),
  check: z.string(),
  error: z.string().max(2000),
  pattern: z.string().nullable(),
  confidence: z.number().min(0).max(1).nullable().default(null),
  strategy: z.enum(STRATEGIES),
  signature: z.string(),
  /** Normalised token fingerprint for the same-error rule (bounded). */
  tokens: z.array(z.string()).max(400).default([]),
  /** The failing tests the check named (current failure only), to tell progress from a repeat. */
  failingTests: z.array(z.string()).max(500).optional(),
  resolution: z.enum(['open', 'resolved', 'flaky', 'escalated', 'auto-fixed']).default('open'),
  /** The retry budget for this failure (the pattern's `max_auto_retries`, else `retry.per-failure`). */
  maxAttempts: z.number().int().nonnegative().optional(),
  at: isoTime,
})
export type FailureRecord = z.infer<typeof failureRecordSchema>

export const gateStateSchema = z.strictObject({
  status: z.enum(['pending', 'approved', 'rejected']),
  reason: z.string().default(''),
  requestedAt: isoTime,
  decidedBy: z.string().optional(),
  decidedAt: isoTime.optional(),
})
export type GateState = z.infer<typeof gateStateSchema>

export const usageEntrySchema = z.strictObject({
  iteration: z.number().int().nonnegative(),
  what: z.string(),
  why: z.string().default(''),
  at: isoTime,
  durationMs: z.number().nonnegative(),
  status: z.string(),
  outputs: z.record(z.string(), z.unknown()).default({}),
})
export type UsageEntry = z.infer<typeof usageEntrySchema>

export const attemptMetricSchema = z.strictObject({
  iteration: z.number().int().nonnegative(),
  pattern: z.string().nullable(),
  strategy: z.enum(STRATEGIES),
  durationMs: z.number().nonnegative(),
  verdict: z.enum(['resolved', 'failed', 'escalated', 'flaky', 'pending']),
})

export const metricsSchema = z.strictObject({
  attempts: z.array(attemptMetricSchema).default([]),
  /** Aggregates survive compaction of `attempts`. */
  byPattern: z
    .record(
      z.string(),
      z.strictObject({ attempts: z.number().int(), resolved: z.number().int(), escalated: z.number().int() }),
    )
    .default({}),
  strategiesUsed: z.record(z.string(), z.number().int()).default({}),
  flakes: z.number().int().nonnegative().default(0),
  regressions: z.number().int().nonnegative().default(0),
  /** The checks and tests already counted as regressions: each is counted once per loop, not per iteration. */
  regressed: z.strictObject({ checks: z.array(z.string()).max(1000), tests: z.array(z.string()).max(1000) }).optional(),
  autoFixes: z.number().int().nonnegative().default(0),
  workCalls: z.number().int().nonnegative().default(0),
  deadLetters: z.number().int().nonnegative().default(0),
  timeToGreenMs: z.number().nonnegative().nullable().default(null),
})
export type Metrics = z.infer<typeof metricsSchema>

export const decisionRecordSchema = z.strictObject({
  kind: z.enum(DECISION_KINDS),
  stage: stageOrFailure.optional(),
  capability: z.string().nullable().optional(),
  strategy: z.enum(STRATEGIES).optional(),
  gate: z.string().optional(),
  limit: z.string().optional(),
  reason: z.string(),
})
export type DecisionRecord = z.infer<typeof decisionRecordSchema>

/**
 * A re-dispatch of iteration `iteration`, of `workflow` on `ref`, at `at` by the run `by` (a loop's job or
 * a sweeper's); `failed` holds the error when the dispatch call failed, so nothing is scheduled.
 */
export const dispatchRecordSchema = z.strictObject({
  iteration: z.number().int().positive(),
  workflow: z.string().min(1),
  ref: z.string().min(1),
  at: isoTime,
  by: z.string(),
  failed: z.string().max(2000).optional(),
  /** How many times a sweeper re-dispatched this iteration. */
  sweeps: z.number().int().nonnegative().optional(),
  /** The run the dispatch started, where GitHub said (`return_run_details`): the sweeper asks how it stands. */
  run: z.string().min(1).optional(),
})
export type DispatchRecord = z.infer<typeof dispatchRecordSchema>

export const loopStateSchema = z.strictObject({
  schemaVersion: z.literal(STATE_SCHEMA_VERSION),
  loopId: z.string().min(1).max(200),
  iteration: z.number().int().nonnegative(),
  stage: z.enum(STAGES),
  status: z.enum(LOOP_STATUSES),
  statusReason: z.string().default(''),
  goal: z.string(),
  /** The issue or pull request the loop started from, quoted to the agent (untrusted text). */
  task: loopTaskSchema.optional(),
  pipeline: z.array(z.enum(STAGES)).min(1),
  maxIterations: z.number().int().positive(),
  capReason: z.string().optional(),
  startedAt: isoTime,
  updatedAt: isoTime,
  stageEnteredAt: isoTime,
  capabilities: z.strictObject({
    total: z.number().int().nonnegative(),
    completed: z.array(z.string()),
    current: z.string().nullable(),
    remaining: z.array(z.string()),
  }),
  stages: z.partialRecord(
    z.enum(STAGES),
    z.strictObject({
      status: z.enum(['pending', 'active', 'done', 'skipped']),
      enteredAt: isoTime.optional(),
      completedAt: isoTime.optional(),
    }),
  ),
  failures: z.strictObject({
    total: z.number().int().nonnegative(),
    /** Attempts on the current failure (reset when a different error appears). */
    consecutive: z.number().int().nonnegative(),
    /** Attempts on the very same error (same pattern, > 80% token overlap). */
    sameError: z.number().int().nonnegative(),
    limits: z.strictObject({ perFailure: z.number().int(), sameError: z.number().int(), total: z.number().int() }),
    current: failureRecordSchema.nullable(),
    /** Strategies already tried on the current failure, in order. */
    tried: z.array(z.strictObject({ strategy: z.enum(STRATEGIES), iteration: z.number().int(), outcome: z.string() })),
    history: z.array(failureRecordSchema),
    /** How many older history records compaction folded away. */
    compacted: z.number().int().nonnegative().default(0),
  }),
  gates: z.record(z.string(), gateStateSchema),
  checkpoints: z.array(
    z.strictObject({ iteration: z.number().int(), commit: z.string(), message: z.string(), at: isoTime }),
  ),
  tasks: z.strictObject({
    completed: z.array(z.string()),
    skipped: z.array(z.strictObject({ task: z.string(), reason: z.string().min(1), by: z.string(), at: isoTime })),
  }),
  usage: z.strictObject({
    log: z.array(usageEntrySchema),
    compacted: z.number().int().nonnegative().default(0),
    wallMs: z.number().nonnegative(),
    tokens: z.number().nonnegative(),
    costUsd: z.number().nonnegative(),
  }),
  budget: z.strictObject({
    minutes: z.number().positive().optional(),
    tokens: z.number().positive().optional(),
    costUsd: z.number().positive().optional(),
  }),
  session: z.string().max(2000).optional(),
  /** What `session` had reported so far: a CLI that reports running totals is counted by what grew. */
  sessionUsage: z.strictObject({ tokens: z.number().min(0), costUsd: z.number().min(0) }).optional(),
  baseline: z
    .strictObject({
      takenAt: isoTime,
      checks: z.record(z.string(), z.enum(['pass', 'fail'])),
      tests: z.record(z.string(), z.enum(['pass', 'fail'])),
      /**
       * The baseline's failures, analysed, when a round of its own measured it (fan-out): the next
       * iteration's prompt carries them, and its declared fixes run on them first. Not a verification.
       */
      failures: z.array(baselineFailureSchema).max(MAX_BASELINE_FAILURES).optional(),
    })
    .optional(),
  /**
   * Fan-out's baseline rounds that lost a leg (no verdict) while the loop had no baseline: the first is
   * not recorded and the round runs again; a second records what its legs measured (bounded, never a loop).
   */
  baselineRoundsLost: z.number().int().positive().optional(),
  lastVerification: z
    .strictObject({ iteration: z.number().int(), at: isoTime, results: z.array(checkResultSchema) })
    .optional(),
  lastDecision: decisionRecordSchema.optional(),
  /** What the last checkpoint left out of its commits (ignored, large, credential-shaped, workflows), and why. */
  refusedFromCommit: z
    .array(z.strictObject({ iteration: z.number().int(), path: z.string(), reason: z.string(), remedy: z.string() }))
    .optional(),
  /** The highest iteration number a dispatch has claimed; a dispatch at or below it is superseded. */
  claimedIteration: z.number().int().nonnegative().default(0),
  pullRequest: z.strictObject({ number: z.number().int(), url: z.string(), merged: z.boolean() }).optional(),
  /** The last re-dispatch of the next iteration, recorded before the call: what `command: sweep` reads. */
  dispatch: dispatchRecordSchema.optional(),
  metrics: metricsSchema,
  /** The workflow run whose job last ran an iteration of the loop (the action records it; the dashboard links it). */
  lastRun: z.strictObject({ id: z.string().min(1), url: z.string() }).optional(),
})
export type LoopState = z.infer<typeof loopStateSchema>
