// The whole GitHub sandbox on loopback: the REST API stand-in, the results service (cache and
// artifacts), a git remote, and the workflow engine that runs the action's bundle job after job.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGitFront } from './git-front.js'
import { GitServer } from './git-server.js'
import type * as gh from './github-objects.js'
import { type PersonActions, personActions } from './person-events.js'
import { mergePullIntoBase } from './pull-refs.js'
import { type SandboxGit, sandboxGit, seedRepository } from './remote-repo.js'
import { type RestApi, startRestApi } from './rest-api.js'
import { cacheIndexOf, mountArtifacts } from './results-mounts.js'
import { ResultsServer } from './results-server.js'
import { type JobRecord, WorkflowEngine } from './workflow-engine.js'
import { applyOverrides, parseWorkflow, type WorkflowSpec } from './workflow-file.js'

export type { SandboxGit } from './remote-repo.js'

/** Links point where they do on GitHub (nothing connects there; see WorkflowEngineOptions.serverUrl). */
const SERVER_URL = 'https://github.com'

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** The action's folder (action.yml and its bundle, `dist/index.js` by default). */
  actionDir: string
  /** The repository's initial files (path → content), or a folder to copy (without .git and node_modules). */
  repoFiles?: Record<string, string>
  repoDir?: string
  owner?: string
  repo?: string
  defaultBranch?: string
  /** People and their permission on the repository; each gets a personal token (see `tokenOf`). */
  users?: Record<string, gh.RepoPermission>
  /**
   * The workflow. Read from `.github/workflows/<file>` in the repository when it exists; fields given
   * here override what the file says.
   */
  workflow: Partial<WorkflowSpec> & { file: string }
  /**
   * More workflow files of the repository (names under `.github/workflows/`) the sandbox runs beside
   * `workflow`: each has its own id, dispatches and `on:` (a sweeper beside the loop's workflow).
   */
  workflows?: readonly string[]
  maxJobs?: number
  jobTimeoutMs?: number
  secrets?: Record<string, string>
  vars?: Record<string, string>
  debug?: boolean
  extraEnv?: Record<string, string>
  /**
   * "Allow GitHub Actions to create and approve pull requests" (off by default, as on GitHub): when off,
   * the job's GITHUB_TOKEN gets GitHub's 403 on opening a pull request. See `RestApiOptions`.
   */
  actionsCanCreatePullRequests?: boolean
  /** The repository's default token permissions: `write` (permissive, the default) or `read` (restricted). */
  defaultWorkflowPermissions?: 'write' | 'read'
  /** Play an older GitHub Enterprise Server, which answers a dispatch asking for run details 400. */
  refusesRunDetails?: boolean
  /** Keep the sandbox's folder after `stop()` (to look at workspaces and summaries). */
  keep?: boolean
  /** Where to create the sandbox's folder (default: a new folder under the OS temp dir). */
  root?: string
}

/** The running sandbox. */
export interface Sandbox extends PersonActions {
  root: string
  api: RestApi
  engine: WorkflowEngine
  results: ResultsServer
  git: SandboxGit
  /** The `git http-backend` server behind the remote (e.g. `rejectPushes(name, reason)`). */
  gitServer: GitServer
  /** The repository's name on the git server (`owner/repo.git`). */
  gitRepositoryName: string
  /** Every job so far (live array). */
  jobs: JobRecord[]
  /** The owner's personal token, and each user's (`ghp_<login>`), for a test's own API calls. */
  tokenOf(login: string): string
  waitForIdle(timeoutMs?: number): Promise<JobRecord[]>
  stop(): Promise<void>
}

