/**
 * Decide's reading of the verify legs' own jobs (GitHub's Jobs API) and of their logs, and its judgement
 * of the verdicts by them (`domain/fan-out-jobs.ts`). A list or a log that cannot be read is not the end
 * of the job: the verdicts it would vouch for are not taken (their legs are `no verdict` errors), and
 * decide says so in a warning and in the summary.
 */
import { messageOf } from '../config/errors.js'
import type { Leg, VerdictFile } from '../domain/fan-out.js'
import { type AttemptJobs, type JobLog, legJobsToRead, type Trusted, trustVerdicts } from '../domain/fan-out-jobs.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { ActionIO } from './actions-io.js'

/** The most job logs decide downloads at once. */
const LOG_DOWNLOADS_AT_ONCE = 8

export interface LegJobsInput {
  legs: readonly Leg[]
  verdicts: readonly VerdictFile[]
  /** The run attempt each leg's verdict artifact came from, by artifact name. */
  verdictAttempts: ReadonlyMap<string, number>
  /** The sha256 (hex) of each verdict file decide read, by artifact name. */
  verdictDigests: ReadonlyMap<string, string>
  /** This run's id and decide's attempt (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`). */
  runId: string | undefined
  attempt: number
}

type LegJobsGitHub = Pick<GitHubPort, 'listRunAttemptJobs' | 'jobLog'>

export async function verdictsByLegJobs(
  input: LegJobsInput,
  deps: { github: LegJobsGitHub; logger: Logger; io: ActionIO; hasStepSummary: boolean },
): Promise<Trusted> {
  const attempts = new Set([input.attempt, ...input.verdictAttempts.values()])
  const jobsByAttempt = new Map<number, AttemptJobs>()
  for (const attempt of [...attempts].sort((a, b) => a - b)) {
    jobsByAttempt.set(attempt, await attemptJobs(input.runId, attempt, deps.github))
  }
  const jobLogs = await readJobLogs(legJobsToRead({ ...input, jobsByAttempt }), deps.github)
  const trusted = trustVerdicts({ ...input, jobsByAttempt, jobLogs })
  const unread = [...jobLogs.values()].filter((log) => log.kind === 'unavailable')
  const warnings = [...trusted.warnings]
  if (unread[0]?.kind === 'unavailable') {
    warnings.push(
      `${unread.length} verify job log(s) could not be read (${unread[0].reason}): their legs' verdicts are not taken.`,
    )
  }
  for (const warning of warnings) deps.logger.warning(warning)
  if (warnings.length > 0 && deps.hasStepSummary) {
    await deps.io.writeSummary(`${warnings.map((w) => `> [!WARNING]\n> ${w}`).join('\n\n')}\n\n`)
  }
  return { ...trusted, warnings }
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

/** Each job's log, a few at a time; one that cannot be read says why. */
async function readJobLogs(ids: readonly number[], github: Pick<GitHubPort, 'jobLog'>): Promise<Map<number, JobLog>> {
  const logs = new Map<number, JobLog>()
  for (let start = 0; start < ids.length; start += LOG_DOWNLOADS_AT_ONCE) {
    const batch = ids.slice(start, start + LOG_DOWNLOADS_AT_ONCE)
    await Promise.all(
      batch.map(async (id) => {
        try {
          logs.set(id, { kind: 'read', text: await github.jobLog(id) })
        } catch (error) {
          logs.set(id, { kind: 'unavailable', reason: messageOf(error).split('\n')[0] ?? '' })
        }
      }),
    )
  }
  return logs
}
