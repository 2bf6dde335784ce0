/**
 * Fan-out verification: one iteration as three kinds of job. `plan` runs the work and hands on a
 * candidate commit and the legs of the check matrix; each `verify` leg runs one check (or one shard of
 * a sharded check) on the candidate and hands on its verdict; `decide` merges the verdicts and carries
 * the loop on. A loop without a baseline first runs a baseline round of the same three jobs: no work,
 * the legs run their checks at the base, and decide records the baseline (`fan-out-baseline.ts`).
 * This module holds the pure part: the legs, GitHub's matrix limit, and the hand-off files' shapes,
 * validated on read.
 */
import { z } from 'zod'
import { MAX_JOB_WALL_MS } from './fan-out-time.js'
import { workSchema } from './fan-out-work.js'
import { type LegFlakeCheck, legFlakeCheckSchema } from './leg-flake.js'
import type { Command, LoopConfig } from './loop-config.js'
import {
  expandShards,
  isSharded,
  MAX_SHARDS,
  NO_VERDICT_PREFIX,
  shardLabel,
  type TestVerdicts,
  unionTests,
} from './shards.js'
import { usageEntrySchema } from './state.js'
import { boundedTestKey, MAX_TEST_KEY_CHARS } from './test-ids.js'

/** GitHub runs at most this many jobs from one matrix. */
export const MAX_MATRIX_LEGS = 256

/** A hand-off file that does not hold what it must, or a matrix GitHub would not run. */
export class FanOutError extends Error {
  override name = 'FanOutError'
}

/**
 * One job of the verify matrix: the leg's name (its job's), the check it runs, and its verdict's
 * artifact; a leg of a sharded check also names its shard (1-based) of how many.
 */
export interface Leg {
  leg: string
  check: string
  artifact: string
  shard?: number
  shards?: number
}

/** The artifact a leg's verdict is uploaded as; also the verdict file's base name. */
export function verdictArtifact(leg: string): string {
  return `loop-verdict-${leg.replace(/[^A-Za-z0-9._-]/g, '_')}`
}

/**
 * The verify matrix's legs, in the config's order: one per check, and one per shard of a check with
 * `shards: N` (named `<check> shard i/N`); `mergeVerdicts` gives each leg's run back under `legRunKey`,
 * and decide's matrix merges a check's shards through `src/domain/shards.ts`, as the single job does.
 */
export function legsOf(config: Pick<LoopConfig, 'checks'>): Leg[] {
  refuseNeedsBetweenLegs(config.checks)
  const legs: Leg[] = config.checks.flatMap((check) => {
    if (!isSharded(check)) return [{ leg: check.name, check: check.name, artifact: verdictArtifact(check.name) }]
    return expandShards(check).map(({ shard, shards }) => {
      const leg = shardLabel(check.name, shard, shards)
      return { leg, check: check.name, artifact: verdictArtifact(leg), shard, shards }
    })
  })
  if (legs.length > MAX_MATRIX_LEGS) {
    const sharded = config.checks.filter(isSharded).map((check) => `${check.name}: ${check.shards} shards`)
    const why =
      sharded.length > 0 ? `one per check, one per shard of a sharded check (${sharded.join(', ')})` : 'one per check'
    throw new FanOutError(
      `The loop config has ${config.checks.length} checks; fan-out runs ${legs.length} verify jobs (${why}) and GitHub runs at most ${MAX_MATRIX_LEGS} jobs from one matrix. ${sharded.length > 0 ? 'Use fewer shards, merge checks' : 'Merge checks'}, or run this loop with fan-out: false.`,
    )
  }
  const byArtifact = new Map<string, string>()
  for (const { leg, artifact } of legs) {
    const other = byArtifact.get(artifact)
    if (other !== undefined) {
      throw new FanOutError(
        `Legs '${other}' and '${leg}' would upload their verdicts under one artifact name (${artifact}); rename a check (letters, digits, dot, dash, underscore).`,
      )
    }
    byArtifact.set(artifact, leg)
  }
  return legs
}

/**
 * The legs of a baseline round: every check's but the verify-only ones', which the single job's
 * baseline leaves out too (they are judged at VERIFY alone).
 */
export function baselineLegs(legs: readonly Leg[], checks: LoopConfig['checks']): Leg[] {
  return iterationLegs(legs, checks, false)
}

