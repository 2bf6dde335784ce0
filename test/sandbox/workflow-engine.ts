// A stand-in for GitHub Actions' scheduler: a dispatch (or an event a person causes) starts a run of
// the workflow; its jobs run as a graph (run-graph.ts), each on a fresh runner (job-runner.ts). It
// honours concurrency groups (concurrency.ts) of the run (workflow-level) and of each job, bounds
// the jobs per sandbox, and records every job.
import { runArtifactStore } from './artifact-store.js'
import { deadlock } from './call-group.js'
import { ConcurrencyGroups, type GroupMember, type GroupOptions, resolveConcurrency } from './concurrency.js'
import type { WorkflowEngineOptions } from './engine-options.js'
import { type ExpressionContext, evaluateValue, holdsWhenCancelled } from './expressions.js'
import type * as gh from './github-objects.js'
import { type Conclusion, type JobRecord, newJobRecord, type RunState } from './job-record.js'
import { JobRunner } from './job-runner.js'
import { commitOf } from './remote-repo.js'
import { ApiError, type DispatchRequest } from './rest-api.js'
import {
  checkDispatchInputs,
  completeModelRun,
  dispatchPayload,
  modelRunOf,
  readCalledWorkflow,
  rerunnable,
  runContext,
  startupProblem,
} from './run-context.js'
import { type GraphHost, Limiter, type ReadyJob, RunGraph } from './run-graph.js'
import { runGroupMember } from './run-group.js'
import { jobModelOf } from './run-jobs.js'
import { readActionMetadata } from './steps.js'
import { defaultPermissions } from './token-permissions.js'
import { listeningWorkflows, WorkflowCatalog } from './workflow-catalog.js'
import type { WorkflowSpec } from './workflow-file.js'

export type { WorkflowEngineOptions } from './engine-options.js'
export type { Conclusion, JobRecord, RunState } from './job-record.js'
export { type GitRemote, inputVariable, type ResultsService } from './job-runner.js'

const BASE_RUN_ID = 9_100_000_000

/** The engine. Create through `startSandbox`, or directly with an API and a remote. */
export class WorkflowEngine implements GraphHost {
  readonly jobs: JobRecord[] = []
  /** Problems the engine met (job limit, file commands, what it does not run); tests assert it empty. */
  readonly problems: string[] = []
  private readonly runner: JobRunner
  private readonly groups = new ConcurrencyGroups()
  private readonly jobGroups = new Map<JobRecord, { group: string; member: GroupMember }>()
  private readonly waiters = new Map<JobRecord, (conclusion: Conclusion) => void>()
  private readonly finishedListeners: ((job: JobRecord) => void)[] = []
  private readonly idleWaiters: (() => void)[] = []
  private activeRuns = 0
  private nextRunId = BASE_RUN_ID
  /** Each file this engine runs (`workflow` and `moreWorkflows`), read at each run's commit. */
  readonly workflows: WorkflowCatalog
  private stopped = false

  constructor(private readonly options: WorkflowEngineOptions) {
    this.runner = new JobRunner({
      api: options.api,
      remote: options.remote,
      ...(options.results ? { results: options.results } : {}),
      actionDir: options.actionDir,
      action: readActionMetadata(options.actionDir),
      root: options.root,
      serverUrl: this.serverUrl(),
      ...(options.debug ? { debug: true } : {}),
      ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
      problems: this.problems,
    })
    this.workflows = new WorkflowCatalog({
      bareDir: options.remote.bareDir,
      primary: options.workflow,
      ...(options.workflowOverrides ? { overrides: options.workflowOverrides } : {}),
      more: options.moreWorkflows ?? [],
    })
    options.api.onDispatch((request) => this.dispatch(request))
  }

  private get model() {
    return this.options.api.model
  }

  /** Calls `listener` each time a job ends (completed, skipped or cancelled). */
  onJobFinished(listener: (job: JobRecord) => void): void {
    this.finishedListeners.push(listener)
  }

  /** The commit a ref points at on the remote, or undefined (a local git call: no server involved). */
  resolveRef(ref: string): string | undefined {
    return commitOf(this.options.remote.bareDir, ref)
  }