/** Starts everything on 127.0.0.1 and seeds the remote; stop it with `stop()`. */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const owner = options.owner ?? 'acme'
  const repoName = options.repo ?? 'demo'
  const defaultBranch = options.defaultBranch ?? 'main'
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'loop-sandbox-'))
  mkdirSync(root, { recursive: true })

  // The remote: a bare repository behind `git http-backend`, seeded with the project's files.
  const backendToken = randomBytes(16).toString('hex')
  const gitServer = await GitServer.start({ token: backendToken })
  const repoPathOnServer = `${owner}/${repoName}.git`
  await gitServer.createRepository(repoPathOnServer)
  const bareDir = gitServer.repositoryPath(repoPathOnServer)
  const seed = join(root, 'seed')
  await seedRepository({
    bareDir,
    seed,
    owner,
    defaultBranch,
    ...(options.repoDir ? { repoDir: options.repoDir } : {}),
    ...(options.repoFiles ? { repoFiles: options.repoFiles } : {}),
  })

  const workflowPath = [
    join(seed, '.github', 'workflows', options.workflow.file),
    join(seed, '.github', options.workflow.file),
  ].find(existsSync)
  const fromFile = workflowPath ? parseWorkflow(options.workflow.file, readFileSync(workflowPath, 'utf8')) : undefined
  const workflow: WorkflowSpec = applyOverrides(fromFile, options.workflow)

  const results = await ResultsServer.start({ defaultRef: `refs/heads/${defaultBranch}` })
  const users = options.users ?? {}
  const api = await startRestApi({
    owner,
    repo: repoName,
    defaultBranch,
    users,
    caches: cacheIndexOf(results),
    artifacts: mountArtifacts(results),
    jobLogUrl: (jobId, log) => results.publishJobLog(jobId, log),
    serverUrl: SERVER_URL,
    actionsCanCreatePullRequests: options.actionsCanCreatePullRequests ?? false,
    refusesRunDetails: options.refusesRunDetails ?? false,
    resolveRef: (ref) => remoteGit.resolveRef(ref.startsWith('refs/') ? ref : `refs/heads/${ref}`),
    mergePull: (pull) => mergePullIntoBase(bareDir, pull),
  })
  const tokenOf = (login: string) => `ghp_${login.replace(/[^A-Za-z0-9]/g, '')}`
  for (const login of [owner, ...Object.keys(users)]) {
    const permission = api.model.user(login).permission
    const level = permission === 'admin' || permission === 'maintain' || permission === 'write' ? 'write' : 'read'
    api.addToken(tokenOf(login), {
      actor: login,
      kind: 'user',
      permissions: {
        actions: level,
        contents: level,
        issues: level === 'write' || permission === 'triage' ? 'write' : 'read',
        'pull-requests': level,
        checks: level,
      },
    })
  }

  const gitFront = await startGitFront(api, gitServer, backendToken)
  const remoteGit = sandboxGit({
    cloneUrl: `${gitFront.url}/${repoPathOnServer}`,
    bareDir,
    root,
    owner,
    defaultBranch,
    resolveRef: (ref) => engine.resolveRef(ref),
  })

  const engine = new WorkflowEngine({
    api,
    remote: remoteGit,
    results,
    actionDir: options.actionDir,
    workflow,
    workflowOverrides: options.workflow,
    ...(options.workflows ? { moreWorkflows: options.workflows } : {}),
    root,
    ...(options.maxJobs === undefined ? {} : { maxJobs: options.maxJobs }),
    ...(options.jobTimeoutMs === undefined ? {} : { jobTimeoutMs: options.jobTimeoutMs }),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.vars ? { vars: options.vars } : {}),
    ...(options.debug ? { debug: true } : {}),
    ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
    ...(options.defaultWorkflowPermissions ? { defaultWorkflowPermissions: options.defaultWorkflowPermissions } : {}),
  })

  return {
    root,
    api,
    engine,
    results,
    git: remoteGit,
    gitServer,
    gitRepositoryName: repoPathOnServer,
    jobs: engine.jobs,
    tokenOf,
    ...personActions({
      api,
      engine,
      remoteGit,
      bareDir,
      owner,
      repoName,
      defaultBranch,
      serverUrl: SERVER_URL,
      workflowFile: workflow.file,
      refusesRunDetails: options.refusesRunDetails === true,
      tokenOf,
    }),
    waitForIdle: (timeoutMs) => engine.waitForIdle(timeoutMs),
    async stop() {
      await engine.stop()
      await api.stop()
      await gitFront.stop()
      await gitServer.close()
      await results.close()
      if (!options.keep) rmSync(root, { recursive: true, force: true })
    },
  }
}
