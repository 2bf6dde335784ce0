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
  /**
   * `concurrency.queue`: `single` (GitHub's default: one pending job, a newer one cancels it) or `max`
   * (up to 100 pending, started in order).
   */
  queue?: 'single' | 'max'
  /** `permissions:` of the job's GITHUB_TOKEN; absent means GitHub's permissive default (write). */
  permissions?: Partial<Record<Scope, 'read' | 'write'>>
  /** The job id (GITHUB_JOB), default `loop`. */
  job?: string
  /** actions/checkout's `fetch-depth` (0 = full history, GitHub's default is 1). Default 0. */
  fetchDepth?: number
  /** actions/checkout's `persist-credentials` (GitHub's default is true: the token lands in .git/config). */
  persistCredentials?: boolean
  /** actions/checkout's major version: v6 on persist the token in a file under RUNNER_TEMP, not in .git/config. */
  checkoutMajor?: number
  /** The job's `if:`; a false condition makes the run `skipped`. */
  if?: string
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
    const queue = asRecord(concurrency).queue
    if (queue !== undefined) {
      if (queue !== 'single' && queue !== 'max') {
        throw new Error(`${file}: concurrency.queue must be 'single' or 'max'; got ${JSON.stringify(queue)}`)
      }
      spec.queue = queue
    }
  }
  if (permissions !== undefined && typeof permissions === 'object') {
    spec.permissions = stringValues(permissions) as WorkflowSpec['permissions']
  } else if (permissions === 'read-all' || permissions === 'write-all') {
    const level = permissions === 'read-all' ? 'read' : 'write'
    spec.permissions = { actions: level, contents: level, issues: level, 'pull-requests': level, checks: level }
  }
  if (typeof job.if === 'string' || typeof job.if === 'boolean') spec.if = String(job.if)
  if (typeof job['timeout-minutes'] === 'number') spec.timeoutMs = job['timeout-minutes'] * 60_000
  const checkout = steps.find((s) => typeof s.uses === 'string' && s.uses.startsWith('actions/checkout'))
  const depth = asRecord(checkout?.with)['fetch-depth']
  if (depth !== undefined) spec.fetchDepth = Number(depth)
  const persist = asRecord(checkout?.with)['persist-credentials']
  if (persist !== undefined) spec.persistCredentials = persist !== false && persist !== 'false'
  const major = /^actions\/checkout@v(\d+)/.exec(String(checkout?.uses ?? ''))?.[1]
  if (major !== undefined) spec.checkoutMajor = Number(major)
  return spec
}

/** The contexts expressions read: `github`, `inputs`, `secrets`, `env`, `vars`. */
export type ExpressionContext = Record<string, unknown>

type Token = { kind: 'num' | 'str' | 'ident' | 'op'; text: string; value?: unknown }

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < source.length) {
    const rest = source.slice(i)
    const space = /^\s+/.exec(rest)
    if (space) {
      i += space[0].length
      continue
    }
    const quoted = /^'((?:[^']|'')*)'/.exec(rest)
    const number = /^-?\d+(\.\d+)?/.exec(rest)
    const ident = /^[A-Za-z_][\w-]*/.exec(rest)
    const op = /^(==|!=|<=|>=|&&|\|\||[!<>().,[\]*])/.exec(rest)
    if (quoted) tokens.push({ kind: 'str', text: quoted[0], value: quoted[1]?.replaceAll("''", "'") })
    else if (number) tokens.push({ kind: 'num', text: number[0], value: Number(number[0]) })
    else if (ident) tokens.push({ kind: 'ident', text: ident[0] })
    else if (op) tokens.push({ kind: 'op', text: op[0] })
    else throw new Error(`sandbox: cannot read the expression '${source}' at '${rest}'`)
    i += (quoted ?? number ?? ident ?? op)?.[0].length ?? 1
  }
  return tokens
}

/** GitHub's truthiness: false, 0, '', null and NaN are false; objects and arrays are true. */
const truthy = (value: unknown): boolean =>
  !(value === false || value === 0 || value === '' || value === null || value === undefined || Number.isNaN(value))

/** GitHub's loose equality: strings compare case-insensitively; mixed types compare as numbers. */
function looseEquals(left: unknown, right: unknown): boolean {
  if (typeof left === 'string' && typeof right === 'string') return left.toLowerCase() === right.toLowerCase()
  if (typeof left === 'object' && left !== null) return left === right
  if (typeof right === 'object' && right !== null) return false
  const asNumber = (v: unknown) => (v === null || v === undefined ? 0 : v === '' ? 0 : Number(v))
  return asNumber(left) === asNumber(right)
}

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  contains: (search, item) =>
    Array.isArray(search)
      ? search.some((element) => looseEquals(element, item))
      : String(search ?? '')
          .toLowerCase()
          .includes(String(item ?? '').toLowerCase()),
  startswith: (text, prefix) =>
    String(text ?? '')
      .toLowerCase()
      .startsWith(String(prefix ?? '').toLowerCase()),
  endswith: (text, suffix) =>
    String(text ?? '')
      .toLowerCase()
      .endsWith(String(suffix ?? '').toLowerCase()),
  format: (template, ...args) =>
    String(template).replace(/\{(\d+)\}/g, (_, index: string) => String(args[Number(index)] ?? '')),
  join: (items, separator = ',') => (Array.isArray(items) ? items.join(String(separator)) : String(items ?? '')),
  tojson: (value) => JSON.stringify(value, null, 2),
  fromjson: (text) => JSON.parse(String(text)),
  // The engine runs one job: nothing before it failed or was cancelled.
  success: () => true,
  always: () => true,
  failure: () => false,
  cancelled: () => false,
}