  /** Handles `POST .../dispatches` as GitHub does: checks the workflow, ref and inputs, then queues a run. */
  dispatch(request: DispatchRequest): { runId: number } {
    const defaultSha = this.resolveRef(`refs/heads/${this.model.repo.defaultBranch}`) ?? ''
    const entry = this.workflows.entryFor(request.workflowId, defaultSha)
    if (!entry) throw new ApiError(404, 'Not Found')
    // A dispatch names a branch or a tag; GitHub finds no ref for anything else (`refs/pull/N/merge`).
    const fullRef = /^refs\/(?!heads\/|tags\/)/.test(request.ref) ? undefined : this.fullRef(request.ref)
    if (!fullRef) throw new ApiError(422, `No ref found for: ${request.ref}`)
    const sha = this.resolveRef(fullRef) ?? ''
    // GitHub runs the workflow file as it is at the dispatched ref.
    const spec = this.workflows.forDispatch(entry.file, sha)
    const inputs = checkDispatchInputs(spec.inputs, request.inputs)
    const payload = dispatchPayload(this.urls(), this.model, { inputs, ref: fullRef, actor: request.actor, spec })
    const run = this.enqueue(spec, 'workflow_dispatch', fullRef, sha, request.actor, inputs, payload)
    return { runId: run.runId }
  }

  /**
   * Starts a run for an event of each workflow that listens to it (as its file is at the commit; a
   * `schedule` payload's `workflow` names the one file), on `ref` (default: the default branch,
   * where `issue_comment`, `issues` and `pull_request_target` run; pull requests' own events run on
   * `refs/pull/N/merge`) at `shaOverride` or the ref's commit. Returns the first run's first job, or
   * undefined when no workflow listens.
   */
  trigger(
    event: string,
    payload: Record<string, unknown>,
    actor: gh.UserModel,
    ref?: string,
    shaOverride?: string,
  ): JobRecord | undefined {
    const fullRef = this.fullRef(ref ?? this.model.repo.defaultBranch)
    if (!fullRef) throw new Error(`sandbox: no ref '${ref}' on the remote to run the ${event} event on`)
    const sha = shaOverride ?? this.resolveRef(fullRef) ?? ''
    const runs = listeningWorkflows(this.workflows, event, payload, sha, this.problems).map(
      (spec) => this.enqueue(spec, event, fullRef, sha, actor, {}, payload).records[0],
    )
    return runs[0]
  }

