// A stand-in for GitHub Actions' scheduler and runner: a dispatch (or an event a person causes) starts a
// job with a fresh checkout of the remote at the ref, a new run id, the environment the runner gives a
// JavaScript action, then `node <action>/<runs.main>` as a child process, as the runner does. It
// honours concurrency groups (one running; one pending, a newer pending cancelling the older, or with
// `queue: max` up to 100 pending, in order; group names compare case-insensitively), and
// records every job: inputs, exit code, outputs, state, summary, annotations, duration.
import { execFile, execFileSync, spawn } from 'node:child_process'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import * as gh from './github-objects.js'
import { ApiError, type DispatchRequest, type RestApi, type TokenGrant } from './rest-api.js'
import type { JobIdentity } from './results-server.js'
import { type Annotation, parseFileCommands, parseWorkflowCommands } from './runner-files.js'
import { type ExpressionContext, evaluateCondition, interpolate, type WorkflowSpec } from './workflow-file.js'

const run = promisify(execFile)

/** What the engine needs from the results service (cache and artifacts): a runtime token per job. */
/** GitHub keeps at most this many jobs pending in one group with `queue: max`. */
const MAX_PENDING = 100

export interface ResultsService {
  /** Origin of the service; `ACTIONS_RESULTS_URL` is this plus `/`. */
  url: string
  issueRuntimeToken?(job: JobIdentity): string
}

/** The git remote jobs check out from and push to. */
export interface GitRemote {
  /** What `git clone` takes: an http(s) URL (token checked) or a local path to the bare repository. */
  cloneUrl: string
  /** The bare repository on disk (to resolve refs without the network). */
  bareDir: string
}

