// The jobs of a workflow run as GitHub's Jobs API gives them (`job`): each a live view of the engine's
// record of that job, so its name (a matrix leg's, rendered when the leg starts), status, conclusion,
// times and log are what the engine holds at the moment of the request.

import { nodeId, type RepoModel, type RunModel, type UrlContext } from './github-objects.js'
import type { JobRecord } from './job-record.js'

/** A job of a run attempt, as the API reports it. */
export interface JobModel {
  readonly id: number
  readonly runId: number
  readonly runAttempt: number
  readonly name: string
  readonly status: 'queued' | 'pending' | 'in_progress' | 'completed'
  readonly conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped' | null
  readonly headSha: string
  readonly headBranch: string
  readonly workflowName: string
  readonly createdAt: string
  readonly startedAt: string
  readonly completedAt: string | null
  /**
   * The job's log as `GET .../actions/jobs/{job_id}/logs` serves it once the job has ended (null before):
   * what its steps printed, masked, each line after its time, as the runner writes it.
   */
  readonly log?: string | null
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The API's view of one engine record (read when a request comes, never copied). */
export function jobModelOf(
  id: number,
  record: JobRecord,
  run: Pick<RunModel, 'workflowName' | 'headBranch'>,
): JobModel {
  return {
    id,
    runId: record.runId,
    runAttempt: record.runAttempt,
    get name() {
      return record.name
    },
    get status() {
      return record.status === 'running' ? 'in_progress' : record.status
    },
    get conclusion() {
      return record.conclusion
    },
    headSha: record.sha,
    headBranch: run.headBranch,
    workflowName: run.workflowName,
    createdAt: iso(record.queuedAt),
    // GitHub gives a job that never started (skipped, cancelled while queued) its creation time here.
    get startedAt() {
      return iso(record.startedAt ?? record.queuedAt)
    },
    get completedAt() {
      if (record.status !== 'completed') return null
      return iso((record.startedAt ?? record.queuedAt) + (record.durationMs ?? 0))
    },
    get log() {
      if (record.status !== 'completed') return null
      // The runner's stdout and stderr lines, each after a time (the job's start: the engine keeps no
      // time per line) as GitHub's log files have them: `2026-11-27T11:38:10.0000000Z <line>`.
      const at = new Date(record.startedAt ?? record.queuedAt).toISOString().replace(/Z$/, '0000Z')
      const lines = `${record.stdout}${record.stderr}`.split('\n')
      if (lines.at(-1) === '') lines.pop()
      return lines.map((line) => `${at} ${line}\n`).join('')
    },
  }
}

/** `job`. */
export function workflowJob(ctx: UrlContext, repo: RepoModel, job: JobModel) {
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const started = job.status !== 'queued' && job.status !== 'pending'
  return {
    id: job.id,
    run_id: job.runId,
    run_url: `${api}/actions/runs/${job.runId}`,
    run_attempt: job.runAttempt,
    node_id: nodeId('CR', job.id),
    head_sha: job.headSha,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${ctx.serverUrl}/${repo.owner.login}/${repo.name}/actions/runs/${job.runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    name: job.name,
    steps: [],
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: started ? 1 : null,
    runner_name: started ? 'sandbox' : null,
    runner_group_id: started ? 1 : null,
    runner_group_name: started ? 'Default' : null,
    workflow_name: job.workflowName,
    head_branch: job.headBranch,
  }
}
