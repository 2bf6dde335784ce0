/**
 * The verify legs' own jobs, as GitHub's Jobs API lists them for decide's run attempt: what decide takes
 * of a leg's verdict depends on them. A verdict artifact is only a file in the run: where the work of
 * plan could reach the runner's runtime token (no process isolation), it could upload a passing verdict
 * under a leg's name before the leg ran. The leg's own upload then fails (the name is taken) and its job
 * fails; so a passing verdict counts only when the leg's job concluded `success`. A leg without a verdict
 * is counted at its job's wall time when the API gives it.
 */
import { type Leg, legRunKey, type VerdictFile } from './fan-out.js'
import { boundedMs } from './fan-out-time.js'

/** One job of a run attempt, as the port hands it on (`GET .../attempts/{n}/jobs`). */
export interface RunJob {
  name: string
  status: string
  conclusion: string | null
  startedAt: string | null
  completedAt: string | null
  runAttempt: number
}

/** A run attempt's jobs as decide could read them: listed, or why not (a 403, a 404, the network). */
export type AttemptJobs = { kind: 'listed'; jobs: readonly RunJob[] } | { kind: 'unavailable'; reason: string }

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
  /** The jobs of each run attempt decide asked about (its own, and any its verdicts came from). */
  jobsByAttempt: ReadonlyMap<number, AttemptJobs>
  /** Decide's own run attempt: where a leg without a verdict ran last. */
  attempt: number
  /** `needs.verify.result`: the matrix's aggregate, all decide has when the jobs cannot be listed. */
  verifyResult: string
}

export interface Trusted {
  /** The verdicts decide takes. */
  verdicts: VerdictFile[]
  /** The legs whose verdict is not taken, by artifact name, with why (their check is an `error`). */
  untrusted: Map<string, string>
  /** The wall time of each leg's job (completed − started), under `legRunKey`, where the API gave it. */
  jobWallMs: Map<string, number>
  /** What decide could not confirm, for a warning and the summary (empty when every job was listed). */
  warnings: string[]
}

/**
 * The verdicts decide takes, judged against the legs' own jobs:
 * - a pass-like verdict whose leg's job is listed counts only when that job concluded `success`;
 * - a leg whose job is not listed, or named twice, has its pass-like verdict refused;
 * - where the attempt's jobs cannot be listed, the matrix's aggregate speaks: `success` means every
 *   leg's job succeeded, and the verdicts are taken; any other result means some leg's job did not,
 *   and no pass-like verdict can be tied to a job that did, so none is taken (an `error`, never a pass).
 * A failing verdict is taken as it is: it cannot complete the loop.
 */
export function trustVerdicts(input: TrustInput): Trusted {
  const legOf = new Map(input.legs.map((leg) => [leg.leg, leg]))
  const verdicts: VerdictFile[] = []
  const untrusted = new Map<string, string>()
  const warnings: string[] = []
  for (const [attempt, jobs] of [...input.jobsByAttempt].sort(([a], [b]) => a - b)) {
    if (jobs.kind === 'unavailable') {
      const rule =
        input.verifyResult === 'success'
          ? `the verify jobs' result (success) vouches for every leg`
          : `the verify jobs' result is '${input.verifyResult || 'unknown'}', so no passing verdict of that attempt is taken`
      warnings.push(
        `The jobs of run attempt ${attempt} could not be listed (${jobs.reason}): the legs' verdicts are not checked against their own jobs; ${rule}.`,
      )
    }
  }
  for (const verdict of input.verdicts) {
    const leg = legOf.get(verdict.leg)
    const attempt = leg ? input.verdictAttempts.get(leg.artifact) : undefined
    const jobs = attempt === undefined ? undefined : input.jobsByAttempt.get(attempt)
    if (!leg || !passLike(verdict) || !jobs) {
      // No leg of the config (mergeVerdicts ignores it), a failing verdict, or no attempt to check (none asked).
      verdicts.push(verdict)
      continue
    }
    const refusal = refusalOf(verdict.leg, jobs, input.verifyResult)
    if (refusal === null) verdicts.push(verdict)
    else untrusted.set(leg.artifact, refusal)
  }
  return { verdicts, untrusted, jobWallMs: jobWallTimes(input), warnings }
}

/** Why a leg's pass-like verdict is not taken, or null when its job vouches for it. */
function refusalOf(leg: string, jobs: AttemptJobs, verifyResult: string): string | null {
  if (jobs.kind === 'unavailable') {
    if (verifyResult === 'success') return null
    return `its verdict came from an artifact, and its verify job could not be confirmed (the jobs could not be listed: ${jobs.reason}; the verify jobs' result: ${verifyResult || 'unknown'}): not trusted`
  }
  const found = findLegJob(jobs.jobs, leg)
  if (found.kind === 'ambiguous') {
    return `its verdict came from an artifact, and ${found.count} jobs of the run are named ${legJobName(leg)}: not trusted`
  }
  if (found.kind === 'none') {
    return `its verdict came from an artifact, and no job of the run is named ${legJobName(leg)}: not trusted`
  }
  const { job } = found
  if (job.conclusion === 'success') return null
  return `its verdict came from an artifact but its verify job concluded ${job.conclusion ?? `nothing (${job.status})`}: not trusted`
}

/** Each leg's job's wall time in decide's own attempt, where the job is listed once and has both times. */
function jobWallTimes(input: TrustInput): Map<string, number> {
  const wall = new Map<string, number>()
  const jobs = input.jobsByAttempt.get(input.attempt)
  if (jobs?.kind !== 'listed') return wall
  for (const leg of input.legs) {
    const found = findLegJob(jobs.jobs, leg.leg)
    if (found.kind !== 'found') continue
    const started = Date.parse(found.job.startedAt ?? '')
    const completed = Date.parse(found.job.completedAt ?? '')
    if (Number.isFinite(started) && Number.isFinite(completed) && completed >= started) {
      wall.set(legRunKey(leg.check, leg.shard), boundedMs(completed - started))
    }
  }
  return wall
}
