// A workflow file as the sandbox's engine runs it: triggers, dispatch inputs, `workflow_call`'s
// inputs, secrets and outputs, and every job (needs, if, permissions, concurrency, outputs, env,
// strategy, steps, or `uses:` of a reusable workflow). A key the engine does not honour is refused
// when the file is read, never ignored. Expressions live in expressions.ts.
import { parse } from 'yaml'
import { type EventFilters, eventFiltersOf } from './event-filters.js'
import type { Scope } from './rest-api.js'
import { allPermissions } from './token-permissions.js'
import { checkExpressions, checkWorkflowDocument } from './workflow-checks.js'

export { type ExpressionContext, evaluateCondition, evaluateExpression, interpolate } from './expressions.js'

/** A declared `workflow_dispatch` input. */
export interface DispatchInput {
  required?: boolean
  default?: string
  type?: 'string' | 'boolean' | 'number' | 'choice' | 'environment'
  options?: string[]
}

export type Permissions = Partial<Record<Scope, 'read' | 'write'>>

/** `concurrency:` of a workflow or a job. */
export interface ConcurrencySpec {
  /** Expressions allowed. */
  group: string
  /** `true`, `false`, or a `${{ }}` expression evaluated when the run or job enters its group. */
  cancelInProgress: boolean | string
  /** `single` (GitHub's default: one pending, a newer one cancels it) or `max` (up to 100, in order). */
  queue?: 'single' | 'max'
}

/** One step: `run:` (bash) or `uses:`. */
export interface StepSpec {
  id?: string
  name?: string
  if?: string
  run?: string
  uses?: string
  with: Record<string, string>
  env: Record<string, string>
  workingDirectory?: string
  continueOnError: boolean
}

/** A job's `uses:` of a reusable workflow. */
export interface CallSpec {
  uses: string
  with: Record<string, unknown>
  secrets: 'inherit' | Record<string, string>
}

/** One job of a workflow. */
export interface JobSpec {
  id: string
  name?: string
  needs: string[]
  if?: string
  permissions?: Permissions
  concurrency?: ConcurrencySpec
  /** `outputs:` (expressions over `steps`). */
  outputs: Record<string, string>
  env: Record<string, string>
  steps: StepSpec[]
  /** `timeout-minutes` (a number or an expression). */
  timeoutMinutes?: string
  strategy?: { matrix: unknown; failFast: unknown; maxParallel?: unknown }
  call?: CallSpec
}

/** A declared `workflow_call` input. */
export interface CallInput {
  type: 'string' | 'boolean' | 'number'
  required: boolean
  default?: unknown
}

/** What `on.workflow_call` declares. */
export interface WorkflowCallSpec {
  inputs: Record<string, CallInput>
  secrets: Record<string, { required: boolean }>
  /** Output name → `value:` expression over `jobs`. */
  outputs: Record<string, string>
}

/**
 * A workflow as the engine runs it. `jobs` is what runs; the fields after `inputs` describe the job
 * that uses the action under test, and are what `startSandbox({ workflow })` may override.
 */