/**
 * The legs of one iteration, of the loop's `legs` (`legsOf`): the legs of its `verify-only` checks only
 * when `verifyOnly` (the iteration may reach VERIFY, `mayReachVerification`), as the single job runs
 * them only in an iteration that reaches VERIFY.
 */
export function iterationLegs(legs: readonly Leg[], checks: LoopConfig['checks'], verifyOnly: boolean): Leg[] {
  const slow = new Set(checks.filter((c) => c['verify-only']).map((c) => c.name))
  return legs.filter((leg) => verifyOnly || !slow.has(leg.check))
}

/**
 * What a fresh runner of fan-out runs before the project's checks, and under which config key: the
 * loop config's `verify-setup`, else its `install`; null when it has neither.
 */
export function legSetupOf(
  config: Pick<LoopConfig, 'verify-setup' | 'install'>,
): { key: 'verify-setup' | 'install'; command: Command } | null {
  if (config['verify-setup'] !== undefined) return { key: 'verify-setup', command: config['verify-setup'] }
  if (config.install !== undefined) return { key: 'install', command: config.install }
  return null
}

/**
 * Each leg is a job on its own runner: a check cannot see what another check built there, so a
 * `needs` between checks cannot be honoured in fan-out and is refused, naming both checks.
 */
function refuseNeedsBetweenLegs(checks: LoopConfig['checks']): void {
  const waiting = checks.find((check) => (check.needs ?? []).length > 0)
  const needed = waiting?.needs[0]
  if (!waiting || needed === undefined) return
  throw new FanOutError(
    `checks.${waiting.name}.needs: check '${waiting.name}' needs '${needed}', and in fan-out each check runs in its own verify job on a fresh runner, so '${waiting.name}' would not see what '${needed}' made there. Remove the needs and put what every check needs first (an install, a build) in verify-setup, which each leg runs before its check; or run this loop with fan-out: false.`,
  )
}

/** The key of a leg's run in `mergeVerdicts`' answer: the check's name, with `#<shard>` for a shard's. */
export function legRunKey(check: string, shard?: number): string {
  return shard === undefined ? check : `${check}#${shard}`
}

/** The `strategy.matrix` of the verify job, as the plan job's `matrix` output (JSON). */
export function matrixOf(legs: readonly Leg[]): { include: Leg[] } {
  return { include: [...legs] }
}

const legSchema = z
  .strictObject({
    leg: z.string().min(1).max(200),
    check: z.string().min(1).max(200),
    artifact: z.string().regex(/^loop-verdict-[A-Za-z0-9._-]+$/),
    shard: z.number().int().min(1).max(MAX_SHARDS).optional(),
    shards: z.number().int().min(2).max(MAX_SHARDS).optional(),
  })
  .refine((leg) => (leg.shard === undefined) === (leg.shards === undefined) && (leg.shard ?? 0) <= (leg.shards ?? 0), {
    message: 'a leg names its shard and how many shards together, the shard at most their count',
  })

/** The plan's own report of what ran in it (the work, the stage's tasks): taken on trust. */
const planReportSchema = z.strictObject({
  work: workSchema.nullable(),
  tasksCompleted: z.array(z.string()),
  tasksFailed: z.array(z.strictObject({ task: z.string(), excerpt: z.string().max(4000) })),
  /** What the plan's commands spent (work, fixes, install, tasks), as the state's usage log records it. */
  usage: z.array(usageEntrySchema).max(200),
  /** The plan's journey lines of the work. */
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
  /** The plan's own wall time from the iteration's start to its hand-off, in ms: decide counts it in the loop's minutes. */
  wallMs: z.number().int().nonnegative().max(MAX_JOB_WALL_MS),
  /**
   * In the iteration after the baseline round: the baseline's failures the controller fixed with their
   * fix commands before the work, and those the agent was told of (null: the work did not run).
   */
  briefing: z
    .strictObject({
      fixedFirst: z.array(z.string().max(200)).max(MAX_MATRIX_LEGS),
      toldAgent: z.array(z.string().max(200)).max(MAX_MATRIX_LEGS).nullable(),
    })
    .nullable()
    .optional(),
})

const commitId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'a full commit id')

/**
 * `plan.json`: what the plan job hands to the verify legs and to decide. Version 2: `baseline` says
 * whether the run is a baseline round (version 1's legs ran their check at `baselineAt` as well as on
 * the candidate; a version 1 plan is refused, as the jobs of one run are of one controller).
 */
