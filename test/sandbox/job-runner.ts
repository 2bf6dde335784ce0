// Runs one job on a fresh "runner": its workspace and RUNNER_TEMP, a GITHUB_TOKEN with the job's
// permissions, the runner's environment, then its steps in order (each with its `if:`, its own
// GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE and GITHUB_STEP_SUMMARY files), the action's
// post step, and the job's `outputs:`.
import type { spawn } from 'node:child_process'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { arch } from 'node:os'
import { join } from 'node:path'
import { refNameOf } from './checkout.js'
import { type ExpressionContext, evaluateIf, interpolate, type StatusContext } from './expressions.js'
import type { Conclusion, JobRecord, RunState } from './job-record.js'
import type { RestApi, TokenGrant } from './rest-api.js'
import type { JobIdentity, StepArtifactUpload } from './results-server.js'
import { NODE_OPTIONS_REFUSED, parseFileCommands, parseWorkflowCommands } from './runner-files.js'
import { type ActionMetadata, killTree, runNode, runStep, type StepIo } from './steps.js'
import { type JobSpec, type Permissions, usesActionUnderTest } from './workflow-file.js'

/** What the engine needs from the results service (cache and artifacts): a runtime token per job. */
export interface ResultsService {
  /** Origin of the service; `ACTIONS_RESULTS_URL` is this plus `/`. */
  url: string
  issueRuntimeToken?(job: JobIdentity): string
  /** Lists an upload-artifact step's zip with the run's artifacts in the REST API. */
  publishStepArtifact?(upload: StepArtifactUpload): number
}

/** The git remote jobs check out from and push to. */
export interface GitRemote {
  /** What `git clone` takes: an http(s) URL (token checked) or a local path to the bare repository. */
  cloneUrl: string
  /** The bare repository on disk (to resolve refs without the network). */
  bareDir: string
}

