/**
 * The verify legs' own jobs, as GitHub's Jobs API lists them for decide's run attempt, and each leg's job
 * log: what decide takes of a leg's verdict depends on them. A verdict artifact is only a file in the run:
 * any job that reaches the runner's runtime token (no process isolation, or the upload step's files
 * rewritten on disk) can upload one under a leg's name, before the leg ran or in place of the leg's own.
 * So a verdict counts only when its leg's job is listed once, its file's sha256 is the last one that job's
 * own log names for the leg (`fan-out-verdict-log.ts`), and, for a passing verdict, the job concluded
 * `success`. A leg without a verdict is counted at its job's wall time when the API gives it.
 */
import { type Leg, legRunFailed, legRunKey, type VerdictFile } from './fan-out.js'
import { boundedMs } from './fan-out-time.js'
import { lastVerdictDigest } from './fan-out-verdict-log.js'

/** One job of a run attempt, as the port hands it on (`GET .../attempts/{n}/jobs`). */
export interface RunJob {
  id: number
  name: string
  status: string
  conclusion: string | null
  startedAt: string | null
  completedAt: string | null
  runAttempt: number
}

/** A run attempt's jobs as decide could read them: listed, or why not (a 403, a 404, the network). */
export type AttemptJobs = { kind: 'listed'; jobs: readonly RunJob[] } | { kind: 'unavailable'; reason: string }

/** The reusable workflow's plan job's name (`name: plan`). */
const PLAN_JOB_NAME = 'plan'

/** The name the reusable workflow's verify job renders for a leg (`name: verify (${{ matrix.leg }})`). */
export function legJobName(leg: string): string {
  return `verify (${leg})`
}

/**
 * A leg's job among a run attempt's: named `verify (<leg>)`, alone or after a caller's prefix
 * (`<caller job> / verify (<leg>)`; decide cannot know the caller's job id). Two jobs that both match
 * leave the leg unconfirmed: no guess is made between them.
 */
export function findLegJob(
  jobs: readonly RunJob[],
  leg: string,
): { kind: 'found'; job: RunJob } | { kind: 'none' } | { kind: 'ambiguous'; count: number } {
  const name = legJobName(leg)
  const matching = jobs.filter((job) => job.name === name || job.name.endsWith(` / ${name}`))
  const job = matching[0]
  if (matching.length > 1) return { kind: 'ambiguous', count: matching.length }
  return job ? { kind: 'found', job } : { kind: 'none' }
}

/** A verdict that could make its check pass: its run passed, or its failed run has a flake check to judge. */
export function passLike(verdict: VerdictFile): boolean {
  const run = verdict.run
  const passed = run.exitCode === 0 && !run.timedOut && run.spawnError === undefined
  return passed || verdict.flakeCheck !== undefined
}

export interface TrustInput {
  legs: readonly Leg[]
  verdicts: readonly VerdictFile[]
  /** The run attempt each leg's verdict artifact came from, by the leg's artifact name. */
  verdictAttempts: ReadonlyMap<string, number>
  /** The sha256 (hex) of each verdict file as decide read it, by the leg's artifact name. */
  verdictDigests: ReadonlyMap<string, string>
  /** The jobs of each run attempt decide asked about (its own, and any its verdicts came from). */
  jobsByAttempt: ReadonlyMap<number, AttemptJobs>
  /** The logs of the legs' jobs decide read (`legJobsToRead`), by job id. */
  jobLogs: ReadonlyMap<number, JobLog>
  /** Decide's own run attempt: where a leg without a verdict ran last. */
  attempt: number
}

/** A job's log as decide could read it, or why not. */
export type JobLog = { kind: 'read'; text: string } | { kind: 'unavailable'; reason: string }