  /** Resolves when no run is active; rejects after `timeoutMs` naming the jobs still busy. */
  async waitForIdle(timeoutMs = 60_000): Promise<JobRecord[]> {
    if (this.isIdle()) return this.jobs
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const busy = this.jobs
          .filter((j) => j.status !== 'completed')
          .map((j) => `run ${j.runId} ${j.name} (${j.status})`)
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
    this.runner.killAll()
    for (const job of this.jobs) {
      if (job.status === 'queued' || job.status === 'pending') this.finish(job, 'cancelled', 'the sandbox stopped')
    }
    const deadline = Date.now() + 5000
    while (this.runner.busy > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  /**
   * "Re-run all jobs" of a finished run, as a person's button does it: a new attempt of the same run (its
   * id, number, event, commit and inputs; `run_attempt` one more) that keeps the artifacts every attempt
   * uploaded (download-artifact lists them all; an upload under a name the run holds fails). With `jobs:
   * 'failed'`, "Re-run failed jobs": the failed, timed-out and cancelled jobs and every job after one run
   * anew; the others keep their result and outputs of the last attempt (run-graph.ts).
   */
  rerun(runId: number, jobs: 'all' | 'failed' = 'all'): RunState {
    const previous = rerunnable(this.runs.get(runId), runId, jobs)
    const { event, ref, sha, actor, inputs, payload } = previous
    const spec = this.workflows.ofRun(runId)
    return this.enqueue(spec, event, ref, sha, actor, inputs, payload, previous, jobs === 'failed')
  }

  // GraphHost: what the run graphs call back.

  newRecord(run: RunState, jobId: string, name: string, matrix?: Record<string, unknown>): JobRecord {
    const record = newJobRecord(run, jobId, name, matrix)
    run.records.push(record)
    const modelRun = this.model.runs.get(run.runId)
    if (modelRun) this.model.jobs.push(jobModelOf(this.model.id(), record, modelRun))
    this.jobs.push(record)
    return record
  }

  runJob(record: JobRecord, ready: ReadyJob): Promise<Conclusion> {
    if (record.status === 'completed') return Promise.resolve(record.conclusion ?? 'cancelled')
    const run = this.runOf(record)
    if (run.cancelled && !holdsWhenCancelled(ready.job.if, ready.context)) {
      this.finish(record, 'cancelled', 'The run was cancelled')
      return Promise.resolve('cancelled')
    }
    return new Promise((resolve) => {
      this.waiters.set(record, resolve)
      try {
        this.enterJob(record, ready, run)
      } catch (error) {
        // What GitHub refuses as the job starts (an expression of its group or timeout) fails the job alone.
        const message = `run ${record.runId} job '${record.name}': ${(error as Error).message}`
        this.problems.push(message)
        this.finish(record, 'failure', message)
      }
    })
  }

  /** Starts the job, or keeps it pending in its concurrency group. */
  private enterJob(record: JobRecord, ready: ReadyJob, run: RunState): void {
    const github = { ...(ready.context.github as Record<string, unknown>), token: record.token, job: record.jobId }
    const secrets = { ...(ready.context.secrets as Record<string, string>), GITHUB_TOKEN: record.token }
    const context: ExpressionContext = { ...ready.context, github, secrets }
    const job = ready.job
    const resolved = job.concurrency ? resolveConcurrency(job.concurrency, context) : undefined
    const group = resolved?.group ?? ''
    if (group && ready.heldAbove?.includes(group.toLowerCase())) throw new Error(deadlock(group))
    const runGroup = run.records.length === 1 ? record.concurrencyGroup : undefined
    const minutes = Number(evaluateValue(job.timeoutMinutes, context))
    if (job.timeoutMinutes !== undefined && !(minutes > 0)) {
      throw new Error(`timeout-minutes must be a positive number; '${job.timeoutMinutes}' gave ${minutes}`)
    }
    const plan = {
      run,
      job,
      context,
      permissions: ready.permissions,
      workflowEnv: ready.workflowEnv,
      workflowFile: this.workflows.ofRun(run.runId).file,
      sharedTempGroup: group || runGroup,
      timeoutMs: this.options.jobTimeoutMs ?? (minutes > 0 ? minutes * 60_000 : 120_000),
    }
    if (!group) {
      this.start(record, plan)
      return
    }
    record.concurrencyGroup = group
    const member: GroupMember = {
      start: () => this.start(record, plan),
      cancel: (reason) => this.finish(record, 'cancelled', reason),
      interrupt: (reason) => this.cancel(record, reason),
    }
    this.jobGroups.set(record, { group, member })
    const options = resolved?.options ?? { cancelInProgress: false }
    if (this.groups.enter(group, member, options) === 'pending') record.status = 'pending'
  }

  enterGroup(name: string, member: GroupMember, options: GroupOptions): 'running' | 'pending' | 'cancelled' {
    return this.groups.enter(name, member, options)
  }

  leaveGroup(name: string, member: GroupMember): void {
    this.groups.leave(name, member, !this.stopped)
  }

  cancel(record: JobRecord, reason: string): void {
    if (record.status === 'running') {
      record.reason = reason
      this.runner.cancel(record, reason)
    } else this.finish(record, 'cancelled', reason)
  }

  readCalledWorkflow(uses: string, run: RunState): WorkflowSpec {
    return readCalledWorkflow(uses, run.sha, this.options.remote.bareDir, this.options.actionDir)
  }

  isStopped(): boolean {
    return this.stopped
  }

  finish(job: JobRecord, conclusion: Conclusion, reason: string | undefined): void {
    if (job.status === 'completed') return
    job.status = 'completed'
    job.conclusion = conclusion
    job.reason = reason ?? job.reason
    if (job.startedAt !== undefined) job.durationMs = Date.now() - job.startedAt
    // GitHub revokes a job's GITHUB_TOKEN when the job ends.
    this.options.api.removeToken(job.token)
    const grouped = this.jobGroups.get(job)
    if (grouped) {
      this.jobGroups.delete(job)
      this.groups.leave(grouped.group, grouped.member, !this.stopped)
    }
    this.waiters.get(job)?.(conclusion)
    this.waiters.delete(job)
    for (const listener of this.finishedListeners) listener(job)
    this.notifyIfIdle()
  }

  private start(record: JobRecord, plan: Parameters<JobRunner['execute']>[1]): void {
    record.status = 'running'
    record.startedAt = Date.now()
    const modelRun = this.model.runs.get(record.runId)
    if (modelRun && modelRun.status !== 'in_progress') {
      modelRun.status = 'in_progress'
      modelRun.startedAt = this.model.now()
      modelRun.updatedAt = modelRun.startedAt
    }
    this.runner.execute(record, plan).then(
      ({ conclusion, reason }) => this.finish(record, conclusion, reason),
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error)
        this.problems.push(`run ${record.runId}: ${message}`)
        this.finish(record, 'failure', message)
      },
    )
  }

  private readonly runs = new Map<number, RunState>()

  private runOf(record: JobRecord): RunState {
    const run = this.runs.get(record.runId)
    if (!run) throw new Error(`sandbox: no run ${record.runId}`)
    return run
  }