export interface WorkflowSpec {
  /** File name under `.github/workflows/` (the dispatch endpoint's `workflow_id`). */
  file: string
  /** `name:` of the workflow (GITHUB_WORKFLOW); the path when absent, as GitHub does. */
  name?: string
  /** `run-name:` (expressions over github, inputs, vars): the run's title. */
  runName?: string
  /** Events that start it (default `['workflow_dispatch']`). */
  on?: string[]
  /**
   * `on.<event>.types`: the activity types that start it (`issues: types: [labeled]` runs on a label,
   * not on an edit); an event without `types` runs on every activity, as on GitHub.
   */
  activityTypes?: Record<string, string[]>
  /** `on.<event>.branches`, `paths`... (event-filters.ts): an event that does not pass them starts no run. */
  eventFilters?: Record<string, EventFilters>
  /** `on.workflow_dispatch.inputs`: a dispatch's undeclared inputs and missing required ones are refused (422). */
  inputs?: Record<string, DispatchInput>
  /** `on.workflow_call`, for a reusable workflow. */
  workflowCall?: WorkflowCallSpec
  /** The jobs, in the file's order. */
  jobs?: JobSpec[]
  /** Workflow-level `env:`, `permissions:` and `concurrency:` (the run's group). */
  workflowEnv?: Record<string, string>
  workflowPermissions?: Permissions
  workflowConcurrency?: ConcurrencySpec
  /** The action step's `with:`; values may hold `${{ }}` expressions. */
  with?: Record<string, string>
  /** Workflow, job and step `env:` of the action step, merged. */
  env?: Record<string, string>
  /** The action job's (or the workflow's) `concurrency.group`. */
  concurrency?: string
  cancelInProgress?: boolean | string
  queue?: 'single' | 'max'
  /** The action job's `permissions:`; absent means the repository's default (engine option `defaultWorkflowPermissions`). */
  permissions?: Permissions
  /** The action job's id (GITHUB_JOB), default `loop`. */
  job?: string
  /** actions/checkout's `fetch-depth` (0 = full history, GitHub's default is 1). Default 0. */
  fetchDepth?: number
  /** actions/checkout's `persist-credentials` (GitHub's default is true: the token lands in .git/config). */
  persistCredentials?: boolean
  /** actions/checkout's major version: v6 on persist the token in a file under RUNNER_TEMP, not in .git/config. */
  checkoutMajor?: number
  /** The action job's `if:`; a false condition makes the job `skipped`. */
  if?: string
  /** The action job's `timeout-minutes`, as milliseconds. */
  timeoutMs?: number
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const stringValues = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(asRecord(value)).map(([k, v]) => [k, String(v)]))

const WORKFLOW_KEYS = new Set(['name', 'run-name', 'on', 'true', 'permissions', 'env', 'concurrency', 'jobs'])
const JOB_KEYS = new Set([
  'name',
  'runs-on',
  'needs',
  'if',
  'permissions',
  'concurrency',
  'outputs',
  'env',
  'steps',
  'strategy',
  'timeout-minutes',
])
const CALLER_JOB_KEYS = new Set(['name', 'needs', 'if', 'permissions', 'uses', 'with', 'secrets', 'strategy'])
CALLER_JOB_KEYS.add('concurrency') // held by the call until every called job ended (call-group.ts)
const STEP_KEYS = new Set(['id', 'name', 'if', 'run', 'uses', 'with', 'env', 'shell', 'working-directory'])
STEP_KEYS.add('continue-on-error')

/** Refuses keys the engine would otherwise ignore. */
function refuseUnknownKeys(where: string, value: Record<string, unknown>, known: Set<string>): void {
  const unknown = Object.keys(value).filter((key) => !known.has(key))
  if (unknown.length > 0) {
    throw new Error(`sandbox: ${where}: the workflow engine does not run ${unknown.map((k) => `'${k}'`).join(', ')}`)
  }
}

function permissionsOf(value: unknown): Permissions | undefined {
  if (value === 'read-all' || value === 'write-all') return allPermissions(value === 'read-all' ? 'read' : 'write')
  if (value !== undefined && typeof value === 'object') return stringValues(value) as Permissions
  return undefined
}

function concurrencyOf(value: unknown): ConcurrencySpec | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string') return { group: value, cancelInProgress: false }
  const record = asRecord(value)
  // The keys, the queue and the cancel-in-progress value were checked with the file (workflow-checks.ts).
  const cancel = record['cancel-in-progress']
  const spec: ConcurrencySpec = {
    group: String(record.group ?? ''),
    cancelInProgress: typeof cancel === 'string' ? cancel : cancel === true,
  }
  if (record.queue === 'single' || record.queue === 'max') spec.queue = record.queue
  return spec
}

function stepOf(where: string, raw: unknown, index: number): StepSpec {
  const step = asRecord(raw)
  refuseUnknownKeys(`${where} step ${index + 1}`, step, STEP_KEYS)
  if ((step.run === undefined) === (step.uses === undefined)) {
    throw new Error(`sandbox: ${where} step ${index + 1} needs exactly one of 'run' and 'uses'`)
  }
  if (step.shell !== undefined && step.shell !== 'bash') {
    throw new Error(`sandbox: ${where} step ${index + 1}: only 'shell: bash' runs here; got '${String(step.shell)}'`)
  }
  const spec: StepSpec = {
    with: stringValues(step.with),
    env: stringValues(step.env),
    continueOnError: step['continue-on-error'] === true,
  }
  if (step.id !== undefined) spec.id = String(step.id)
  if (step.name !== undefined) spec.name = String(step.name)
  if (step.if !== undefined) spec.if = String(step.if)
  if (step.run !== undefined) spec.run = String(step.run)
  if (step.uses !== undefined) spec.uses = String(step.uses)
  if (step['working-directory'] !== undefined) spec.workingDirectory = String(step['working-directory'])
  return spec
}

