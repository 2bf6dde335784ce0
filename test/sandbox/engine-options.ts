// The options of the workflow engine (workflow-engine.ts).
import type { GitRemote, ResultsService } from './job-runner.js'
import type { RestApi } from './rest-api.js'
import type { WorkflowSpec } from './workflow-file.js'

/** Options of the engine. */
export interface WorkflowEngineOptions {
  api: RestApi
  remote: GitRemote
  results?: ResultsService
  /** The action's folder: `action.yml` (inputs, defaults, runs.main/post), its bundle, its workflows. */
  actionDir: string
  workflow: WorkflowSpec
  /** Folder for workspaces and runner files. */
  root: string
  /** Bound on jobs per sandbox (default 50): a runaway chain stops here with a refusal. */
  maxJobs?: number
  /** Jobs of one run that run at once (default 4). */
  maxParallelJobs?: number
  /** Per-job limit (default 120 s, or the job's timeout-minutes). */
  jobTimeoutMs?: number
  /** `secrets.*` for expressions. */
  secrets?: Record<string, string>
  /** `vars.*` for expressions. */
  vars?: Record<string, string>
  /** Sets RUNNER_DEBUG=1 (as re-running with debug logging does). */
  debug?: boolean
  /**
   * GITHUB_SERVER_URL (default `https://github.com`, as on GitHub: `@actions/cache` and
   * `@actions/artifact` treat any other host but `*.ghe.com` and `*.localhost` as GHES and refuse to work).
   * Nothing connects to it: jobs clone and push through the checkout's `origin`.
   */
  serverUrl?: string
  /** Extra environment for every job (e.g. a fake agent on PATH). */
  extraEnv?: Record<string, string>
  /** The test's overrides of `workflow`, applied again each time a run reads its file at the run's commit. */
  workflowOverrides?: Partial<WorkflowSpec> & { file: string }
  /**
   * The repository's "Workflow permissions" (`default_workflow_permissions`): the token of a job whose
   * workflow says no `permissions:` gets GitHub's permissive default (`write`, the default here) or the
   * restricted one (`read`: contents and packages read). See token-permissions.ts.
   */
  defaultWorkflowPermissions?: 'write' | 'read'
  /** More files of `.github/workflows/` whose events the engine delivers beside `workflow`'s. */
  moreWorkflows?: readonly string[]
}