/** One job as the engine ran it. */
export interface JobRecord {
  runId: number
  runNumber: number
  runAttempt: number
  event: string
  /** Full ref, e.g. `refs/heads/main`. */
  ref: string
  sha: string
  actor: string
  /** The job's GITHUB_TOKEN (valid while the job runs; revoked when it ends, as on GitHub). */
  token: string
  /** The inputs of the dispatch (or empty for other events). */
  inputs: Record<string, string>
  /** The `INPUT_*` variables the action saw. */
  actionInputs: Record<string, string>
  concurrencyGroup: string | undefined
  status: 'queued' | 'pending' | 'running' | 'completed'
  conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped' | null
  /** Why a job was cancelled or failed before the action ran. */
  reason: string | undefined
  exitCode: number | null
  workspace: string
  /** The environment the action ran with (secrets included: this is for assertions, never printed). */
  env: Record<string, string>
  eventPayload: Record<string, unknown>
  outputs: Record<string, string>
  state: Record<string, string>
  /** GITHUB_ENV additions. */
  exportedEnv: Record<string, string>
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

/** Options of the engine. */
export interface WorkflowEngineOptions {
  api: RestApi
  remote: GitRemote
  results?: ResultsService
  /** The action's folder: `action.yml` (inputs, defaults, runs.main/post) and its bundle. */
  actionDir: string
  workflow: WorkflowSpec
  /** Folder for workspaces and runner files. */
  root: string
  /** Bound on jobs per sandbox (default 50): a runaway chain stops here with a refusal. */
  maxJobs?: number
  /** Per-job limit (default 120 s, or the workflow's timeout-minutes). */
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
}

interface ActionMetadata {
  main: string
  post: string | undefined
  defaults: Record<string, string>
}

/** Reads the runner-relevant parts of action.yml, or assumes `dist/index.js` when there is none. */
function readActionMetadata(actionDir: string): ActionMetadata {
  const file = ['action.yml', 'action.yaml'].map((name) => join(actionDir, name)).find(existsSync)
  if (!file) return { main: 'dist/index.js', post: undefined, defaults: {} }
  const doc = (parse(readFileSync(file, 'utf8')) ?? {}) as {
    runs?: { using?: string; main?: string; post?: string }
    inputs?: Record<string, { default?: unknown }>
  }
  if (!doc.runs?.main || !/^node\d+$/.test(doc.runs.using ?? '')) {
    throw new Error(
      `sandbox: ${file} must declare 'runs.using: nodeNN' and 'runs.main'; got ${JSON.stringify(doc.runs)}`,
    )
  }
  const defaults: Record<string, string> = {}
  for (const [name, input] of Object.entries(doc.inputs ?? {})) {
    if (input?.default !== undefined) defaults[name] = String(input.default)
  }
  return { main: doc.runs.main, post: doc.runs.post, defaults }
}

/** `INPUT_<NAME>` as the runner spells it: upper case, spaces to underscores, dashes kept. */
export const inputVariable = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`

const OUTPUT_CAP = 1024 * 1024

const BASE_RUN_ID = 9_100_000_000

/** The engine. Create through `startSandbox`, or directly with an API and a remote. */
export class WorkflowEngine {
  readonly jobs: JobRecord[] = []
  /** Problems the engine met (job limit reached, unparsable file commands); tests assert it empty. */
  readonly problems: string[] = []
  private readonly action: ActionMetadata
  private readonly groups = new Map<string, { running?: JobRecord; pending: JobRecord[] }>()
  private readonly children = new Map<number, ReturnType<typeof spawn>>()
  /** Runs cancelled by `cancel-in-progress` (killed now, or before their action starts). */
  private readonly cancelling = new Set<number>()
  private readonly finishedListeners: ((job: JobRecord) => void)[] = []
  private readonly idleWaiters: (() => void)[] = []
  private nextRunId = BASE_RUN_ID
  private nextRunNumber = 1
  private readonly workflowId = 161_335
  private stopped = false

  constructor(private readonly options: WorkflowEngineOptions) {
    this.action = readActionMetadata(options.actionDir)
    options.api.onDispatch((request) => this.dispatch(request))
  }

  private get model() {
    return this.options.api.model
  }

  private get workflow(): WorkflowSpec {
    return this.options.workflow
  }

  /** Calls `listener` each time a job ends (completed or cancelled). */
  onJobFinished(listener: (job: JobRecord) => void): void {
    this.finishedListeners.push(listener)
  }

  /** The commit a ref points at on the remote, or undefined. */
  resolveRef(ref: string): string | undefined {
    try {
      return execFileSync(
        'git',
        ['--git-dir', this.options.remote.bareDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      ).trim()
    } catch {
      return undefined
    }
  }

  /** Handles `POST .../dispatches` as GitHub does: checks the workflow, ref and inputs, then queues a run. */
  dispatch(request: DispatchRequest): { runId: number } {
    const spec = this.workflow
    const idMatches = request.workflowId === spec.file || request.workflowId === String(this.workflowId)
    if (!idMatches) throw new ApiError(404, 'Not Found')
    if (!(spec.on ?? ['workflow_dispatch']).includes('workflow_dispatch')) {
      throw new ApiError(422, "Workflow does not have 'workflow_dispatch' trigger")
    }
    // A dispatch names a branch or a tag; GitHub finds no ref for anything else (`refs/pull/N/merge`).
    const fullRef = /^refs\/(?!heads\/|tags\/)/.test(request.ref) ? undefined : this.fullRef(request.ref)
    if (!fullRef) throw new ApiError(422, `No ref found for: ${request.ref}`)
    const declared = spec.inputs
    const inputs: Record<string, string> = {}
    if (declared && Object.keys(declared).length > 0) {
      const unexpected = Object.keys(request.inputs).filter((name) => !(name in declared))
      if (unexpected.length > 0) throw new ApiError(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`)
      for (const [name, input] of Object.entries(declared)) {
        const value = request.inputs[name] ?? input.default
        if (value === undefined || value === '') {
          if (input.required) throw new ApiError(422, `Required input '${name}' not provided`)
          continue
        }
        if (input.type === 'choice' && input.options && !input.options.includes(value)) {
          throw new ApiError(422, `Provided value '${value}' for input '${name}' not in the list of allowed values`)
        }
        if (input.type === 'boolean' && value !== 'true' && value !== 'false') {
          throw new ApiError(422, `Provided value '${value}' for input '${name}' is not a boolean`)
        }
        inputs[name] = value
      }
    } else {
      Object.assign(inputs, request.inputs)
    }
    const payload = {
      inputs,
      ref: fullRef,
      repository: gh.repository(this.urls(), this.model.repo, this.model.now()),
      sender: gh.simpleUser(this.urls(), request.actor),
      workflow: `.github/workflows/${spec.file}`,
    }
    const job = this.enqueue(
      'workflow_dispatch',
      fullRef,
      this.resolveRef(fullRef) ?? '',
      request.actor,
      inputs,
      payload,
    )
    return { runId: job.runId }
  }

  /**
   * Starts a job for an event (if the workflow listens to it), on `ref` (default: the default branch,
   * where `issue_comment`, `issues` and `pull_request_target` run; pull requests' own events run on
   * `refs/pull/N/merge`) at `shaOverride` or the ref's commit. Returns the job, or undefined when the
   * workflow does not listen.
   */
  trigger(
    event: string,
    payload: Record<string, unknown>,
    actor: gh.UserModel,
    ref?: string,
    shaOverride?: string,
  ): JobRecord | undefined {
    if (!(this.workflow.on ?? ['workflow_dispatch']).includes(event)) return undefined
    const fullRef = this.fullRef(ref ?? this.model.repo.defaultBranch)
    if (!fullRef) throw new Error(`sandbox: no ref '${ref}' on the remote to run the ${event} event on`)
    const sha = shaOverride ?? this.resolveRef(fullRef) ?? ''
    return this.enqueue(event, fullRef, sha, actor, {}, payload)
  }

  /** Resolves when no job is running or pending; rejects after `timeoutMs` naming the jobs still busy. */
  async waitForIdle(timeoutMs = 60_000): Promise<JobRecord[]> {
    if (this.isIdle()) return this.jobs
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const busy = this.jobs.filter((j) => j.status !== 'completed').map((j) => `run ${j.runId} (${j.status})`)
        reject(new Error(`sandbox: not idle after ${timeoutMs} ms; busy: ${busy.join(', ')}`))
      }, timeoutMs)
      this.idleWaiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    return this.jobs
  }

  /** Kills running jobs and refuses new ones. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const child of this.children.values()) child.kill('SIGKILL')
    for (const job of this.jobs) {
      if (job.status === 'queued' || job.status === 'pending') this.finish(job, 'cancelled', 'the sandbox stopped')
    }
    const deadline = Date.now() + 5000
    while (this.children.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  private isIdle(): boolean {
    return this.jobs.every((j) => j.status === 'completed')
  }

  private urls(): gh.UrlContext {
    return { apiUrl: this.options.api.url, serverUrl: this.serverUrl() }
  }

  private serverUrl(): string {
    return this.options.serverUrl ?? 'https://github.com'
  }

  private fullRef(ref: string): string | undefined {
    if (ref.startsWith('refs/')) return this.resolveRef(ref) ? ref : undefined
    for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`]) if (this.resolveRef(candidate)) return candidate
    return undefined
  }

  private enqueue(
    event: string,
    ref: string,
    sha: string,
    actor: gh.UserModel,
    inputs: Record<string, string>,
    payload: Record<string, unknown>,
  ): JobRecord {
    if (this.stopped) throw new ApiError(503, 'sandbox: stopped')
    const maxJobs = this.options.maxJobs ?? 50
    if (this.jobs.length >= maxJobs) {
      const message = `sandbox: job limit of ${maxJobs} reached; refusing ${event} on ${ref} (a loop that never ends?)`
      this.problems.push(message)
      throw new ApiError(422, message)
    }
    const runId = ++this.nextRunId
    const job: JobRecord = {
      token: `ghs_${randomBytes(18).toString('base64url')}`,
      runId,
      runNumber: this.nextRunNumber++,
      runAttempt: 1,
      event,
      ref,
      sha,
      actor: actor.login,
      inputs,
      actionInputs: {},
      concurrencyGroup: undefined,
      status: 'queued',
      conclusion: null,
      reason: undefined,
      exitCode: null,
      workspace: '',
      env: {},
      eventPayload: payload,
      outputs: {},
      state: {},
      exportedEnv: {},
      summary: '',
      annotations: [],
      stdout: '',
      stderr: '',
      unknownCommands: [],
      queuedAt: Date.now(),
      startedAt: undefined,
      durationMs: undefined,
    }
    this.jobs.push(job)
    this.model.runs.set(runId, {
      id: runId,
      runNumber: job.runNumber,
      runAttempt: 1,
      workflowId: this.workflowId,
      workflowPath: `.github/workflows/${this.workflow.file}`,
      workflowName: this.workflow.name ?? `.github/workflows/${this.workflow.file}`,
      event,
      // A pull request's run names its head branch, not the merge ref it runs on.
      headBranch: ref.startsWith('refs/pull/')
        ? String((payload.pull_request as { head?: { ref?: string } } | undefined)?.head?.ref ?? '')
        : ref.replace(/^refs\/(heads|tags)\//, ''),
      headSha: sha,
      actor,
      status: 'queued',
      conclusion: null,
      createdAt: this.model.now(),
      updatedAt: this.model.now(),
      startedAt: null,
    })
    const context = this.expressionContext(job)
    if (this.workflow.if !== undefined && !evaluateCondition(this.workflow.if, context)) {
      this.finish(job, 'skipped', `the job's condition is false: ${this.workflow.if.trim()}`)
      return job
    }
    job.concurrencyGroup = this.workflow.concurrency ? interpolate(this.workflow.concurrency, context) : undefined
    this.schedule(job)
    return job
  }

  /**
   * One running job per group. Pending: one, a newer one cancelling it (`queue: single`, GitHub's
   * default), or up to 100 in order (`queue: max`; past that the new one is cancelled), as GitHub does.
   */
  private schedule(job: JobRecord): void {
    const groupName = job.concurrencyGroup?.toLowerCase()
    if (groupName === undefined || groupName === '') {
      this.start(job)
      return
    }
    const group = this.groups.get(groupName) ?? { pending: [] }
    this.groups.set(groupName, group)
    if (!group.running) {
      group.running = job
      this.start(job)
      return
    }
    const why = `Canceling since a higher priority waiting request for '${job.concurrencyGroup}' exists`
    if (this.workflow.cancelInProgress) {
      const running = group.running
      running.reason = why
      this.cancelling.add(running.runId)
      this.children.get(running.runId)?.kill('SIGTERM')
    }
    if (this.workflow.queue === 'max') {
      if (group.pending.length >= MAX_PENDING) {
        this.finish(job, 'cancelled', `The queue of '${job.concurrencyGroup}' is full (${MAX_PENDING} pending)`)
        return
      }
    } else {
      for (const older of group.pending.splice(0)) this.finish(older, 'cancelled', why)
    }
    group.pending.push(job)
    job.status = 'pending'
  }

  private start(job: JobRecord): void {
    job.status = 'running'
    job.startedAt = Date.now()
    const modelRun = this.model.runs.get(job.runId)
    if (modelRun) {
      modelRun.status = 'in_progress'
      modelRun.startedAt = this.model.now()
      modelRun.updatedAt = modelRun.startedAt
    }
    this.execute(job).then(
      ({ conclusion, reason }) => this.finish(job, conclusion, reason),
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error)
        this.problems.push(`run ${job.runId}: ${message}`)
        this.finish(job, 'failure', message)
      },
    )
  }

  private finish(job: JobRecord, conclusion: NonNullable<JobRecord['conclusion']>, reason: string | undefined): void {
    if (job.status === 'completed') return
    job.status = 'completed'
    job.conclusion = conclusion
    job.reason = reason ?? job.reason
    if (job.startedAt !== undefined) job.durationMs = Date.now() - job.startedAt
    const modelRun = this.model.runs.get(job.runId)
    if (modelRun) {
      modelRun.status = 'completed'
      modelRun.conclusion = conclusion
      modelRun.updatedAt = this.model.now()
    }
    // GitHub revokes a job's GITHUB_TOKEN when the job ends.
    this.options.api.removeToken(job.token)
    const group = job.concurrencyGroup ? this.groups.get(job.concurrencyGroup.toLowerCase()) : undefined
    if (group?.running === job) {
      group.running = undefined
      const next = group.pending.shift()
      if (next && !this.stopped) {
        group.running = next
        this.start(next)
      }
    } else if (group) {
      group.pending = group.pending.filter((pending) => pending !== job)
    }
    for (const listener of this.finishedListeners) listener(job)
    if (this.isIdle()) for (const waiter of this.idleWaiters.splice(0)) waiter()
  }

  private expressionContext(job: JobRecord): ExpressionContext {
    const repo = this.model.repo
    const refName = refNameOf(job.ref)
    const declared = this.workflow.inputs ?? {}
    const typedInputs: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(job.inputs)) {
      const type = declared[name]?.type
      typedInputs[name] = type === 'boolean' ? value === 'true' : type === 'number' ? Number(value) : value
    }
    return {
      github: {
        token: job.token,
        ref: job.ref,
        ref_name: refName,
        sha: job.sha,
        repository: `${repo.owner.login}/${repo.name}`,
        repository_owner: repo.owner.login,
        run_id: String(job.runId),
        run_number: String(job.runNumber),
        run_attempt: String(job.runAttempt),
        event_name: job.event,
        event: job.eventPayload,
        actor: job.actor,
        triggering_actor: job.actor,
        workflow: this.workflow.name ?? `.github/workflows/${this.workflow.file}`,
        job: this.workflow.job ?? 'loop',
        server_url: this.serverUrl(),
        api_url: this.options.api.url,
        graphql_url: `${this.options.api.url}/graphql`,
        head_ref: job.event.startsWith('pull_request') ? String(pullOf(job).head?.ref ?? '') : '',
        base_ref: job.event.startsWith('pull_request') ? String(pullOf(job).base?.ref ?? '') : '',
      },
      inputs: typedInputs,
      secrets: { GITHUB_TOKEN: job.token, ...this.options.secrets },
      vars: { ...this.options.vars },
      env: {},
    }
  }

  private async git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
    const { stdout } = await run('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env } })
    return stdout.trim()
  }

  /**
   * actions/checkout's steps: init, fetch the ref (depth per the workflow), check out, persist the token:
   * up to v5 as an extraheader in .git/config, from v6 in a file under RUNNER_TEMP that .git/config
   * includes for this repository's gitdir.
   */
  private async checkout(job: JobRecord, workspace: string, runnerTemp: string): Promise<void> {
    mkdirSync(workspace, { recursive: true })
    const remote = this.options.remote.cloneUrl
    await this.git(workspace, ['init', '--quiet'])
    await this.git(workspace, ['remote', 'add', 'origin', remote])
    const basic = Buffer.from(`x-access-token:${job.token}`).toString('base64')
    const auth = `http.${/^https?:/.test(remote) ? new URL(remote).origin : remote}/.extraheader`
    // The checkout's own fetch carries the token; it stays in .git/config unless `persist-credentials: false`.
    const fetchAuth = /^https?:/.test(remote) ? ['-c', `${auth}=AUTHORIZATION: basic ${basic}`] : []
    if (fetchAuth.length > 0 && this.workflow.persistCredentials !== false) {
      if ((this.workflow.checkoutMajor ?? 4) >= 6) {
        const file = join(runnerTemp, `git-credentials-${randomUUID()}.config`)
        const origin = new URL(remote).origin
        writeFileSync(file, `[http "${origin}/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`)
        await this.git(workspace, ['config', '--local', `includeIf.gitdir:${join(workspace, '.git')}.path`, file])
      } else await this.git(workspace, ['config', '--local', auth, `AUTHORIZATION: basic ${basic}`])
    }
    const depth = this.workflow.fetchDepth ?? 0
    const isTag = job.ref.startsWith('refs/tags/')
    // A pull request's merge ref is fetched as actions/checkout does (`refs/remotes/pull/N/merge`) and
    // checked out detached: no local branch.
    const isPull = job.ref.startsWith('refs/pull/')
    const name = refNameOf(job.ref)
    const target = isTag ? job.ref : isPull ? `refs/remotes/pull/${name}` : `refs/remotes/origin/${name}`
    await this.git(workspace, [
      ...fetchAuth,
      '-c',
      'protocol.version=2',
      'fetch',
      '--no-tags',
      '--prune',
      '--quiet',
      ...(depth > 0 ? [`--depth=${depth}`] : []),
      'origin',
      `+${job.sha || job.ref}:${target}`,
    ])
    if (isTag || isPull) await this.git(workspace, ['checkout', '--quiet', '--force', '--detach', target])
    else await this.git(workspace, ['checkout', '--quiet', '--force', '-B', name, target])
  }

  private async execute(
    job: JobRecord,
  ): Promise<{ conclusion: NonNullable<JobRecord['conclusion']>; reason?: string }> {
    const repo = this.model.repo
    const repoFull = `${repo.owner.login}/${repo.name}`
    const runDir = join(this.options.root, 'runs', `${job.runId}-${job.runAttempt}`)
    const workspace = join(runDir, 'work', repo.name, repo.name)
    // RUNNER_TEMP is one fixed path on a runner (`/home/runner/work/_temp`), the same in every job, and
    // tools rely on it (the cache version includes the absolute paths saved). Jobs of one concurrency
    // group never overlap, so they share one temp folder, emptied at the start of each job as a fresh
    // runner's would be; a job outside any group gets its own.
    const temp = job.concurrencyGroup
      ? join(
          this.options.root,
          'runner-temp',
          createHash('sha256').update(job.concurrencyGroup).digest('hex').slice(0, 12),
        )
      : join(runDir, 'temp')
    rmSync(temp, { recursive: true, force: true })
    const commandsDir = join(temp, '_runner_file_commands')
    mkdirSync(commandsDir, { recursive: true })
    mkdirSync(join(temp, '_github_workflow'), { recursive: true })
    const toolCache = join(this.options.root, 'toolcache')
    mkdirSync(toolCache, { recursive: true })
    job.workspace = workspace

    const grant: TokenGrant = {
      actor: 'github-actions[bot]',
      kind: 'installation',
      permissions: this.workflow.permissions ?? {
        actions: 'write',
        checks: 'write',
        contents: 'write',
        issues: 'write',
        'pull-requests': 'write',
      },
    }
    const token = job.token
    this.options.api.addToken(token, grant)
    await this.checkout(job, workspace, temp)

    const eventPath = join(temp, '_github_workflow', 'event.json')
    writeFileSync(eventPath, JSON.stringify(job.eventPayload, null, 2))
    const file = (name: string) => {
      const path = join(commandsDir, `${name}_${randomUUID()}`)
      writeFileSync(path, '')
      return path
    }
    const files = {
      output: file('set_output'),
      state: file('save_state'),
      env: file('set_env'),
      path: file('add_path'),
      summary: file('step_summary'),
    }
    const context = this.expressionContext(job)
    const workflowEnv = Object.fromEntries(
      Object.entries(this.workflow.env ?? {}).map(([name, value]) => [name, interpolate(value, context)]),
    )
    const inputs: Record<string, string> = {}
    for (const [name, value] of Object.entries({ ...this.action.defaults, ...(this.workflow.with ?? {}) })) {
      inputs[inputVariable(name)] = interpolate(value, context)
    }
    job.actionInputs = inputs
    const refName = refNameOf(job.ref)
    const isPullEvent = job.event.startsWith('pull_request')
    const pullPayload = job.eventPayload.pull_request as
      | { head?: { ref?: string }; base?: { ref?: string } }
      | undefined
    const baseRef = isPullEvent && pullPayload?.base?.ref ? `refs/heads/${pullPayload.base.ref}` : undefined
    const runtimeToken =
      this.options.results?.issueRuntimeToken?.({
        repository: repoFull,
        runId: job.runId,
        runAttempt: job.runAttempt,
        job: this.workflow.job ?? 'loop',
        ref: job.ref,
        ...(baseRef ? { baseRef } : {}),
      }) ?? randomBytes(24).toString('base64url')
    const env: Record<string, string> = {
      // The runner starts actions with its own small environment, not the caller's.
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: join(this.options.root, 'home'),
      LANG: 'C.UTF-8',
      ...(process.env.GIT_CONFIG_GLOBAL ? { GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL } : {}),
      ...(process.env.GIT_CONFIG_NOSYSTEM ? { GIT_CONFIG_NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM } : {}),
      GIT_TERMINAL_PROMPT: '0',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: repoFull,
      GITHUB_REPOSITORY_ID: String(repo.id),
      GITHUB_REPOSITORY_OWNER: repo.owner.login,
      GITHUB_REPOSITORY_OWNER_ID: String(repo.owner.id),
      GITHUB_REF: job.ref,
      GITHUB_REF_NAME: refName,
      GITHUB_REF_TYPE: job.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      GITHUB_REF_PROTECTED: 'false',
      GITHUB_SHA: job.sha,
      GITHUB_HEAD_REF: isPullEvent ? (pullPayload?.head?.ref ?? '') : '',
      GITHUB_BASE_REF: isPullEvent ? (pullPayload?.base?.ref ?? '') : '',
      GITHUB_RUN_ID: String(job.runId),
      GITHUB_RUN_NUMBER: String(job.runNumber),
      GITHUB_RUN_ATTEMPT: String(job.runAttempt),
      GITHUB_RETENTION_DAYS: '90',
      GITHUB_EVENT_NAME: job.event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_WORKSPACE: workspace,
      GITHUB_API_URL: this.options.api.url,
      GITHUB_SERVER_URL: this.serverUrl(),
      GITHUB_GRAPHQL_URL: `${this.options.api.url}/graphql`,
      GITHUB_ACTOR: job.actor,
      GITHUB_ACTOR_ID: String(this.model.users.get(job.actor.toLowerCase())?.id ?? 0),
      GITHUB_TRIGGERING_ACTOR: job.actor,
      GITHUB_WORKFLOW: String((context.github as Record<string, unknown>).workflow),
      GITHUB_WORKFLOW_REF: `${repoFull}/.github/workflows/${this.workflow.file}@${job.ref}`,
      GITHUB_WORKFLOW_SHA: job.sha,
      GITHUB_JOB: this.workflow.job ?? 'loop',
      GITHUB_ACTION: '__self',
      GITHUB_ACTION_PATH: this.options.actionDir,
      GITHUB_OUTPUT: files.output,
      GITHUB_STATE: files.state,
      GITHUB_ENV: files.env,
      GITHUB_PATH: files.path,
      GITHUB_STEP_SUMMARY: files.summary,
      RUNNER_OS: 'Linux',
      RUNNER_ARCH: arch() === 'arm64' ? 'ARM64' : 'X64',
      RUNNER_NAME: 'GitHub Actions 1',
      RUNNER_ENVIRONMENT: 'github-hosted',
      RUNNER_TEMP: temp,
      RUNNER_TOOL_CACHE: toolCache,
      RUNNER_WORKSPACE: join(runDir, 'work', repo.name),
      ...(this.options.debug ? { RUNNER_DEBUG: '1' } : {}),
      ACTIONS_RUNTIME_TOKEN: runtimeToken,
      ACTIONS_RESULTS_URL: `${this.options.results?.url ?? this.options.api.url}/`,
      ACTIONS_CACHE_SERVICE_V2: 'True',
      ...this.options.extraEnv,
      ...workflowEnv,
      ...inputs,
    }
    mkdirSync(env.HOME ?? temp, { recursive: true })
    job.env = env
    const masks = [token, runtimeToken]

    const timeoutMs = this.options.jobTimeoutMs ?? this.workflow.timeoutMs ?? 120_000
    const deadline = Date.now() + timeoutMs
    if (this.cancelling.has(job.runId))
      return { conclusion: 'cancelled', reason: job.reason ?? 'The job was cancelled' }
    const main = await this.runNode(job, join(this.options.actionDir, this.action.main), env, workspace, deadline)
    let exitCode = main.exitCode
    let exported: Record<string, string> = {}
    try {
      job.outputs = parseFileCommands(readFileSync(files.output, 'utf8'), 'GITHUB_OUTPUT')
      job.state = parseFileCommands(readFileSync(files.state, 'utf8'), 'GITHUB_STATE')
      exported = parseFileCommands(readFileSync(files.env, 'utf8'), 'GITHUB_ENV')
    } catch (error) {
      this.problems.push(`run ${job.runId}: ${(error as Error).message}`)
      exitCode = exitCode === 0 ? 1 : exitCode
    }
    job.exportedEnv = exported
    let stdout = main.stdout
    let stderr = main.stderr
    if (this.action.post && !main.timedOut && !main.killed) {
      const stateEnv = Object.fromEntries(Object.entries(job.state).map(([name, value]) => [`STATE_${name}`, value]))
      const addedPath = readFileSync(files.path, 'utf8').split('\n').filter(Boolean).reverse()
      const postEnv = { ...env, ...exported, ...stateEnv, PATH: [...addedPath, env.PATH].join(':') }
      const post = await this.runNode(job, join(this.options.actionDir, this.action.post), postEnv, workspace, deadline)
      stdout += post.stdout
      stderr += post.stderr
      if (exitCode === 0 && post.exitCode !== 0) exitCode = post.exitCode
    }
    const commands = parseWorkflowCommands(stdout)
    masks.push(...commands.masks)
    const mask = (text: string) => masks.filter((m) => m.length > 0).reduce((acc, m) => acc.replaceAll(m, '***'), text)
    job.annotations = commands.annotations
    job.unknownCommands = commands.unknown
    job.stdout = mask(stdout)
    job.stderr = mask(stderr)
    job.summary = readFileSync(files.summary, 'utf8')
    job.exitCode = exitCode
    if (main.timedOut)
      return { conclusion: 'timed_out', reason: `The job exceeded the maximum execution time of ${timeoutMs} ms` }
    if (main.killed) return { conclusion: 'cancelled', reason: job.reason ?? 'The job was cancelled' }
    return { conclusion: exitCode === 0 ? 'success' : 'failure' }
  }

  private runNode(
    job: JobRecord,
    script: string,
    env: Record<string, string>,
    cwd: string,
    deadline: number,
  ): Promise<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean; killed: boolean }> {
    if (!existsSync(script)) {
      return Promise.resolve({
        exitCode: 1,
        stdout: '',
        stderr: `sandbox: the action's entry point ${script} does not exist (build it with 'npm run bundle')`,
        timedOut: false,
        killed: false,
      })
    }
    return new Promise((resolve, reject) => {
      // The runner runs `node <main>` with the workspace as the working directory.
      const child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      this.children.set(job.runId, child)
      if (this.cancelling.has(job.runId)) child.kill('SIGTERM')
      let stdout = ''
      let stderr = ''
      const keepTail = (text: string) => (text.length > OUTPUT_CAP ? text.slice(text.length - OUTPUT_CAP) : text)
      child.stdout.on('data', (chunk: Buffer) => {
        stdout = keepTail(stdout + chunk.toString('utf8'))
      })
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = keepTail(stderr + chunk.toString('utf8'))
      })
      let timedOut = false
      const timer = setTimeout(
        () => {
          timedOut = true
          child.kill('SIGKILL')
        },
        Math.max(0, deadline - Date.now()),
      )
      child.on('error', reject)
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        this.children.delete(job.runId)
        resolve({ exitCode: code, stdout, stderr, timedOut, killed: !timedOut && signal !== null })
      })
    })
  }
}

/** GITHUB_REF_NAME: the branch or tag name, or `N/merge` for a pull request's merge ref. */
function refNameOf(ref: string): string {
  return ref.replace(/^refs\/(heads|tags|pull)\//, '')
}

/** The `pull_request` object of a pull request event's payload. */
function pullOf(job: JobRecord): { head?: { ref?: unknown }; base?: { ref?: unknown } } {
  const pull = job.eventPayload.pull_request
  return pull !== null && typeof pull === 'object' ? (pull as ReturnType<typeof pullOf>) : {}
}
