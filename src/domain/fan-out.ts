/**
 * Fan-out verification: one iteration as three kinds of job. `plan` runs the work and hands on a
 * candidate commit and the legs of the check matrix; each `verify` leg runs one check on the candidate
 * and hands on its verdict; `decide` merges the verdicts and carries the loop on. This module holds the
 * pure part: the legs, GitHub's matrix limit, and the hand-off files' shapes, validated on read.
 */
import { z } from 'zod'
import type { AgentFailureKind } from './agents/types.js'
import type { LoopConfig } from './loop-config.js'
import { loopStateSchema, usageEntrySchema } from './state.js'

/** GitHub runs at most this many jobs from one matrix. */
export const MAX_MATRIX_LEGS = 256

/** A hand-off file that does not hold what it must, or a matrix GitHub would not run. */
export class FanOutError extends Error {
  override name = 'FanOutError'
}

/** One job of the verify matrix: the leg's name (its job's), the check it runs, and its verdict's artifact. */
export interface Leg {
  leg: string
  check: string
  artifact: string
}

/** The artifact a leg's verdict is uploaded as; also the verdict file's base name. */
export function verdictArtifact(leg: string): string {
  return `loop-verdict-${leg.replace(/[^A-Za-z0-9._-]/g, '_')}`
}

/**
 * The verify matrix's legs: one per check, in the config's order. Shard expansion plugs in here: a
 * check with `shards: N` becomes N legs (`src/domain/shards.ts`), and `mergeVerdicts` below is where
 * their verdicts are merged back into the check's.
 */
export function legsOf(config: Pick<LoopConfig, 'checks'>): Leg[] {
  const legs = config.checks.map((check) => ({
    leg: check.name,
    check: check.name,
    artifact: verdictArtifact(check.name),
  }))
  if (legs.length > MAX_MATRIX_LEGS) {
    throw new FanOutError(
      `The loop config has ${legs.length} checks; fan-out runs one verify job per check and GitHub runs at most ${MAX_MATRIX_LEGS} jobs from one matrix. Merge checks, or run this loop with fan-out: false.`,
    )
  }
  const byArtifact = new Map<string, string>()
  for (const { leg, artifact } of legs) {
    const other = byArtifact.get(artifact)
    if (other !== undefined) {
      throw new FanOutError(
        `Checks '${other}' and '${leg}' would upload their verdicts under one artifact name (${artifact}); rename one of them (letters, digits, dot, dash, underscore).`,
      )
    }
    byArtifact.set(artifact, leg)
  }
  return legs
}

/** The `strategy.matrix` of the verify job, as the plan job's `matrix` output (JSON). */
export function matrixOf(legs: readonly Leg[]): { include: Leg[] } {
  return { include: [...legs] }
}

const legSchema = z.strictObject({
  leg: z.string().min(1).max(200),
  check: z.string().min(1).max(200),
  artifact: z.string().regex(/^loop-verdict-[A-Za-z0-9._-]+$/),
})

const AGENT_FAILURE_KINDS = [
  'overloaded',
  'rate-limit',
  'server-error',
  'network',
  'auth',
  'quota',
  'max-turns',
  'budget',
  'bad-request',
  'not-installed',
  'timed-out',
  'unknown',
] as const satisfies readonly AgentFailureKind[]
// Every kind the agents know is one a plan may report: a new kind fails to compile here.
const everyKind: Record<Exclude<AgentFailureKind, (typeof AGENT_FAILURE_KINDS)[number]>, never> = {}
void everyKind

const workSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  blocked: z.boolean(),
  blockedReason: z.string().optional(),
  durationMs: z.number().nonnegative(),
  tokens: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  session: z.string().optional(),
  sessionUsage: z.strictObject({ tokens: z.number(), costUsd: z.number() }).optional(),
  failure: z
    .strictObject({
      kind: z.enum(AGENT_FAILURE_KINDS),
      transient: z.boolean(),
      message: z.string().max(2000),
    })
    .optional(),
  agent: z.string().max(200).optional(),
})