function jobOf(file: string, id: string, raw: unknown): JobSpec {
  const job = asRecord(raw)
  const where = `${file}: job '${id}'`
  refuseUnknownKeys(where, job, job.uses === undefined ? JOB_KEYS : CALLER_JOB_KEYS)
  const needs = job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs.map(String) : [String(job.needs)]
  const spec: JobSpec = {
    id,
    needs,
    outputs: stringValues(job.outputs),
    env: stringValues(job.env),
    steps: (Array.isArray(job.steps) ? job.steps : []).map((step, index) => stepOf(where, step, index)),
  }
  if (job.name !== undefined) spec.name = String(job.name)
  if (job.if !== undefined) spec.if = String(job.if)
  const permissions = permissionsOf(job.permissions)
  if (permissions) spec.permissions = permissions
  const concurrency = concurrencyOf(job.concurrency)
  if (concurrency) spec.concurrency = concurrency
  if (job['timeout-minutes'] !== undefined) spec.timeoutMinutes = String(job['timeout-minutes'])
  if (job.strategy !== undefined) {
    const strategy = asRecord(job.strategy)
    refuseUnknownKeys(`${where} strategy`, strategy, new Set(['matrix', 'fail-fast', 'max-parallel']))
    spec.strategy = { matrix: strategy.matrix, failFast: strategy['fail-fast'] ?? true }
    if (strategy['max-parallel'] !== undefined) spec.strategy.maxParallel = strategy['max-parallel']
  }
  if (job.uses !== undefined) {
    const secrets = job.secrets === 'inherit' ? 'inherit' : stringValues(job.secrets)
    spec.call = { uses: String(job.uses), with: { ...asRecord(job.with) }, secrets }
  } else if (spec.steps.length === 0) {
    throw new Error(`sandbox: ${where} has no steps`)
  }
  return spec
}

function workflowCallOf(raw: unknown): WorkflowCallSpec {
  const call = asRecord(raw)
  const inputs: Record<string, CallInput> = {}
  for (const [name, value] of Object.entries(asRecord(call.inputs))) {
    const input = asRecord(value)
    const type = input.type
    if (type !== 'string' && type !== 'boolean' && type !== 'number') {
      throw new Error(`sandbox: workflow_call input '${name}' has type ${JSON.stringify(type)}; GitHub requires one`)
    }
    inputs[name] = { type, required: input.required === true }
    if (input.default !== undefined) inputs[name].default = input.default
  }
  const secrets = Object.fromEntries(
    Object.entries(asRecord(call.secrets)).map(([name, value]) => [
      name,
      { required: asRecord(value).required === true },
    ]),
  )
  const outputs = Object.fromEntries(
    Object.entries(asRecord(call.outputs)).map(([name, value]) => [name, String(asRecord(value).value ?? '')]),
  )
  return { inputs, secrets, outputs }
}

/** Refuses `needs` that name no job of the workflow, or that go round in a cycle. */
function checkNeeds(file: string, jobs: JobSpec[]): void {
  const byId = new Map(jobs.map((job) => [job.id, job]))
  for (const job of jobs) {
    const unknown = job.needs.find((need) => !byId.has(need))
    if (unknown)
      throw new Error(`sandbox: ${file}: job '${job.id}' needs '${unknown}', which is not a job of the workflow`)
  }
  const done = new Set<string>()
  const visit = (id: string, path: string[]): void => {
    if (path.includes(id)) {
      throw new Error(
        `sandbox: ${file}: the jobs' needs form a cycle: ${[...path.slice(path.indexOf(id)), id].join(' -> ')}`,
      )
    }
    if (done.has(id)) return
    for (const need of byId.get(id)?.needs ?? []) visit(need, [...path, id])
    done.add(id)
  }
  for (const job of jobs) visit(job.id, [])
}

