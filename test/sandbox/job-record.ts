// What the engine records of each job, and of each run the jobs belong to.
import { randomBytes } from 'node:crypto'
import type { ArtifactStore } from './artifact-store.js'
import type * as gh from './github-objects.js'
import type { Annotation } from './runner-files.js'
import type { Permissions } from './workflow-file.js'

export type Conclusion = 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped'

/** One job (one matrix leg) as the engine ran it. */
export interface JobRecord {
  runId: number
  runNumber: number
  runAttempt: number
  /** The job's id in its workflow (GITHUB_JOB): `loop`, or `iteration` for a called workflow's job. */
  jobId: string
  /** The job's name as GitHub shows it: `verify (a, 1)` for a matrix leg, `loop / iteration` when called. */
  name: string
  /** The matrix leg, when the job has a strategy. */
  matrix: Record<string, unknown> | undefined
  event: string
  /** Full ref, e.g. `refs/heads/main`. */
  ref: string
  sha: string
  actor: string
  /** The job's GITHUB_TOKEN (valid while the job runs; revoked when it ends, as on GitHub). */
  token: string
  /** The inputs of the dispatch (or empty for other events). */
  inputs: Record<string, string>
  /** The `INPUT_*` variables the action under test saw (its last step). */
  actionInputs: Record<string, string>
  concurrencyGroup: string | undefined
  status: 'queued' | 'pending' | 'running' | 'completed'
  conclusion: Conclusion | null
  /** Why a job was cancelled, skipped or failed before its steps ran. */
  reason: string | undefined
  /** The exit code of the step that failed, else 0 (null when no step ran). */
  exitCode: number | null
  workspace: string
  /** The environment the action under test (else the last step) ran with; secrets included, never printed. */
  env: Record<string, string>
  eventPayload: Record<string, unknown>
  /** Every step's GITHUB_OUTPUT, merged in step order. */
  outputs: Record<string, string>
  /** The job's `outputs:`, evaluated when it ended. */
  jobOutputs: Record<string, string>
  /** The permissions of the job's GITHUB_TOKEN. */
  permissions: Permissions
  /** Each step: its id or name, and its outcome. */
  steps: { id: string; outcome: Conclusion }[]
  /** The action under test's GITHUB_STATE. */
  state: Record<string, string>
  /** GITHUB_ENV additions. */
  exportedEnv: Record<string, string>
  /** GITHUB_PATH additions, in the order they lead the later steps' PATH (the latest step's first). */
  addedPath: string[]
  /** The step summaries, joined. */
  summary: string
  annotations: Annotation[]
  /** Stdout and stderr with masked values replaced by `***`, as the runner logs them (last 1 MiB each). */
  stdout: string
  stderr: string
  /** Workflow-command-like lines the runner would not understand. */
  unknownCommands: string[]
  queuedAt: number
  startedAt: number | undefined
  durationMs: number | undefined
}

/** One workflow run: its trigger, its jobs, its artifacts. */
export interface RunState {
  runId: number
  runNumber: number
  runAttempt: number
  event: string
  ref: string
  sha: string
  actor: gh.UserModel
  inputs: Record<string, string>
  payload: Record<string, unknown>
  records: JobRecord[]
  /** Set when the run is cancelled (a concurrency group, the sandbox stopping): `cancelled()` turns true. */
  cancelled: boolean
  artifacts: ArtifactStore
}

/** A new job of the run, queued. */
export function newJobRecord(
  run: RunState,
  jobId: string,
  name: string,
  matrix: Record<string, unknown> | undefined,
): JobRecord {
  return {
    token: `ghs_${randomBytes(18).toString('base64url')}`,
    runId: run.runId,
    runNumber: run.runNumber,
    runAttempt: run.runAttempt,
    jobId,
    name,
    matrix,
    event: run.event,
    ref: run.ref,
    sha: run.sha,
    actor: run.actor.login,
    inputs: run.inputs,
    actionInputs: {},
    concurrencyGroup: undefined,
    status: 'queued',
    conclusion: null,
    reason: undefined,
    exitCode: null,
    workspace: '',
    env: {},
    eventPayload: run.payload,
    outputs: {},
    jobOutputs: {},
    permissions: {},
    steps: [],
    state: {},
    exportedEnv: {},
    addedPath: [],
    summary: '',
    annotations: [],
    stdout: '',
    stderr: '',
    unknownCommands: [],
    queuedAt: Date.now(),
    startedAt: undefined,
    durationMs: undefined,
  }
}
