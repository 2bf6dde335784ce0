// What a run starts from: the dispatch's inputs as GitHub checks them, the contexts every job of the
// run reads (`github`, `inputs`, `secrets`, `vars`), and the run's conclusion from its jobs'.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { refNameOf } from './checkout.js'
import { type ExpressionContext, interpolate } from './expressions.js'
import * as gh from './github-objects.js'
import type { Conclusion, JobRecord, RunState } from './job-record.js'
import { ApiError } from './rest-api.js'
import { MAX_CALLED_LEVELS } from './run-graph.js'
import { excessCalledPermissions } from './token-permissions.js'
import { type DispatchInput, type Permissions, parseWorkflow, type WorkflowSpec } from './workflow-file.js'

/** The dispatch's inputs with defaults; refuses (422) what GitHub refuses, an input the file does not declare too. */
export function checkDispatchInputs(
  declared: Record<string, DispatchInput> | undefined,
  given: Record<string, string>,
): Record<string, string> {
  const inputs: Record<string, string> = {}
  const unexpected = Object.keys(given).filter((name) => !(declared && name in declared))
  if (unexpected.length > 0) throw new ApiError(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`)
  for (const [name, input] of Object.entries(declared ?? {})) {
    const value = given[name] ?? input.default
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
    if (input.type === 'number' && !/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim())) {
      throw new ApiError(422, `Provided value '${value}' for input '${name}' is not a valid number`)
    }
    inputs[name] = value
  }
  return inputs
}

/** The `workflow_dispatch` event's payload, as GitHub delivers it. */
export function dispatchPayload(
  urls: gh.UrlContext,
  model: { repo: gh.RepoModel; now(): string },
  run: { inputs: Record<string, string>; ref: string; actor: gh.UserModel; spec: WorkflowSpec },
): Record<string, unknown> {
  return {
    inputs: run.inputs,
    ref: run.ref,
    repository: gh.repository(urls, model.repo, model.now()),
    sender: gh.simpleUser(urls, run.actor),
    workflow: `.github/workflows/${run.spec.file}`,
  }
}

/** The run's conclusion: one job's own; else failure, cancelled, skipped (all skipped) or success. */
export function runConclusion(records: readonly JobRecord[]): Conclusion {
  const conclusions = records.map((r) => r.conclusion)
  if (records.length === 1) return conclusions[0] ?? 'cancelled'
  if (conclusions.some((c) => c === 'failure' || c === 'timed_out')) return 'failure'
  if (conclusions.includes('cancelled')) return 'cancelled'
  return conclusions.every((c) => c === 'skipped') ? 'skipped' : 'success'
}

export interface RunContextSource {
  repo: gh.RepoModel
  workflow: WorkflowSpec
  serverUrl: string
  apiUrl: string
  secrets: Record<string, string>
  vars: Record<string, string>
}

/** The contexts of the run: `github` (the caller's, in a called workflow too), `inputs`, `secrets`, `vars`. */
export function runContext(run: RunState, source: RunContextSource): ExpressionContext {
  const repo = source.repo
  const declared = source.workflow.inputs ?? {}
  const typedInputs: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(run.inputs)) {
    const type = declared[name]?.type
    typedInputs[name] = type === 'boolean' ? value === 'true' : type === 'number' ? Number(value) : value
  }
  const pull = (run.payload.pull_request ?? {}) as { head?: { ref?: unknown }; base?: { ref?: unknown } }
  const isPull = run.event.startsWith('pull_request')
  return {
    github: {
      ref: run.ref,
      ref_name: refNameOf(run.ref),
      sha: run.sha,
      repository: `${repo.owner.login}/${repo.name}`,
      repository_owner: repo.owner.login,
      run_id: String(run.runId),
      run_number: String(run.runNumber),
      run_attempt: String(run.runAttempt),
      event_name: run.event,
      event: run.payload,
      actor: run.actor.login,
      triggering_actor: run.actor.login,
      workflow: source.workflow.name ?? `.github/workflows/${source.workflow.file}`,
      workflow_ref: `${repo.owner.login}/${repo.name}/.github/workflows/${source.workflow.file}@${run.ref}`,
      server_url: source.serverUrl,
      api_url: source.apiUrl,
      graphql_url: `${source.apiUrl}/graphql`,
      head_ref: isPull ? String(pull.head?.ref ?? '') : '',
      base_ref: isPull ? String(pull.base?.ref ?? '') : '',
    },
    inputs: typedInputs,
    secrets: { ...source.secrets },
    vars: { ...source.vars },
    env: {},
  }
}

/**
 * The workflow a job's `uses:` names: `./.github/workflows/x.yml` from the run's commit (a local git
 * call on the bare repository), or `<owner>/loop-controller/.github/workflows/x.yml@ref` from the action's
 * folder (as `uses: loop-controller/loop-controller@v1` is the action under test). Throws for others.
 */
export function readCalledWorkflow(uses: string, sha: string, bareDir: string, actionDir: string): WorkflowSpec {
  const local = /^\.\/(\.github\/workflows\/[^@]+\.ya?ml)$/.exec(uses)
  if (local?.[1]) {
    const text = execFileSync('git', ['--git-dir', bareDir, 'show', `${sha}:${local[1]}`], {
      encoding: 'utf8',
    })
    return parseWorkflow(local[1].replace(/^.*\//, ''), text)
  }
  // The action's own repository (as `uses: loop-controller/loop-controller@v1` is the action under test).
  const remote = /^([\w.-]+\/[\w.-]+)\/(\.github\/workflows\/[^@]+\.ya?ml)@.+$/.exec(uses)
  if (remote?.[1]?.includes('loop-controller') && remote[2]) {
    const file = join(actionDir, remote[2])
    if (!existsSync(file)) throw new Error(`${uses}: the action's repository has no ${remote[2]}`)
    return parseWorkflow(remote[2].replace(/^.*\//, ''), readFileSync(file, 'utf8'))
  }
  throw new Error(`the workflow engine runs reusable workflows of this repository or of loop-controller; not ${uses}`)
}

/**
 * The run as the REST API lists it, queued, from the engine's run; its title is the workflow's
 * `run-name` evaluated with the run's contexts (github, inputs, vars), else the workflow's name.
 */
export function modelRunOf(
  run: RunState,
  workflow: WorkflowSpec,
  workflowId: number,
  now: string,
  context: ExpressionContext,
): gh.RunModel {
  const { payload, ref } = run
  const runName = workflow.runName === undefined ? '' : interpolate(workflow.runName, context).trim()
  return {
    id: run.runId,
    runNumber: run.runNumber,
    runAttempt: run.runAttempt,
    workflowId,
    workflowPath: `.github/workflows/${workflow.file}`,
    workflowName: workflow.name ?? `.github/workflows/${workflow.file}`,
    ...(runName ? { displayTitle: runName } : {}),
    event: run.event,
    // A pull request's run names its head branch, not the merge ref it runs on.
    headBranch: ref.startsWith('refs/pull/')
      ? String((payload.pull_request as { head?: { ref?: string } } | undefined)?.head?.ref ?? '')
      : ref.replace(/^refs\/(heads|tags)\//, ''),
    headSha: run.sha,
    actor: run.actor,
    status: 'queued',
    conclusion: null,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
  }
}

/**
 * GitHub's refusal of a run whose workflow is not valid, found before any job starts (a called job
 * asking for more permissions than its caller grants): the run ends `startup_failure`, without jobs.
 * The problem, or undefined when the run may start.
 */
export function startupProblem(
  run: RunState,
  spec: WorkflowSpec,
  modelRun: gh.RunModel,
  check: { granted: Permissions; read: (uses: string) => WorkflowSpec; now: string },
): string | undefined {
  const excess = excessCalledPermissions(spec, check.granted, check.read, MAX_CALLED_LEVELS)
  if (!excess) return undefined
  Object.assign(modelRun, { status: 'completed', conclusion: 'startup_failure', updatedAt: check.now })
  return `run ${run.runId}: The workflow is not valid. .github/workflows/${spec.file}: ${excess}`
}

/** The run to re-run, when GitHub re-runs it: a finished one, re-run fewer than 50 times, with a failed job for `failed`. */
export function rerunnable(previous: RunState | undefined, runId: number, jobs: 'all' | 'failed'): RunState {
  if (!previous) throw new ApiError(404, `sandbox: no run ${runId} to re-run`)
  if (previous.records.some((record) => record.status !== 'completed')) {
    throw new ApiError(403, `sandbox: run ${runId} is still in progress; only a finished run is re-run`)
  }
  if (previous.runAttempt > 50) throw new ApiError(403, `sandbox: run ${runId} has been re-run 50 times`)
  const failed = previous.records.some((record) => record.conclusion !== 'success' && record.conclusion !== 'skipped')
  if (jobs === 'failed' && !failed) throw new ApiError(403, `sandbox: run ${runId} has no failed job to re-run`)
  return previous
}

/** The run ended: completed, with the conclusion its jobs give it. */
export function completeModelRun(modelRun: gh.RunModel, records: JobRecord[], now: string): void {
  modelRun.status = 'completed'
  modelRun.conclusion = runConclusion(records)
  modelRun.updatedAt = now
}