/** The plan's own report of what ran in it (the work, the stage's tasks, the baseline): taken on trust. */
const planReportSchema = z.strictObject({
  work: workSchema.nullable(),
  tasksCompleted: z.array(z.string()),
  tasksFailed: z.array(z.strictObject({ task: z.string(), excerpt: z.string().max(4000) })),
  /** The baseline the plan measured before the work (the loop's first iteration), else null. */
  baseline: loopStateSchema.shape.baseline.unwrap().nullable(),
  /** What the plan's commands spent (work, fixes, install, tasks), as the state's usage log records it. */
  usage: z.array(usageEntrySchema).max(200),
  /** The plan's journey lines of the work and the baseline. */
  events: z
    .array(
      z.strictObject({
        at: z.string(),
        iteration: z.number().int(),
        type: z.enum(['work', 'check']),
        message: z.string().max(8000),
        data: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(200),
})

const commitId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a full commit id')

/** `plan.json`: what the plan job hands to the verify legs and to decide. */
export const planFileSchema = z.strictObject({
  version: z.literal(1),
  loopId: z.string().min(1),
  /** The state version the plan decided on (null: the loop had no state yet). */
  stateVersion: z.string().nullable(),
  /** Null when the plan found no iteration to run (the loop waits, ended, or is to be settled). */
  iteration: z.number().int().positive().nullable(),
  stage: z.string().nullable(),
  /** The loop branch's commit the work started from, and the commit that holds the work (equal: no change). */
  base: commitId.nullable(),
  candidate: commitId.nullable(),
  report: planReportSchema.nullable(),
  legs: z.array(legSchema).max(MAX_MATRIX_LEGS),
})
export type PlanFile = z.infer<typeof planFileSchema>
export type PlanReport = z.infer<typeof planReportSchema>

/** How a check's process ended in its leg: the fields of a finished run the analysis reads. */
const recordedRunSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().nonnegative(),
  output: z.string().max(256 * 1024),
  totalBytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
  spawnError: z.string().optional(),
})
export type RecordedRun = z.infer<typeof recordedRunSchema>

/** `<verdict artifact>.json`: one leg's run of its check on the candidate. */
export const verdictFileSchema = z.strictObject({
  version: z.literal(1),
  loopId: z.string(),
  iteration: z.number().int().positive(),
  candidate: commitId,
  leg: z.string(),
  check: z.string(),
  run: recordedRunSchema,
})
export type VerdictFile = z.infer<typeof verdictFileSchema>

/** Parses a hand-off file's text; a bad one is named with what is wrong in it. */
export function parseHandOff<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new FanOutError(`${what} is not JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  const parsed = schema.safeParse(json)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
  throw new FanOutError(`${what} is not a valid hand-off file: ${issues.join('; ')}`)
}

/** The line a leg without a verdict leaves in its check's output (the `infrastructure` pattern's anchor). */
export function noVerdictLine(leg: string, reason: string): string {
  return `loop-controller: no verdict from ${leg}: ${reason}`
}

/** A leg that gave no verdict, as a run that could not be had: its check's verdict is `error`, never a pass. */
export function noVerdict(leg: string, reason: string): RecordedRun {
  const line = noVerdictLine(leg, reason)
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    output: `${line}\n`,
    totalBytes: line.length + 1,
    truncated: false,
    spawnError: line,
  }
}

/**
 * Each check's run on the candidate, from its leg's verdict. A leg whose verdict is missing (its job
 * failed, was cancelled or timed out before it uploaded one), unreadable, or for another loop,
 * iteration or candidate is a `noVerdict`. Shard verdicts are merged into their check's here once checks have shards.
 */
export function mergeVerdicts(
  legs: readonly Leg[],
  verdicts: readonly VerdictFile[],
  expected: { loopId: string; iteration: number; candidate: string; verifyResult: string },
  /** Verdict files that could not be read or failed validation, by artifact name, with what is wrong. */
  unreadable: ReadonlyMap<string, string> = new Map(),
): Map<string, RecordedRun> {
  const runs = new Map<string, RecordedRun>()
  for (const { leg, check, artifact } of legs) {
    const mine = verdicts.filter((v) => v.leg === leg)
    const verdict = mine[0]
    const problem = unreadable.get(artifact)
    let reason: string | null = null
    if (!verdict && problem !== undefined) reason = `its verdict file is not valid (${problem})`
    else if (!verdict)
      reason = `no verdict was uploaded (the verify job's result: ${expected.verifyResult || 'unknown'})`
    else if (mine.length > 1) reason = `${mine.length} verdicts were uploaded for it`
    else if (verdict.check !== check) reason = `its verdict is for check '${verdict.check}', not '${check}'`
    else if (verdict.loopId !== expected.loopId || verdict.iteration !== expected.iteration) {
      reason = `its verdict is for loop ${verdict.loopId} iteration ${verdict.iteration}, not ${expected.loopId} iteration ${expected.iteration}`
    } else if (verdict.candidate !== expected.candidate) {
      reason = `its verdict is for commit ${verdict.candidate.slice(0, 12)}, not the candidate ${expected.candidate.slice(0, 12)}`
    }
    runs.set(check, reason === null && verdict ? verdict.run : noVerdict(leg, reason ?? 'no verdict'))
  }
  return runs
}