/** `INPUT_<NAME>` as the runner spells it: upper case, spaces to underscores, dashes kept. */
export const inputVariable = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`

/** The runner's file-command files of a step, by the prefix of their names in `_runner_file_commands`. */
const RUNNER_FILE_PREFIXES = {
  output: 'set_output',
  state: 'save_state',
  env: 'set_env',
  path: 'add_path',
  summary: 'step_summary',
} as const

/** The engine-wide things a job runs with. */
export interface RunnerDeps {
  api: RestApi
  remote: GitRemote
  results?: ResultsService
  actionDir: string
  action: ActionMetadata
  root: string
  serverUrl: string
  debug?: boolean
  extraEnv?: Record<string, string>
  problems: string[]
}

/** One job to run: its spec, the contexts its expressions read, and where it stands in its run. */
export interface JobPlan {
  run: RunState
  job: JobSpec
  /** github, inputs, secrets, vars, needs, matrix, strategy. */
  context: ExpressionContext
  /** The token's: the job's, its workflow's, the calling job's or the repository's default (run-graph.ts). */
  permissions: Permissions
  /** The `env:` of the workflow the job is in. */
  workflowEnv: Record<string, string>
  /** The run's workflow (the caller's, for a called workflow's job): GITHUB_WORKFLOW_REF names it. */
  workflowFile: string
  /** RUNNER_TEMP is shared by the jobs of this concurrency group (they never overlap). */
  sharedTempGroup: string | undefined
  timeoutMs: number
}

export class JobRunner {
  private readonly children = new Map<JobRecord, ReturnType<typeof spawn>>()
  private readonly cancelling = new Map<JobRecord, string>()

  constructor(private readonly deps: RunnerDeps) {}

  /** Cancels a running job: its step is killed, no later step starts. */
  cancel(record: JobRecord, reason: string): void {
    this.cancelling.set(record, reason)
    {
      const child = this.children.get(record)
      if (child) killTree(child, 'SIGTERM')
    }
  }

  killAll(): void {
    for (const child of this.children.values()) killTree(child, 'SIGKILL')
  }

  get busy(): number {
    return this.children.size
  }

  async execute(record: JobRecord, plan: JobPlan): Promise<{ conclusion: Conclusion; reason?: string }> {
    try {
      return await this.steps(record, plan)
    } finally {
      this.children.delete(record)
    }
  }

  private async steps(record: JobRecord, plan: JobPlan): Promise<{ conclusion: Conclusion; reason?: string }> {
    const { deps } = this
    const repo = deps.api.model.repo
    const repoFull = `${repo.owner.login}/${repo.name}`
    const slug = record.name.replace(/[^A-Za-z0-9._-]+/g, '-')
    const runDir = join(deps.root, 'runs', `${record.runId}-${record.runAttempt}`, slug)
    const workspace = join(runDir, 'work', repo.name, repo.name)
    // RUNNER_TEMP is one fixed path on a runner, the same in every job, and tools rely on it (the cache
    // version includes the absolute paths saved). Jobs of one concurrency group never overlap, so they
    // share one temp folder, emptied at the start of each job as a fresh runner's would be.
    const temp = plan.sharedTempGroup
      ? join(deps.root, 'runner-temp', createHash('sha256').update(plan.sharedTempGroup).digest('hex').slice(0, 12))
      : join(runDir, 'temp')
    rmSync(temp, { recursive: true, force: true })
    mkdirSync(join(temp, '_runner_file_commands'), { recursive: true })
    mkdirSync(join(temp, '_github_workflow'), { recursive: true })
    mkdirSync(workspace, { recursive: true })
    const toolCache = join(deps.root, 'toolcache')
    mkdirSync(toolCache, { recursive: true })
    record.workspace = workspace

    const grant: TokenGrant = {
      actor: 'github-actions[bot]',
      kind: 'installation',
      permissions: plan.permissions,
    }
    deps.api.addToken(record.token, grant)
    record.permissions = grant.permissions
    const eventPath = join(temp, '_github_workflow', 'event.json')
    writeFileSync(eventPath, JSON.stringify(plan.run.payload, null, 2))
    const isPullEvent = record.event.startsWith('pull_request')
    const pull = plan.run.payload.pull_request as { head?: { ref?: string }; base?: { ref?: string } } | undefined
    const baseRef = isPullEvent && pull?.base?.ref ? `refs/heads/${pull.base.ref}` : undefined
    const runtimeToken =
      deps.results?.issueRuntimeToken?.({
        repository: repoFull,
        runId: record.runId,
        runAttempt: record.runAttempt,
        job: record.jobId,
        ref: record.ref,
        ...(baseRef ? { baseRef } : {}),
      }) ?? randomBytes(24).toString('base64url')
    const github = plan.context.github as Record<string, unknown>
    const runnerEnv: Record<string, string> = {
      // The runner starts steps with its own small environment, not the caller's.
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: join(deps.root, 'home'),
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
      GITHUB_REF: record.ref,
      GITHUB_REF_NAME: refNameOf(record.ref),
      GITHUB_REF_TYPE: record.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      GITHUB_REF_PROTECTED: 'false',
      GITHUB_SHA: record.sha,
      GITHUB_HEAD_REF: String(github.head_ref ?? ''),
      GITHUB_BASE_REF: String(github.base_ref ?? ''),
      GITHUB_RUN_ID: String(record.runId),
      GITHUB_RUN_NUMBER: String(record.runNumber),
      GITHUB_RUN_ATTEMPT: String(record.runAttempt),
      GITHUB_RETENTION_DAYS: '90',
      GITHUB_EVENT_NAME: record.event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_WORKSPACE: workspace,
      GITHUB_API_URL: deps.api.url,
      GITHUB_SERVER_URL: deps.serverUrl,
      GITHUB_GRAPHQL_URL: `${deps.api.url}/graphql`,
      GITHUB_ACTOR: record.actor,
      GITHUB_ACTOR_ID: String(deps.api.model.users.get(record.actor.toLowerCase())?.id ?? 0),
      GITHUB_TRIGGERING_ACTOR: record.actor,
      GITHUB_WORKFLOW: String(github.workflow),
      GITHUB_WORKFLOW_REF: `${repoFull}/.github/workflows/${plan.workflowFile}@${record.ref}`,
      GITHUB_WORKFLOW_SHA: record.sha,
      GITHUB_JOB: record.jobId,
      RUNNER_OS: 'Linux',
      RUNNER_ARCH: arch() === 'arm64' ? 'ARM64' : 'X64',
      RUNNER_NAME: 'GitHub Actions 1',
      RUNNER_ENVIRONMENT: 'github-hosted',
      RUNNER_TEMP: temp,
      RUNNER_TOOL_CACHE: toolCache,
      RUNNER_WORKSPACE: join(runDir, 'work', repo.name),
      ...(deps.debug ? { RUNNER_DEBUG: '1' } : {}),
      ACTIONS_RUNTIME_TOKEN: runtimeToken,
      ACTIONS_RESULTS_URL: `${deps.results?.url ?? deps.api.url}/`,
      ACTIONS_CACHE_SERVICE_V2: 'True',
      ...deps.extraEnv,
    }
    mkdirSync(runnerEnv.HOME ?? temp, { recursive: true })
    const secrets = Object.values((plan.context.secrets ?? {}) as Record<string, string>)
    const masks = [record.token, runtimeToken, ...secrets.filter((s) => typeof s === 'string' && s.length > 0)]
    const deadline = Date.now() + plan.timeoutMs

    // The `env` context: the workflow's, then the job's env (each may read the contexts before it).
    const base = { ...plan.context, runner: { os: 'Linux', arch: runnerEnv.RUNNER_ARCH, temp, tool_cache: toolCache } }
    const envContext: Record<string, string> = {}
    for (const [name, value] of Object.entries({ ...plan.workflowEnv, ...plan.job.env })) {
      envContext[name] = interpolate(value, { ...base, env: envContext })
    }
    const stepsContext: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }> = {}
    const addedPath: string[] = []
    const posts: { script: string; env: Record<string, string>; state: Record<string, string> }[] = []
    let failed = false
    let sawAction = false
    let stdout = ''
    let stderr = ''
    let lastExitCode: number | null = null
    let ending: { conclusion: Conclusion; reason?: string } | undefined
    const say = (line: string) => {
      stdout += `${line}\n`
    }

    for (const [index, step] of plan.job.steps.entries()) {
      const stepId = step.id ?? `__step${index + 1}`
      const label = step.name ?? step.id ?? step.uses ?? `Run ${String(step.run).split('\n')[0]}`
      const cancelled = this.cancelling.has(record)
      const status: StatusContext = { success: !failed && !cancelled, failure: failed, cancelled }
      const stepContext: ExpressionContext = {
        ...base,
        env: { ...envContext, ...record.exportedEnv },
        steps: stepsContext,
        job: { status: failed ? 'failure' : 'success' },
        $status: status,
      }
      let runs: boolean
      try {
        for (const [name, value] of Object.entries(step.env)) {
          ;(stepContext.env as Record<string, string>)[name] = interpolate(value, stepContext)
        }
        runs = !ending && evaluateIf(step.if, stepContext)
      } catch (error) {
        deps.problems.push(`run ${record.runId} job '${record.name}' step '${label}': ${(error as Error).message}`)
        runs = false
        failed = true
      }
      if (!runs) {
        stepsContext[stepId] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' }
        record.steps.push({ id: stepId, outcome: 'skipped' })
        continue
      }
      // Named as the runner names them, so a command that lists the folder finds what it would on GitHub.
      const files = Object.fromEntries(
        Object.entries(RUNNER_FILE_PREFIXES).map(([kind, prefix]) => {
          const path = join(temp, '_runner_file_commands', `${prefix}_${randomUUID()}`)
          writeFileSync(path, '')
          return [kind, path]
        }),
      ) as Record<'output' | 'state' | 'env' | 'path' | 'summary', string>
      const isAction = usesActionUnderTest(step.uses)
      const withValues: Record<string, string> = {}
      for (const [name, value] of Object.entries({ ...(isAction ? deps.action.defaults : {}), ...step.with })) {
        withValues[name] = interpolate(value, stepContext)
      }
      const inputs = isAction
        ? Object.fromEntries(Object.entries(withValues).map(([name, value]) => [inputVariable(name), value]))
        : {}
      const env: Record<string, string> = {
        ...runnerEnv,
        ...(stepContext.env as Record<string, string>),
        PATH: [...addedPath, runnerEnv.PATH].join(':'),
        GITHUB_ACTION: isAction ? '__self' : stepId,
        GITHUB_ACTION_PATH: isAction ? deps.actionDir : '',
        GITHUB_OUTPUT: files.output,
        GITHUB_STATE: files.state,
        GITHUB_ENV: files.env,
        GITHUB_PATH: files.path,
        GITHUB_STEP_SUMMARY: files.summary,
        ...inputs,
      }
      if (isAction || !sawAction) record.env = env
      if (isAction) {
        sawAction = true
        record.actionInputs = inputs
      }
      if (this.cancelling.has(record)) {
        ending = { conclusion: 'cancelled', reason: this.cancelling.get(record) }
        break
      }
      const io: StepIo = {
        workspace,
        temp,
        deadline,
        env,
        with: withValues,
        script: step.run === undefined ? '' : interpolate(step.run, stepContext),
        checkout: { remote: deps.remote.cloneUrl, token: record.token, ref: record.ref, sha: record.sha },
        artifacts: plan.run.artifacts,
        actionDir: deps.actionDir,
        action: deps.action,
        track: (child) => {
          this.children.set(record, child)
          if (this.cancelling.has(record)) killTree(child, 'SIGTERM')
        },
      }
      const result = await runStep(step, io)
      if (result.refused) {
        deps.problems.push(
          `run ${record.runId} job '${record.name}': the workflow engine does not run ${result.refused} (step '${label}')`,
        )
        result.stderr += `sandbox: the workflow engine does not run ${result.refused}\n`
      }
      stdout += result.stdout
      stderr += result.stderr
      let outputs: Record<string, string> = {}
      let exitCode = result.exitCode
      try {
        outputs = parseFileCommands(readFileSync(files.output, 'utf8'), 'GITHUB_OUTPUT')
        const state = parseFileCommands(readFileSync(files.state, 'utf8'), 'GITHUB_STATE')
        const exported = parseFileCommands(readFileSync(files.env, 'utf8'), 'GITHUB_ENV')
        // The runner refuses NODE_OPTIONS there (v2.309.0, actions/runner#2775): skipped with an error annotation.
        for (const name of Object.keys(exported).filter((name) => name.toUpperCase() === 'NODE_OPTIONS')) {
          delete exported[name]
          say(`::error::${NODE_OPTIONS_REFUSED}`)
        }
        Object.assign(record.exportedEnv, exported)
        if (isAction) record.state = state
        if (isAction && deps.action.post) {
          posts.unshift({ script: join(deps.actionDir, deps.action.post), env, state })
        }
      } catch (error) {
        deps.problems.push(`run ${record.runId}: ${(error as Error).message}`)
        exitCode = exitCode === 0 ? 1 : exitCode
      }
      // As the runner: each line goes first, and a folder added again moves there rather than appearing twice.
      for (const line of readFileSync(files.path, 'utf8').split('\n').filter(Boolean)) {
        if (addedPath.includes(line)) addedPath.splice(addedPath.indexOf(line), 1)
        addedPath.unshift(line)
      }
      record.addedPath = [...addedPath]
      Object.assign(record.outputs, outputs)
      record.summary += readFileSync(files.summary, 'utf8')
      lastExitCode = exitCode
      const outcome: Conclusion = exitCode === 0 ? 'success' : 'failure'
      stepsContext[stepId] = {
        outputs,
        outcome,
        conclusion: outcome === 'failure' && step.continueOnError ? 'success' : outcome,
      }
      record.steps.push({ id: stepId, outcome })
      if (result.timedOut) {
        ending = {
          conclusion: 'timed_out',
          reason: `The job exceeded the maximum execution time of ${plan.timeoutMs} ms`,
        }
      } else if (result.killed || this.cancelling.has(record)) {
        ending = { conclusion: 'cancelled', reason: this.cancelling.get(record) ?? 'The job was cancelled' }
      } else if (outcome === 'failure' && !step.continueOnError) {
        failed = true
        say(`sandbox: step '${label}' failed with exit code ${exitCode}`)
      }
    }

    // Post steps run in reverse order, after the main steps, unless the job was killed.
    for (const post of ending ? [] : posts) {
      const stateEnv = Object.fromEntries(Object.entries(post.state).map(([name, value]) => [`STATE_${name}`, value]))
      // The post step gets file-command files of its own, as on the runner.
      const summary = join(temp, '_runner_file_commands', `step_summary_${randomUUID()}`)
      writeFileSync(summary, '')
      const path = [...addedPath, runnerEnv.PATH].join(':')
      const env = { ...post.env, ...record.exportedEnv, ...stateEnv, PATH: path, GITHUB_STEP_SUMMARY: summary }
      const result = await runNode(post.script, {
        workspace,
        env,
        deadline,
        track: (child) => this.children.set(record, child),
      })
      stdout += result.stdout
      stderr += result.stderr
      record.summary += readFileSync(summary, 'utf8')
      if (!failed && result.exitCode !== 0) {
        failed = true
        lastExitCode = result.exitCode
      }
    }

    const commands = parseWorkflowCommands(stdout)
    masks.push(...commands.masks)
    const secretValues = masks.filter((m) => m.length > 0)
    const outputsContext: ExpressionContext = { ...base, env: envContext, steps: stepsContext }
    for (const [name, value] of Object.entries(plan.job.outputs)) {
      try {
        const evaluated = interpolate(value, outputsContext)
        // The runner never sends on an output that holds a secret, the token or an `::add-mask::` value.
        if (secretValues.some((secret) => evaluated.includes(secret))) {
          const warning = `Skip output '${name}' since it may contain secret.`
          commands.annotations.push({ level: 'warning', message: warning })
          say(`##[warning]${warning}`)
          continue
        }
        record.jobOutputs[name] = evaluated
      } catch (error) {
        deps.problems.push(`run ${record.runId} job '${record.name}' output '${name}': ${(error as Error).message}`)
      }
    }
    const mask = (text: string) => secretValues.reduce((acc, m) => acc.replaceAll(m, '***'), text)
    record.annotations = commands.annotations
    record.unknownCommands = commands.unknown
    record.stdout = mask(stdout)
    record.stderr = mask(stderr)
    record.exitCode = failed ? lastExitCode : ending ? lastExitCode : 0
    if (ending) return ending
    return { conclusion: failed ? 'failure' : 'success' }
  }
}
