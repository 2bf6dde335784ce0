/**
 * Decide's reading of the verify legs' own jobs (GitHub's Jobs API) and its judgement of the verdicts by
 * them (`domain/fan-out-jobs.ts`). A list that cannot be read is not the end of the job: decide falls back
 * on the matrix's aggregate result, and says so in a warning and in the summary.
 */
import { messageOf } from '../config/errors.js'
import type { Leg, VerdictFile } from '../domain/fan-out.js'
import { type AttemptJobs, type Trusted, trustVerdicts } from '../domain/fan-out-jobs.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { ActionIO } from './actions-io.js'

export interface LegJobsInput {
  legs: readonly Leg[]
  verdicts: readonly VerdictFile[]
  /** The run attempt each leg's verdict artifact came from, by artifact name. */
  verdictAttempts: ReadonlyMap<string, number>
  /** This run's id and decide's attempt (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`). */
  runId: string | undefined
  attempt: number
  verifyResult: string
}

export async function verdictsByLegJobs(
  input: LegJobsInput,
  deps: { github: Pick<GitHubPort, 'listRunAttemptJobs'>; logger: Logger; io: ActionIO; hasStepSummary: boolean },
): Promise<Trusted> {
  const attempts = new Set([input.attempt, ...input.verdictAttempts.values()])
  const jobsByAttempt = new Map<number, AttemptJobs>()
  for (const attempt of [...attempts].sort((a, b) => a - b)) {
    jobsByAttempt.set(attempt, await attemptJobs(input.runId, attempt, deps.github))
  }
  const trusted = trustVerdicts({ ...input, jobsByAttempt })
  for (const warning of trusted.warnings) deps.logger.warning(warning)
  if (trusted.warnings.length > 0 && deps.hasStepSummary) {
    await deps.io.writeSummary(`${trusted.warnings.map((w) => `> [!WARNING]\n> ${w}`).join('\n\n')}\n\n`)
  }
  return trusted
}

async function attemptJobs(
  runId: string | undefined,
  attempt: number,
  github: Pick<GitHubPort, 'listRunAttemptJobs'>,
): Promise<AttemptJobs> {
  if (!runId || !(attempt >= 1)) return { kind: 'unavailable', reason: 'the run id or attempt is not known' }
  try {
    return { kind: 'listed', jobs: await github.listRunAttemptJobs(runId, attempt) }
  } catch (error) {
    return { kind: 'unavailable', reason: messageOf(error).split('\n')[0] ?? '' }
  }
}