export interface Trusted {
  /** The verdicts decide takes. */
  verdicts: VerdictFile[]
  /** The legs whose verdict is not taken, by artifact name, with why (their check is an `error`). */
  untrusted: Map<string, string>
  /** The wall time of each leg's job (completed − started), under `legRunKey`, where the API gave it. */
  jobWallMs: Map<string, number>
  /** The plan job's wall time in decide's attempt, where the API lists it once with both times. */
  planJobWallMs: number | undefined
  /** What decide could not confirm, for a warning and the summary (empty when every job was listed). */
  warnings: string[]
  /** The id of each leg's own job, by leg name, where its verdict's attempt listed it once: where its log is. */
  legJobIds: Map<string, number>
}

/** The job that speaks for a verdict of a leg of the config, or why none can. */
function verdictJob(
  verdict: VerdictFile,
  input: Pick<TrustInput, 'verdictAttempts' | 'jobsByAttempt'>,
  leg: Leg,
): { kind: 'job'; job: RunJob } | { kind: 'refused'; reason: string } {
  const attempt = input.verdictAttempts.get(leg.artifact)
  const jobs = attempt === undefined ? undefined : input.jobsByAttempt.get(attempt)
  if (!jobs || jobs.kind === 'unavailable') {
    const why = jobs ? `the jobs could not be listed: ${jobs.reason}` : 'its run attempt is not known'
    return {
      kind: 'refused',
      reason: `its verdict came from an artifact, and its verify job could not be confirmed (${why}): not trusted`,
    }
  }
  const found = findLegJob(jobs.jobs, verdict.leg)
  if (found.kind === 'ambiguous') {
    return {
      kind: 'refused',
      reason: `its verdict came from an artifact, and ${found.count} jobs of the run are named ${legJobName(verdict.leg)}: not trusted`,
    }
  }
  if (found.kind === 'none') {
    return {
      kind: 'refused',
      reason: `its verdict came from an artifact, and no job of the run is named ${legJobName(verdict.leg)}: not trusted`,
    }
  }
  const { job } = found
  if (passLike(verdict) && job.conclusion !== 'success') {
    return {
      kind: 'refused',
      reason: `its verdict came from an artifact but its verify job concluded ${job.conclusion ?? `nothing (${job.status})`}: not trusted`,
    }
  }
  return { kind: 'job', job }
}

/**
 * The legs whose run of their check failed, each with its own job's id (where GitHub listed it once):
 * the report links their logs, so a person reads the failing shard's whole log, not only its excerpt.
 */
export function failedLegJobs(
  verdicts: readonly VerdictFile[],
  legJobIds: ReadonlyMap<string, number>,
): { leg: string; jobId: number }[] {
  return verdicts.flatMap((verdict) => {
    const jobId = legJobIds.get(verdict.leg)
    return legRunFailed(verdict.run) && jobId !== undefined ? [{ leg: verdict.leg, jobId }] : []
  })
}

/** The ids of the legs' jobs whose logs decide needs to take their verdicts (each job once). */
export function legJobsToRead(
  input: Pick<TrustInput, 'legs' | 'verdicts' | 'verdictAttempts' | 'jobsByAttempt'>,
): number[] {
  const legOf = new Map(input.legs.map((leg) => [leg.leg, leg]))
  const ids = new Set<number>()
  for (const verdict of input.verdicts) {
    const leg = legOf.get(verdict.leg)
    const found = leg ? verdictJob(verdict, input, leg) : null
    if (found?.kind === 'job') ids.add(found.job.id)
  }
  return [...ids]
}

/**
 * The verdicts decide takes. A verdict of a leg of the config counts only when
 * - its leg's job is listed, once, in the attempt the verdict came from (a leg whose job is not listed,
 *   is named twice, or whose attempt's jobs cannot be listed has its verdict refused: no fallback on the
 *   matrix's aggregate result, which a check that spends the run's token on the API could force);
 * - a passing verdict's job concluded `success` (a forged pass uploaded before the leg ran made its own
 *   upload fail);
 * - the file's sha256 is the last one the job's own log names for the leg: a verdict another job put in
 *   the leg's place, pass or fail, is refused.
 * A refused verdict is its leg's `no verdict` error, never a pass.
 */
