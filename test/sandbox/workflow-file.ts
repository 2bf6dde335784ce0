// The parts of a workflow file the sandbox's engine honours (triggers, dispatch inputs, concurrency,
// permissions, env, and the step that uses the action), and GitHub's `${{ }}` expressions as far as
// such workflows use them.
import { parse } from 'yaml'
import type { Scope } from './rest-api.js'

/** A declared `workflow_dispatch` input. */
export interface DispatchInput {
  required?: boolean
  default?: string
  type?: 'string' | 'boolean' | 'number' | 'choice' | 'environment'
  options?: string[]
}

/** A workflow as the engine runs it: one job, one step using the action under test. */
export interface WorkflowSpec {
  /** File name under `.github/workflows/` (the dispatch endpoint's `workflow_id`). */
  file: string
  /** `name:` of the workflow (GITHUB_WORKFLOW); the path when absent, as GitHub does. */
  name?: string
  /** Events that start it (default `['workflow_dispatch']`). */
  on?: string[]
  /** `on.workflow_dispatch.inputs`; when given, unknown inputs and missing required ones are refused (422). */
  inputs?: Record<string, DispatchInput>
  /** The action step's `with:`; values may hold `${{ }}` expressions. */
  with?: Record<string, string>
  /** Workflow, job and step `env:` merged; values may hold expressions. */
  env?: Record<string, string>
  /** `concurrency.group` (expressions allowed). */
  concurrency?: string
  /** `concurrency.cancel-in-progress`. */
  cancelInProgress?: boolean
  /** `permissions:` of the job's GITHUB_TOKEN; absent means GitHub's permissive default (write). */
  permissions?: Partial<Record<Scope, 'read' | 'write'>>
  /** The job id (GITHUB_JOB), default `loop`. */
  job?: string
  /** actions/checkout's `fetch-depth` (0 = full history, GitHub's default is 1). Default 0. */
  fetchDepth?: number
  /** `timeout-minutes` of the job, as milliseconds. */
  timeoutMs?: number
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const stringValues = (value: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(asRecord(value)).map(([k, v]) => [k, String(v)]))

/**
 * Reads a workflow file's text into a {@link WorkflowSpec}. The action step is the first step whose
 * `uses:` is `./` (the action in the repository) or mentions `loop-controller`; otherwise the first
 * step with a `with:`.
 */
export function parseWorkflow(file: string, text: string): WorkflowSpec {
  const doc = asRecord(parse(text))
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
  const jobs = Object.entries(asRecord(doc.jobs))
  const [jobId, rawJob] = jobs[0] ?? ['loop', {}]
  const job = asRecord(rawJob)
  const steps = Array.isArray(job.steps) ? job.steps.map(asRecord) : []
  const step =
    steps.find((s) => typeof s.uses === 'string' && (s.uses === './' || s.uses.includes('loop-controller'))) ??
    steps.find((s) => s.with !== undefined) ??
    {}
  const concurrency = job.concurrency ?? doc.concurrency
  const permissions = job.permissions ?? doc.permissions
  const spec: WorkflowSpec = {
    file,
    on,
    inputs,
    with: stringValues(step.with),
    env: { ...stringValues(doc.env), ...stringValues(job.env), ...stringValues(step.env) },
    job: jobId,
  }
  if (typeof doc.name === 'string') spec.name = doc.name
  if (typeof concurrency === 'string') spec.concurrency = concurrency
  else if (concurrency !== undefined) {
    spec.concurrency = String(asRecord(concurrency).group ?? '')
    spec.cancelInProgress = asRecord(concurrency)['cancel-in-progress'] === true
  }
  if (permissions !== undefined && typeof permissions === 'object') {
    spec.permissions = stringValues(permissions) as WorkflowSpec['permissions']
  } else if (permissions === 'read-all' || permissions === 'write-all') {
    const level = permissions === 'read-all' ? 'read' : 'write'
    spec.permissions = { actions: level, contents: level, issues: level, 'pull-requests': level, checks: level }
  }
  if (typeof job['timeout-minutes'] === 'number') spec.timeoutMs = job['timeout-minutes'] * 60_000
  const checkout = steps.find((s) => typeof s.uses === 'string' && s.uses.startsWith('actions/checkout'))
  const depth = asRecord(checkout?.with)['fetch-depth']
  if (depth !== undefined) spec.fetchDepth = Number(depth)
  return spec
}

/** The contexts expressions read: `github`, `inputs`, `secrets`, `env`, `vars`. */
export type ExpressionContext = Record<string, unknown>

const lookup = (context: ExpressionContext, path: string): unknown => {
  let node: unknown = context
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node
}

function evaluateOperand(operand: string, context: ExpressionContext): unknown {
  const text = operand.trim()
  if (/^'.*'$/s.test(text)) return text.slice(1, -1).replaceAll("''", "'")
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text)
  if (text === 'true' || text === 'false') return text === 'true'
  if (text === 'null') return null
  if (/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(text)) return lookup(context, text)
  throw new Error(
    `sandbox: the expression '${text}' is beyond what the workflow engine evaluates (literals, context paths, ||, &&, ==, !=)`,
  )
}

/** Evaluates one expression (the text inside `${{ }}`): `a || b`, `a && b`, `a == b`, `a != b`, paths, literals. */
export function evaluateExpression(expression: string, context: ExpressionContext): unknown {
  const or = splitTopLevel(expression, '||')
  if (or.length > 1) {
    let value: unknown
    for (const part of or) {
      value = evaluateExpression(part, context)
      if (value) return value
    }
    return value
  }
  const and = splitTopLevel(expression, '&&')
  if (and.length > 1) {
    let value: unknown
    for (const part of and) {
      value = evaluateExpression(part, context)
      if (!value) return value
    }
    return value
  }
  for (const operator of ['==', '!='] as const) {
    const sides = splitTopLevel(expression, operator)
    if (sides.length === 2) {
      const [left, right] = sides.map((side) => evaluateOperand(side, context))
      const equal = String(left ?? '').toLowerCase() === String(right ?? '').toLowerCase()
      return operator === '==' ? equal : !equal
    }
  }
  return evaluateOperand(expression, context)
}

function splitTopLevel(text: string, operator: string): string[] {
  const parts: string[] = []
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") quoted = !quoted
    if (!quoted && text.startsWith(operator, i)) {
      parts.push(text.slice(start, i))
      start = i + operator.length
      i += operator.length - 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** Replaces every `${{ expression }}` in `template`; null and undefined become empty strings, as on GitHub. */
export function interpolate(template: string, context: ExpressionContext): string {
  return template.replace(/\$\{\{(.*?)\}\}/gs, (_, expression: string) => {
    const value = evaluateExpression(expression, context)
    if (value === undefined || value === null) return ''
    return typeof value === 'object' ? JSON.stringify(value) : String(value)
  })
}