/** Whether a step's `uses:` is the action under test: `./`, or an action (not a workflow) of loop-controller. */
export const usesActionUnderTest = (uses: string | undefined): boolean =>
  uses !== undefined && (uses === './' || (uses.includes('loop-controller') && !uses.includes('/.github/workflows/')))

/** The job whose steps use the action under test (else the first job). */
export function actionJobOf(spec: WorkflowSpec): JobSpec | undefined {
  return spec.jobs?.find((job) => job.steps.some((step) => usesActionUnderTest(step.uses))) ?? spec.jobs?.[0]
}

/** Reads a workflow file's text into a {@link WorkflowSpec}; throws on what the engine cannot run. */
export function parseWorkflow(file: string, text: string): WorkflowSpec {
  const doc = asRecord(parse(text))
  refuseUnknownKeys(file, doc, WORKFLOW_KEYS)
  checkWorkflowDocument(file, doc)
  const rawOn = doc.on ?? doc.true // YAML 1.1 parsers read a bare `on` key as `true`.
  const on =
    typeof rawOn === 'string' ? [rawOn] : Array.isArray(rawOn) ? rawOn.map(String) : Object.keys(asRecord(rawOn))
  const dispatch = asRecord(asRecord(rawOn).workflow_dispatch)
  const inputs: Record<string, DispatchInput> = {}
  for (const [name, raw] of Object.entries(asRecord(dispatch.inputs))) {
    const input = asRecord(raw)
    inputs[name] = {
      required: input.required === true,
      ...(input.default === undefined ? {} : { default: String(input.default) }),
      ...(typeof input.type === 'string' ? { type: input.type as DispatchInput['type'] } : {}),
      ...(Array.isArray(input.options) ? { options: input.options.map(String) } : {}),
    }
  }
  const jobs = Object.entries(asRecord(doc.jobs)).map(([id, raw]) => jobOf(file, id, raw))
  checkNeeds(file, jobs)
  const spec: WorkflowSpec = { file, on, inputs, jobs, workflowEnv: stringValues(doc.env) }
  const activityTypes = Object.entries(asRecord(rawOn)).flatMap(([event, config]) => {
    const types = asRecord(config).types
    if (types === undefined) return []
    const list = typeof types === 'string' ? [types] : Array.isArray(types) ? types.map(String) : null
    if (!list) throw new Error(`${file}: on.${event}.types must be a list of activity types`)
    return [[event, list] as const]
  })
  if (activityTypes.length > 0) spec.activityTypes = Object.fromEntries(activityTypes)
  const eventFilters = eventFiltersOf(rawOn)
  if (eventFilters) spec.eventFilters = eventFilters
  if (on.includes('workflow_call')) spec.workflowCall = workflowCallOf(asRecord(rawOn).workflow_call)
  if (typeof doc.name === 'string') spec.name = doc.name
  if (doc['run-name'] !== undefined) spec.runName = String(doc['run-name'])
  const workflowPermissions = permissionsOf(doc.permissions)
  if (workflowPermissions) spec.workflowPermissions = workflowPermissions
  const workflowConcurrency = concurrencyOf(doc.concurrency)
  if (workflowConcurrency) spec.workflowConcurrency = workflowConcurrency

  // The action job's view, as the engine described a one-job workflow before it ran jobs.
  const job = actionJobOf(spec)
  const step = job?.steps.find((s) => usesActionUnderTest(s.uses)) ?? job?.steps.find((s) => Object.keys(s.with).length)
  spec.job = job?.id ?? 'loop'
  spec.with = { ...step?.with }
  spec.env = { ...spec.workflowEnv, ...job?.env, ...step?.env }
  const concurrency = job?.concurrency ?? workflowConcurrency
  if (concurrency) {
    spec.concurrency = concurrency.group
    spec.cancelInProgress = concurrency.cancelInProgress
    if (concurrency.queue) spec.queue = concurrency.queue
  }
  const permissions = job?.permissions ?? workflowPermissions
  if (permissions) spec.permissions = permissions
  if (job?.if !== undefined) spec.if = job.if
  const minutes = Number(job?.timeoutMinutes)
  if (job?.timeoutMinutes !== undefined && Number.isFinite(minutes)) spec.timeoutMs = minutes * 60_000
  const checkout = job?.steps.find((s) => s.uses?.startsWith('actions/checkout'))
  if (checkout?.with['fetch-depth'] !== undefined) spec.fetchDepth = Number(checkout.with['fetch-depth'])
  if (checkout?.with['persist-credentials'] !== undefined) {
    spec.persistCredentials = checkout.with['persist-credentials'] !== 'false'
  }
  const major = /^actions\/checkout@v(\d+)/.exec(checkout?.uses ?? '')?.[1]
  if (major !== undefined) spec.checkoutMajor = Number(major)
  return spec
}