export function trustVerdicts(input: TrustInput): Trusted {
  const legOf = new Map(input.legs.map((leg) => [leg.leg, leg]))
  const verdicts: VerdictFile[] = []
  const untrusted = new Map<string, string>()
  const warnings: string[] = []
  const legJobIds = new Map<string, number>()
  for (const [attempt, jobs] of [...input.jobsByAttempt].sort(([a], [b]) => a - b)) {
    if (jobs.kind === 'unavailable') {
      warnings.push(
        `The jobs of run attempt ${attempt} could not be listed (${jobs.reason}): no verdict of that attempt can be tied to its leg's own job, and none is taken.`,
      )
    }
  }
  for (const verdict of input.verdicts) {
    const leg = legOf.get(verdict.leg)
    if (!leg) {
      // No leg of the config: mergeVerdicts ignores it.
      verdicts.push(verdict)
      continue
    }
    const own = verdictJob(verdict, input, leg)
    if (own.kind === 'job') legJobIds.set(leg.leg, own.job.id)
    const refusal = logRefusal(verdict, input, leg)
    if (refusal === null) verdicts.push(verdict)
    else untrusted.set(leg.artifact, refusal)
  }
  return {
    verdicts,
    untrusted,
    jobWallMs: jobWallTimes(input),
    planJobWallMs: planJobWallMs(input),
    warnings,
    legJobIds,
  }
}

/** Why a leg's verdict is not taken, or null when its own job and that job's log vouch for it. */
function logRefusal(verdict: VerdictFile, input: TrustInput, leg: Leg): string | null {
  const found = verdictJob(verdict, input, leg)
  if (found.kind === 'refused') return found.reason
  const log = input.jobLogs.get(found.job.id)
  if (!log || log.kind === 'unavailable') {
    const why = log ? log.reason : 'not read'
    return `its verdict came from an artifact, and its verify job's log could not be read (${why}): not trusted`
  }
  const logged = lastVerdictDigest(log.text, verdict.leg)
  if (logged === null)
    return `its verdict came from an artifact, and its verify job's log names no verdict of it: not trusted`
  const digest = input.verdictDigests.get(leg.artifact)
  if (digest !== logged) {
    return `its verdict came from an artifact, and is not the file its verify job handed on (its log names sha256 ${logged.slice(0, 12)}, the file's is ${digest?.slice(0, 12) ?? 'unknown'}): not trusted`
  }
  return null
}

/**
 * The plan job's wall time in decide's own attempt (`plan`, alone or after a caller's prefix), where it
 * is listed once and has both times: GitHub keeps it, so the plan's report of its own time is not needed.
 */
function planJobWallMs(input: TrustInput): number | undefined {
  const jobs = input.jobsByAttempt.get(input.attempt)
  if (jobs?.kind !== 'listed') return undefined
  const plans = jobs.jobs.filter((job) => job.name === PLAN_JOB_NAME || job.name.endsWith(` / ${PLAN_JOB_NAME}`))
  return plans.length === 1 && plans[0] ? wallOf(plans[0]) : undefined
}

/** A completed job's wall time (completed − started), or undefined without both times. */
function wallOf(job: RunJob): number | undefined {
  const started = Date.parse(job.startedAt ?? '')
  const completed = Date.parse(job.completedAt ?? '')
  return Number.isFinite(started) && Number.isFinite(completed) && completed >= started
    ? boundedMs(completed - started)
    : undefined
}

/** Each leg's job's wall time in decide's own attempt, where the job is listed once and has both times. */
function jobWallTimes(input: TrustInput): Map<string, number> {
  const wall = new Map<string, number>()
  const jobs = input.jobsByAttempt.get(input.attempt)
  if (jobs?.kind !== 'listed') return wall
  for (const leg of input.legs) {
    const found = findLegJob(jobs.jobs, leg.leg)
    if (found.kind !== 'found') continue
    const ms = wallOf(found.job)
    if (ms !== undefined) wall.set(legRunKey(leg.check, leg.shard), ms)
  }
  return wall
}