  private isIdle(): boolean {
    return this.activeRuns === 0 && this.jobs.every((j) => j.status === 'completed')
  }

  private notifyIfIdle(): void {
    if (this.isIdle()) for (const waiter of this.idleWaiters.splice(0)) waiter()
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
    spec: WorkflowSpec,
    event: string,
    ref: string,
    sha: string,
    actor: gh.UserModel,
    inputs: Record<string, string>,
    payload: Record<string, unknown>,
    /** A re-run: the run's last attempt, whose id, number and artifacts the new attempt keeps. */
    previous?: RunState,
    /** "Re-run failed jobs": the jobs of `previous` that succeeded or were skipped may be kept. */
    keepSucceeded = false,
  ): RunState {
    if (this.stopped) throw new ApiError(503, 'sandbox: stopped')
    const maxJobs = this.options.maxJobs ?? 50
    if (this.jobs.length >= maxJobs) {
      const message = `sandbox: job limit of ${maxJobs} reached; refusing ${event} on ${ref} (a loop that never ends?)`
      this.problems.push(message)
      throw new ApiError(422, message)
    }
    const runId = previous?.runId ?? ++this.nextRunId
    const runNumber = previous?.runNumber ?? this.workflows.nextRunNumber(spec.file)
    const run: RunState = {
      runId,
      runNumber,
      runAttempt: (previous?.runAttempt ?? 0) + 1,
      event,
      ref,
      sha,
      actor,
      inputs,
      payload,
      records: [],
      cancelled: false,
      artifacts:
        previous?.artifacts ??
        runArtifactStore(this.options, `${this.model.repo.owner.login}/${this.model.repo.name}`, runId, ref),
    }
    this.runs.set(runId, run)
    this.workflows.startRun(runId, spec)
    const base = runContext(run, {
      repo: this.model.repo,
      workflow: spec,
      serverUrl: this.serverUrl(),
      apiUrl: this.options.api.url,
      secrets: this.options.secrets ?? {},
      vars: this.options.vars ?? {},
    })
    const modelRun = modelRunOf(run, spec, this.workflows.idOf(spec.file), this.model.now(), base)
    this.model.runs.set(runId, modelRun)
    const defaults = defaultPermissions(this.options.defaultWorkflowPermissions ?? 'write')
    const read = (uses: string) => this.readCalledWorkflow(uses, run)
    const invalid = startupProblem(run, spec, modelRun, { granted: defaults, read, now: this.model.now() })
    if (invalid) {
      this.problems.push(invalid)
      this.notifyIfIdle()
      return run
    }
    const scope = {
      base,
      namePrefix: '',
      permissionCap: defaults,
      slots: new Limiter(this.options.maxParallelJobs ?? 4),
      depth: 0,
      ...(previous && keepSucceeded ? { previous: new Map(previous.records.map((r) => [r.name, r])) } : {}),
    }
    const graph = new RunGraph(this, run, spec, scope)
    const concurrency = spec.workflowConcurrency
    let resolved: ReturnType<typeof resolveConcurrency> | undefined
    try {
      resolved = concurrency ? resolveConcurrency(concurrency, base) : undefined
    } catch (error) {
      // GitHub fails such a run at once: the workflow is invalid.
      const message = `run ${runId}: ${(error as Error).message}`
      this.problems.push(message)
      for (const record of graph.allRecords()) this.finish(record, 'failure', message)
      this.endRun(run)
      return run
    }
    this.activeRuns++
    const group = resolved?.group ?? ''
    let member: GroupMember | undefined
    const end = () => {
      this.activeRuns--
      if (member) this.groups.leave(group, member, !this.stopped)
      this.endRun(run)
    }
    const begin = () => {
      for (const record of run.records) if (record.status === 'pending') record.status = 'queued'
      graph.start().then(end, (error: unknown) => {
        this.problems.push(`run ${runId}: ${(error as Error).message}`)
        for (const record of graph.allRecords()) this.finish(record, 'failure', (error as Error).message)
        end()
      })
    }
    if (!resolved || !group) {
      begin()
      return run
    }
    // The run's group (workflow-level concurrency): a pending run's jobs wait with it.
    const finish = this.finish.bind(this)
    member = runGroupMember(run, graph, group, { begin, end, finish, cancel: this.cancel.bind(this) })
    this.groups.enter(group, member, resolved.options)
    return run
  }

  /** The run ends: its conclusion from its jobs', as GitHub gives it. */
  private endRun(run: RunState): void {
    const modelRun = this.model.runs.get(run.runId)
    if (modelRun) completeModelRun(modelRun, run.records, this.model.now())
    this.notifyIfIdle()
  }
}