export const PLAN_FILE_VERSION = 2
export const planFileSchema = z
  .strictObject({
    version: z.literal(PLAN_FILE_VERSION),
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
    /**
     * True: this run is the loop's baseline round, not an iteration's work. The loop has no baseline
     * yet; the plan did no work (its candidate is its base), each leg runs its check once at the base,
     * and decide records the merged verdicts and their analysed failures as the baseline, for the
     * iteration's first prompt. `iteration` is the iteration the round measures for, which runs next.
     */
    baseline: z.boolean(),
  })
  .refine(
    (plan) => !plan.baseline || (plan.iteration !== null && plan.candidate === plan.base && plan.report?.work === null),
    {
      message: 'a baseline round has an iteration, does no work and names its base as the candidate',
      path: ['baseline'],
    },
  )
export type PlanFile = z.infer<typeof planFileSchema>

/** The plan of a job that runs no iteration, on the state as it stands: decide settles the loop alone. */
export function noIterationPlan(loopId: string, stateVersion: string | null): PlanFile {
  return {
    version: PLAN_FILE_VERSION,
    loopId,
    stateVersion,
    iteration: null,
    stage: null,
    base: null,
    candidate: null,
    report: null,
    legs: [],
    baseline: false,
  }
}
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

/** The most JUnit test verdicts a leg hands on, and the longest test key (longer ones end in a hash, `test-ids.ts`). */
export const MAX_LEG_TESTS = 10_000
export const MAX_TEST_ID_CHARS = MAX_TEST_KEY_CHARS

const testVerdictsSchema = z
  .record(z.string().min(1).max(MAX_TEST_ID_CHARS), z.enum(['pass', 'fail']))
  .refine((tests) => Object.keys(tests).length <= MAX_LEG_TESTS, {
    message: `at most ${MAX_LEG_TESTS} test verdicts`,
  })

/**
 * `<verdict artifact>.json`: one leg's run of its check on the plan's candidate (in a baseline round,
 * the base). Version 2: version 1 also carried the leg's run at the plan's `baselineAt`.
 */
export const VERDICT_FILE_VERSION = 2
export const verdictFileSchema = z
  .strictObject({
    version: z.literal(VERDICT_FILE_VERSION),
    loopId: z.string(),
    iteration: z.number().int().positive(),
    candidate: commitId,
    leg: z.string(),
    check: z.string(),
    run: recordedRunSchema,
    /** The check's JUnit verdicts in this leg (`<check>:<test id>`), read where the check ran. */
    tests: testVerdictsSchema.optional(),
    /** The leg's flake check of its failed run, re-run where it ran (`leg-flake.ts`); `run` stays the first run. */
    flakeCheck: legFlakeCheckSchema.optional(),
    /** How long the leg's `verify-setup` ran before its check, in ms (decide counts it in the leg's time). */
    setupMs: z.number().int().nonnegative().max(MAX_JOB_WALL_MS).optional(),
  })
  .refine((verdict) => !verdict.flakeCheck || (legRunFailed(verdict.run) && !verdict.run.timedOut), {
    message: 'a flake check follows only a run that failed and did not time out',
    path: ['flakeCheck'],
  })
export type VerdictFile = z.infer<typeof verdictFileSchema>

/** Whether a leg's (first) run of its check failed: a non-zero exit, a timeout or no process. */
export function legRunFailed(run: RecordedRun): boolean {
  return run.exitCode !== 0 || run.timedOut || run.spawnError !== undefined
}

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
  return `${NO_VERDICT_PREFIX} ${leg}: ${reason}`
}

/** Whether `run` stands for a leg that gave no verdict (`noVerdict`), not a run of its check. */
export function isNoVerdict(run: RecordedRun): boolean {
  return run.spawnError?.startsWith(`${NO_VERDICT_PREFIX} `) === true
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
 * Bounds a leg's JUnit verdicts for its verdict file: each key bounded as the baseline bounds it (a long
 * one ends in its hash, never dropped), then the failing tests first (a dropped pass hides no
 * regression, a dropped failure would), up to `MAX_LEG_TESTS`.
 */
