/**
 * The jobs of one attempt of a workflow run, from GitHub's Jobs API
 * (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs`, every page), and a
 * job's log (`GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs`, a 302 to the plain text): a token
 * with `actions: read` may read both. Fan-out's decide judges each leg's verdict by its job and its log.
 */
import type { RunJob } from '../domain/fan-out-jobs.js'
import type { OctokitClient } from './github-client.js'

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

/** A job's log, as plain text (the redirect followed). */
export async function downloadJobLog(
  octokit: OctokitClient,
  where: { owner: string; repo: string; jobId: number },
): Promise<string> {
  const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
    owner: where.owner,
    repo: where.repo,
    job_id: where.jobId,
  })
  if (typeof data === 'string') return data
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data)
  return String(data)
}