/**
 * The workflow with a test's overrides (`startSandbox({ workflow })`) applied to its jobs: trigger,
 * name and inputs to the workflow; the action job's fields to the job that uses the action (concurrency
 * where the file declares it). Without a file, one job: checkout, then the action with `with`.
 */
export function applyOverrides(parsed: WorkflowSpec | undefined, overrides: Partial<WorkflowSpec> & { file: string }) {
  // A test's overrides are held to the file's rules.
  checkExpressions(`sandbox: ${overrides.file} (override)`, 'jobs.<job_id>.if', overrides.if)
  checkExpressions(`sandbox: ${overrides.file} (override)`, 'jobs.<job_id>.steps.with', overrides.with)
  const spec: WorkflowSpec = { ...parsed, ...overrides }
  if (!parsed) {
    const checkoutWith: Record<string, string> = {}
    if (overrides.fetchDepth !== undefined) checkoutWith['fetch-depth'] = String(overrides.fetchDepth)
    if (overrides.persistCredentials !== undefined) {
      checkoutWith['persist-credentials'] = String(overrides.persistCredentials)
    }
    const job: JobSpec = {
      id: overrides.job ?? 'loop',
      needs: [],
      outputs: {},
      env: { ...overrides.env },
      steps: [
        {
          uses: `actions/checkout@v${overrides.checkoutMajor ?? 4}`,
          with: checkoutWith,
          env: {},
          continueOnError: false,
        },
        { uses: './', with: { ...overrides.with }, env: {}, continueOnError: false },
      ],
    }
    if (overrides.if !== undefined) job.if = overrides.if
    if (overrides.permissions) job.permissions = overrides.permissions
    if (overrides.concurrency !== undefined) {
      job.concurrency = { group: overrides.concurrency, cancelInProgress: overrides.cancelInProgress ?? false }
      if (overrides.queue) job.concurrency.queue = overrides.queue
    }
    if (overrides.timeoutMs !== undefined) job.timeoutMinutes = String(overrides.timeoutMs / 60_000)
    return { ...spec, jobs: [job] }
  }
  const jobs = (parsed.jobs ?? []).map((job) => ({ ...job, steps: job.steps.map((step) => ({ ...step })) }))
  spec.jobs = jobs
  const job = actionJobOf(spec)
  if (!job) return spec
  if (overrides.permissions) job.permissions = overrides.permissions
  if (overrides.if !== undefined) job.if = overrides.if
  if (overrides.timeoutMs !== undefined) job.timeoutMinutes = String(overrides.timeoutMs / 60_000)
  const step = job.steps.find((s) => usesActionUnderTest(s.uses))
  if (overrides.with && step) step.with = { ...overrides.with }
  const declared = parsed.workflowConcurrency ? 'workflow' : 'job'
  const current = declared === 'workflow' ? parsed.workflowConcurrency : job.concurrency
  if (overrides.concurrency !== undefined || overrides.cancelInProgress !== undefined || overrides.queue) {
    const next: ConcurrencySpec = {
      group: overrides.concurrency ?? current?.group ?? '',
      cancelInProgress: overrides.cancelInProgress ?? current?.cancelInProgress ?? false,
    }
    const queue = overrides.queue ?? current?.queue
    if (queue) next.queue = queue
    if (declared === 'workflow') spec.workflowConcurrency = next
    else job.concurrency = next
  }
  return spec
}