export function boundedTests(tests: TestVerdicts): { tests: TestVerdicts; dropped: number } {
  const entries = Object.entries(tests)
  const kept = entries
    .map(([key, verdict]): [string, 'pass' | 'fail'] => [boundedTestKey(key), verdict])
    .sort(([, a], [, b]) => (a === b ? 0 : a === 'fail' ? -1 : 1))
    .slice(0, MAX_LEG_TESTS)
  return { tests: Object.fromEntries(kept), dropped: entries.length - kept.length }
}

interface Expected {
  loopId: string
  iteration: number
  candidate: string
  verifyResult: string
}

/** Each leg's verdict when it holds for this iteration's candidate, else why the leg gave none. */
function judgeLegs(
  legs: readonly Leg[],
  verdicts: readonly VerdictFile[],
  expected: Expected,
  unreadable: ReadonlyMap<string, string>,
): { leg: Leg; verdict: VerdictFile | null; reason: string }[] {
  return legs.map((leg) => {
    const mine = verdicts.filter((v) => v.leg === leg.leg)
    const verdict = mine[0]
    const problem = unreadable.get(leg.artifact)
    let reason: string | null = null
    if (!verdict && problem !== undefined) reason = problem
    else if (!verdict)
      reason = `no verdict was uploaded (the verify job's result: ${expected.verifyResult || 'unknown'})`
    else if (mine.length > 1) reason = `${mine.length} verdicts were uploaded for it`
    else if (verdict.check !== leg.check) reason = `its verdict is for check '${verdict.check}', not '${leg.check}'`
    else if (verdict.loopId !== expected.loopId || verdict.iteration !== expected.iteration) {
      reason = `its verdict is for loop ${verdict.loopId} iteration ${verdict.iteration}, not ${expected.loopId} iteration ${expected.iteration}`
    } else if (verdict.candidate !== expected.candidate) {
      reason = `its verdict is for commit ${verdict.candidate.slice(0, 12)}, not the candidate ${expected.candidate.slice(0, 12)}`
    }
    return reason === null && verdict
      ? { leg, verdict, reason: '' }
      : { leg, verdict: null, reason: reason ?? 'no verdict' }
  })
}

export interface MergedVerdicts {
  runs: Map<string, RecordedRun>
  tests: TestVerdicts
  /** The flake checks the legs with a verdict made, under `legRunKey(check, shard)`. */
  flakeChecks: Map<string, LegFlakeCheck>
  /**
   * Each leg with a verdict's time, under `legRunKey(check, shard)`: its setup, its check's run and its
   * flake check's re-runs, one after the other in its job. A leg without a verdict has none.
   */
  legTimesMs: Map<string, number>
}

/**
 * Each leg's run on the candidate, under `legRunKey(check, shard)`. A leg whose verdict is missing (its
 * job failed, was cancelled or timed out before it uploaded one), unreadable, or for another loop,
 * iteration or candidate is a `noVerdict`; with `tests`, the union of the JUnit verdicts of the legs
 * that gave one (a test failing in any shard fails, `unionTests`); with `flakeChecks`, what those legs
 * re-ran of their failed check and whether it passed (decide's `leg-flakes.ts` judges them).
 */
export function mergeVerdicts(
  legs: readonly Leg[],
  verdicts: readonly VerdictFile[],
  expected: Expected,
  /** Legs whose artifact gave no verdict (a file not valid, a leg whose controller failed), by artifact name, with why. */
  unreadable: ReadonlyMap<string, string> = new Map(),
): MergedVerdicts {
  const judged = judgeLegs(legs, verdicts, expected, unreadable)
  const runs = new Map<string, RecordedRun>()
  const flakeChecks = new Map<string, LegFlakeCheck>()
  const legTimesMs = new Map<string, number>()
  for (const { leg, verdict, reason } of judged) {
    const key = legRunKey(leg.check, leg.shard)
    runs.set(key, verdict ? verdict.run : noVerdict(leg.leg, reason))
    if (verdict?.flakeCheck) flakeChecks.set(key, verdict.flakeCheck)
    if (verdict) {
      legTimesMs.set(key, (verdict.setupMs ?? 0) + verdict.run.durationMs + (verdict.flakeCheck?.durationMs ?? 0))
    }
  }
  // A verdict's tests are its own check's: a leg cannot speak for another check's tests.
  const tests = unionTests(
    judged.map(({ leg, verdict }) =>
      Object.fromEntries(Object.entries(verdict?.tests ?? {}).filter(([id]) => id.startsWith(`${leg.check}:`))),
    ),
  )
  return { runs, tests, flakeChecks, legTimesMs }
}
