/**
 * The jobs of one attempt of a workflow run, from GitHub's Jobs API
 * (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs`, every page), and a
 * job's log (`GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs`, a 302 to the plain text): a token
 * with `actions: read` may read both. Fan-out's decide judges each leg's verdict by its job and its log.
 */
import type { RunJob } from '../domain/fan-out-jobs.js'
import type { OctokitClient } from './github-client.js'
import { statusOf } from './request-error.js'

/** GitHub's most jobs per page; a matrix of 256 legs and its few other jobs take 3 pages. */
const PER_PAGE = 100

/** The fields of GitHub's `job` the port reads. */
interface RawJob {
  id: number
  name: string
  status: string
  conclusion: string | null
  started_at: string | null
  completed_at: string | null
  run_attempt?: number
}

export async function listRunAttemptJobs(
  octokit: OctokitClient,
  where: { owner: string; repo: string; runId: number; attempt: number },
): Promise<RunJob[]> {
  const jobs: RawJob[] = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRunAttempt, {
    owner: where.owner,
    repo: where.repo,
    run_id: where.runId,
    attempt_number: where.attempt,
    per_page: PER_PAGE,
  })
  return jobs.map((job) => ({
    id: job.id,
    name: job.name,
    status: job.status,
    conclusion: job.conclusion ?? null,
    startedAt: job.started_at ?? null,
    completedAt: job.completed_at ?? null,
    runAttempt: job.run_attempt ?? where.attempt,
  }))
}

/**
 * How long to wait before asking again for a log GitHub answers 404: a job's log is stored as the job
 * ends, and a job `decide` lists as completed a moment before can still lack it. 7 s in all, then the 404
 * stands (the leg is then `no verdict`, never a pass).
 */
export const JOB_LOG_WAITS_MS: readonly number[] = [1000, 2000, 4000]

/** A job's log, as plain text (the redirect followed); a 404 is asked again after each of `waitsMs`. */
export async function downloadJobLog(
  octokit: OctokitClient,
  where: { owner: string; repo: string; jobId: number },
  waitsMs: readonly number[] = JOB_LOG_WAITS_MS,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
        owner: where.owner,
        repo: where.repo,
        job_id: where.jobId,
      })
      if (typeof data === 'string') return data
      if (data instanceof ArrayBuffer) return new TextDecoder().decode(data)
      return String(data)
    } catch (error) {
      const wait = waitsMs[attempt]
      if (statusOf(error) !== 404 || wait === undefined) throw error
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}