/**
 * Evaluates one expression (the text inside `${{ }}`) as GitHub does: literals, context paths
 * (`github.event.issue.number`, `inputs['loop-id']`), `!`, `==`, `!=`, `<`, `>`, `<=`, `>=`, `&&`, `||`,
 * parentheses, and the functions contains, startsWith, endsWith, format, join, toJSON, fromJSON,
 * success, always, failure, cancelled.
 */
export function evaluateExpression(expression: string, context: ExpressionContext): unknown {
  const tokens = tokenize(expression)
  let position = 0
  const peek = () => tokens[position]
  const take = (text?: string): Token => {
    const token = tokens[position]
    if (!token || (text !== undefined && token.text !== text)) {
      throw new Error(`sandbox: expected '${text ?? 'more'}' in the expression '${expression}'`)
    }
    position++
    return token
  }
  const orExpression = (): unknown => {
    let value = andExpression()
    while (peek()?.text === '||') {
      take()
      const right = andExpression()
      value = truthy(value) ? value : right
    }
    return value
  }
  const andExpression = (): unknown => {
    let value = comparison()
    while (peek()?.text === '&&') {
      take()
      const right = comparison()
      value = truthy(value) ? right : value
    }
    return value
  }
  const comparison = (): unknown => {
    const left = unary()
    const operator = peek()?.text
    if (
      operator === '==' ||
      operator === '!=' ||
      operator === '<' ||
      operator === '>' ||
      operator === '<=' ||
      operator === '>='
    ) {
      take()
      const right = unary()
      if (operator === '==') return looseEquals(left, right)
      if (operator === '!=') return !looseEquals(left, right)
      const [a, b] = [Number(left), Number(right)]
      return operator === '<' ? a < b : operator === '>' ? a > b : operator === '<=' ? a <= b : a >= b
    }
    return left
  }
  const unary = (): unknown => {
    if (peek()?.text === '!') {
      take()
      return !truthy(unary())
    }
    return primary()
  }
  const primary = (): unknown => {
    const token = take()
    if (token.text === '(') {
      const value = orExpression()
      take(')')
      return value
    }
    if (token.kind === 'str' || token.kind === 'num') return token.value
    if (token.kind !== 'ident') throw new Error(`sandbox: unexpected '${token.text}' in the expression '${expression}'`)
    const word = token.text
    if (word === 'true' || word === 'false') return word === 'true'
    if (word === 'null') return null
    if (peek()?.text === '(') {
      const fn = FUNCTIONS[word.toLowerCase()]
      if (!fn) {
        throw new Error(
          `sandbox: the function '${word}' in '${expression}' is beyond what the workflow engine evaluates`,
        )
      }
      take('(')
      const args: unknown[] = []
      while (peek()?.text !== ')') {
        args.push(orExpression())
        if (peek()?.text === ',') take(',')
      }
      take(')')
      return fn(...args)
    }
    let value: unknown = context[word]
    for (;;) {
      const next = peek()?.text
      if (next === '.') {
        take('.')
        const property = take().text
        value = property === '*' ? value : member(value, property)
      } else if (next === '[') {
        take('[')
        const key = orExpression()
        take(']')
        value = member(value, String(key))
      } else {
        return value
      }
    }
  }
  const member = (value: unknown, property: string): unknown =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[property] : undefined
  const result = orExpression()
  if (position < tokens.length) {
    throw new Error(`sandbox: unexpected '${tokens[position]?.text}' in the expression '${expression}'`)
  }
  return result
}

/** Evaluates a job's `if:` (with or without `${{ }}`) to a boolean, as GitHub does. */
export function evaluateCondition(condition: string, context: ExpressionContext): boolean {
  const trimmed = condition.trim()
  const inner = /^\$\{\{([\s\S]*)\}\}$/.exec(trimmed)?.[1] ?? trimmed
  return truthy(evaluateExpression(inner, context))
}

/** Replaces every `${{ expression }}` in `template`; null and undefined become empty strings, as on GitHub. */
export function interpolate(template: string, context: ExpressionContext): string {
  return template.replace(/\$\{\{(.*?)\}\}/gs, (_, expression: string) => {
    const value = evaluateExpression(expression, context)
    if (value === undefined || value === null) return ''
    return typeof value === 'object' ? JSON.stringify(value) : String(value)
  })
}
