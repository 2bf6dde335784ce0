// What GitHub checks when it reads a workflow file, refused here the same way, so that a workflow GitHub
// would reject never runs in the sandbox: the contexts and functions each key's expressions may use
// (GitHub's "Context availability" table), job and step ids, `runs-on`, `permissions`, `concurrency`,
// and the versions of the actions the engine models. Every message names the file, the job and the key.
import { checkEventFilters } from './event-filters.js'
import { EXPRESSION_FUNCTIONS, expressionReferences } from './expressions.js'
import { checkPermissions } from './token-permissions.js'

const IN_STEPS = ['github', 'needs', 'strategy', 'matrix', 'job', 'runner', 'env', 'vars', 'secrets', 'steps', 'inputs']

/** GitHub's "Context availability": the contexts the expressions of each workflow key may read. */
export const CONTEXT_AVAILABILITY: Readonly<Record<string, readonly string[]>> = {
  'run-name': ['github', 'inputs', 'vars'],
  concurrency: ['github', 'inputs', 'vars'],
  env: ['github', 'secrets', 'inputs', 'vars'],
  'jobs.<job_id>.concurrency': ['github', 'needs', 'strategy', 'matrix', 'inputs', 'vars'],
  'jobs.<job_id>.env': ['github', 'needs', 'strategy', 'matrix', 'vars', 'secrets', 'inputs'],
  'jobs.<job_id>.if': ['github', 'needs', 'vars', 'inputs'],
  'jobs.<job_id>.name': ['github', 'needs', 'strategy', 'matrix', 'vars', 'inputs'],
  'jobs.<job_id>.outputs.<output_id>': IN_STEPS,
  'jobs.<job_id>.runs-on': ['github', 'needs', 'strategy', 'matrix', 'vars', 'inputs'],
  'jobs.<job_id>.secrets.<secrets_id>': ['github', 'needs', 'strategy', 'matrix', 'secrets', 'inputs', 'vars'],
  'jobs.<job_id>.steps.continue-on-error': IN_STEPS,
  'jobs.<job_id>.steps.env': IN_STEPS,
  'jobs.<job_id>.steps.if': IN_STEPS.filter((name) => name !== 'secrets'),
  'jobs.<job_id>.steps.name': IN_STEPS,
  'jobs.<job_id>.steps.run': IN_STEPS,
  'jobs.<job_id>.steps.with': IN_STEPS,
  'jobs.<job_id>.steps.working-directory': IN_STEPS,
  'jobs.<job_id>.strategy': ['github', 'needs', 'vars', 'inputs'],
  'jobs.<job_id>.timeout-minutes': ['github', 'needs', 'strategy', 'matrix', 'vars', 'inputs'],
  'jobs.<job_id>.with.<with_id>': ['github', 'needs', 'strategy', 'matrix', 'inputs', 'vars'],
  'on.workflow_call.inputs.<inputs_id>.default': ['github', 'inputs', 'vars'],
  'on.workflow_call.outputs.<output_id>.value': ['github', 'jobs', 'vars', 'inputs'],
}

/** The keys whose value is an expression as a whole, and the only ones where the status functions exist. */
const CONDITION_KEYS = new Set(['jobs.<job_id>.if', 'jobs.<job_id>.steps.if'])
const STATUS_FUNCTIONS = new Set(['success', 'failure', 'cancelled', 'always'])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * Refuses an expression of `value` (a string, or every string inside a mapping or list) that reads a
 * context GitHub does not make available at `key`, calls a function it does not know there, or sits in a
 * key that takes no expressions (`key` absent from the table).
 */
export function checkExpressions(where: string, key: string, value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) checkExpressions(where, key, item)
    return
  }
  if (isRecord(value)) {
    for (const item of Object.values(value)) checkExpressions(where, key, item)
    return
  }
  if (typeof value !== 'string') return
  const trimmed = value.trim()
  const expressions = CONDITION_KEYS.has(key)
    ? [/^\$\{\{([\s\S]*)\}\}$/.exec(trimmed)?.[1] ?? trimmed]
    : [...value.matchAll(/\$\{\{(.*?)\}\}/gs)].map((match) => match[1] ?? '')
  const allowed = CONTEXT_AVAILABILITY[key]
  for (const expression of expressions) {
    const at = `${where} ${key}`
    if (!allowed) throw new Error(`${at}: GitHub evaluates no expression here; got '${value}'`)
    let references: ReturnType<typeof expressionReferences>
    try {
      references = expressionReferences(expression)
    } catch (error) {
      throw new Error(`${at}: ${(error as Error).message}`)
    }
    const unknown = references.names.find((name) => !allowed.includes(name))
    if (unknown) {
      throw new Error(
        `${at}: Unrecognized named-value: '${unknown}' in '${expression.trim()}' (available here: ${allowed.join(', ')})`,
      )
    }
    for (const fn of references.functions) {
      const known = STATUS_FUNCTIONS.has(fn) ? CONDITION_KEYS.has(key) : EXPRESSION_FUNCTIONS.has(fn)
      if (fn === 'hashfiles') throw new Error(`${at}: the workflow engine does not evaluate hashFiles`)
      if (!known) throw new Error(`${at}: Unrecognized function: '${fn}' in '${expression.trim()}'`)
    }
  }
}

const CONCURRENCY_KEYS = ['group', 'cancel-in-progress', 'queue']

function checkConcurrency(where: string, value: unknown): void {
  if (value === undefined || typeof value === 'string') return
  if (!isRecord(value)) throw new Error(`${where} concurrency: takes a group name or a mapping; got ${String(value)}`)
  const unknown = Object.keys(value).filter((key) => !CONCURRENCY_KEYS.includes(key))
  if (unknown.length > 0) {
    throw new Error(
      `${where} concurrency: unknown key '${unknown.join("', '")}' (GitHub takes ${CONCURRENCY_KEYS.join(', ')})`,
    )
  }
  if (typeof value.group !== 'string' || value.group.trim() === '') {
    throw new Error(`${where} concurrency: 'group' is required`)
  }
  const cancel = value['cancel-in-progress']
  checkBooleanOrExpression(where, 'concurrency.cancel-in-progress', cancel)
  if (value.queue !== undefined && value.queue !== 'single' && value.queue !== 'max') {
    throw new Error(`${where} concurrency.queue: takes 'single' or 'max'; got ${JSON.stringify(value.queue)}`)
  }
  if (value.queue === 'max' && cancel === true) {
    throw new Error(
      `${where} concurrency: the combination of 'queue: max' and 'cancel-in-progress: true' is not allowed`,
    )
  }
}

/**
 * The majors of the actions the engine models that exist on github.com (as of 2026-11: checkout v7 and
 * setup-node v7 from mid-2026, upload-artifact v7 and download-artifact v8 from March 2026). v1 to v3 of
 * the artifact actions exist, but GitHub fails every job that uses them since their deprecation (v3 on
 * 2025-01-30): their storage backend is gone. Update this table when a new major is released.
 */
const ACTION_MAJORS: Readonly<Record<string, { latest: number; deprecatedBelow?: number }>> = {
  'actions/checkout': { latest: 7 },
  'actions/setup-node': { latest: 7 },
  'actions/upload-artifact': { latest: 7, deprecatedBelow: 4 },
  'actions/download-artifact': { latest: 8, deprecatedBelow: 4 },
}

function checkActionVersion(where: string, uses: string): void {
  const [name = '', ref = ''] = uses.split('@')
  const known = ACTION_MAJORS[name]
  if (!known) return
  const major = Number(/^v(\d+)(\.\d+){0,2}$/.exec(ref)?.[1] ?? Number.NaN)
  if (Number.isNaN(major)) {
    throw new Error(`${where} uses: ${uses}: the engine models ${name} by its version; pin a tag (vN or vN.N.N)`)
  }
  if (major < 1 || major > known.latest) {
    throw new Error(
      `${where} uses: Unable to resolve action \`${uses}\`, unable to find version \`${ref}\` (${name} has v1 to v${known.latest})`,
    )
  }
  if (known.deprecatedBelow !== undefined && major < known.deprecatedBelow) {
    throw new Error(
      `${where} uses: This request has been automatically failed because it uses a deprecated version of \`${name}: v${major}\` (use v${known.deprecatedBelow} or later)`,
    )
  }
}

/** The events that trigger workflows (GitHub's "Events that trigger workflows"). */
const EVENTS = new Set([
  'branch_protection_rule',
  'check_run',
  'check_suite',
  'create',
  'delete',
  'deployment',
  'deployment_status',
  'discussion',
  'discussion_comment',
  'fork',
  'gollum',
  'image_version',
  'issue_comment',
  'issues',
  'label',
  'merge_group',
  'milestone',
  'page_build',
  'project',
  'project_card',
  'project_column',
  'public',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'pull_request_target',
  'push',
  'registry_package',
  'release',
  'repository_dispatch',
  'schedule',
  'status',
  'watch',
  'workflow_call',
  'workflow_dispatch',
  'workflow_run',
])

const PULL_REQUEST_TYPES = [
  'assigned',
  'unassigned',
  'labeled',
  'unlabeled',
  'opened',
  'edited',
  'closed',
  'reopened',
  'synchronize',
  'converted_to_draft',
  'ready_for_review',
  'locked',
  'unlocked',
  'review_requested',
  'review_request_removed',
  'auto_merge_enabled',
  'auto_merge_disabled',
  'milestoned',
  'demilestoned',
  'enqueued',
  'dequeued',
]

/** The activity types of the events the engine delivers: a misspelt one would never start a run. */
const ACTIVITY_TYPES: Readonly<Record<string, readonly string[]>> = {
  issues: [
    'opened',
    'edited',
    'deleted',
    'transferred',
    'pinned',
    'unpinned',
    'closed',
    'reopened',
    'assigned',
    'unassigned',
    'labeled',
    'unlabeled',
    'locked',
    'unlocked',
    'milestoned',
    'demilestoned',
    'typed',
    'untyped',
  ],
  issue_comment: ['created', 'edited', 'deleted'],
  pull_request: PULL_REQUEST_TYPES,
  pull_request_target: PULL_REQUEST_TYPES,
  pull_request_review: ['submitted', 'edited', 'dismissed'],
}

function checkTriggers(where: string, on: unknown): void {
  const events =
    typeof on === 'string' ? [on] : Array.isArray(on) ? on.map(String) : Object.keys(isRecord(on) ? on : {})
  for (const event of events) {
    if (!EVENTS.has(event)) throw new Error(`${where} on: unknown event '${event}'`)
    const config = isRecord(on) ? on[event] : undefined
    const types = isRecord(config) ? config.types : undefined
    const known = ACTIVITY_TYPES[event]
    for (const type of typeof types === 'string' ? [types] : Array.isArray(types) ? types : []) {
      if (known && !known.includes(String(type))) {
        throw new Error(`${where} on.${event}.types: unknown activity type '${type}' (${known.join(', ')})`)
      }
    }
    checkEventFilters(where, event, config)
    if (event === 'workflow_dispatch' || event === 'workflow_call') checkDeclarations(where, event, config)
  }
}

/** The keys GitHub takes in `on.workflow_dispatch` and `on.workflow_call`, and in each declaration there. */
const DECLARATION_KEYS: Readonly<Record<string, readonly string[]>> = {
  workflow_dispatch: ['inputs'],
  workflow_call: ['inputs', 'secrets', 'outputs'],
  'workflow_dispatch.inputs': ['description', 'required', 'default', 'type', 'options'],
  'workflow_call.inputs': ['description', 'required', 'default', 'type'],
  'workflow_call.secrets': ['description', 'required'],
  'workflow_call.outputs': ['description', 'value'],
}
const DISPATCH_INPUT_TYPES = ['string', 'boolean', 'number', 'choice', 'environment']
/** GitHub takes at most 25 inputs for a `workflow_dispatch`. */
const MAX_DISPATCH_INPUTS = 25

function refuseOtherKeys(where: string, value: Record<string, unknown>, kind: string, path = kind): void {
  const known = DECLARATION_KEYS[kind] ?? []
  const other = Object.keys(value).find((key) => !known.includes(key))
  if (other) throw new Error(`${where} on.${path}: unknown key '${other}' (GitHub takes ${known.join(', ')})`)
}

/** Refuses a misspelt key of a dispatch's or a reusable workflow's declarations, or a dispatch input's bad type. */
function checkDeclarations(where: string, event: 'workflow_dispatch' | 'workflow_call', config: unknown): void {
  if (config === null || config === undefined) return
  if (!isRecord(config)) throw new Error(`${where} on.${event}: takes a mapping; got ${JSON.stringify(config)}`)
  refuseOtherKeys(where, config, event)
  const inputCount = Object.keys(isRecord(config.inputs) ? config.inputs : {}).length
  if (event === 'workflow_dispatch' && inputCount > MAX_DISPATCH_INPUTS) {
    throw new Error(
      `${where} on.workflow_dispatch.inputs: you may only define up to ${MAX_DISPATCH_INPUTS} \`inputs\` for a \`workflow_dispatch\` event (got ${inputCount})`,
    )
  }
  for (const part of DECLARATION_KEYS[event] ?? []) {
    for (const [name, declared] of Object.entries(isRecord(config[part]) ? config[part] : {})) {
      const at = `${where} on.${event}.${part}.${name}:`
      if (!isRecord(declared)) throw new Error(`${at} takes a mapping`)
      refuseOtherKeys(where, declared, `${event}.${part}`, `${event}.${part}.${name}`)
      if (event !== 'workflow_dispatch' || declared.type === undefined) continue
      if (!DISPATCH_INPUT_TYPES.includes(String(declared.type))) {
        throw new Error(`${at} type '${declared.type}' is not one of ${DISPATCH_INPUT_TYPES.join(', ')}`)
      }
      const options = Array.isArray(declared.options) ? declared.options.map(String) : []
      if (declared.type === 'choice' && options.length === 0) throw new Error(`${at} a choice needs options`)
      if (declared.type === 'choice' && declared.default !== undefined && !options.includes(String(declared.default))) {
        throw new Error(`${at} the default '${declared.default}' is not one of its options`)
      }
    }
  }
}

/** A value that is one `${{ }}` expression as a whole (evaluated when the run or job starts). */
const isWholeExpression = (value: unknown): boolean =>
  typeof value === 'string' && /^\s*\$\{\{[\s\S]*\}\}\s*$/.test(value)

/** A number, or an expression. */
function checkNumber(where: string, key: string, value: unknown): void {
  if (value === undefined || typeof value === 'number' || isWholeExpression(value)) return
  throw new Error(`${where} ${key}: takes a number or an expression; got '${String(value)}'`)
}

/** true, false, or an expression. */
function checkBooleanOrExpression(where: string, key: string, value: unknown): void {
  if (value === undefined || typeof value === 'boolean' || isWholeExpression(value)) return
  throw new Error(`${where} ${key}: takes true, false or an expression; got '${String(value)}'`)
}

/** GitHub's rule for job and step ids. */
const ID = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/
const idRule = (id: string) =>
  `The identifier '${id}' is invalid. IDs may only contain alphanumeric characters, '_', and '-'. IDs must start with a letter or '_' and must be less than 100 characters.`

function checkStep(where: string, raw: unknown, seen: Set<string>): void {
  if (!isRecord(raw)) throw new Error(`${where}: a step is a mapping; got ${JSON.stringify(raw)}`)
  if (raw.id !== undefined) {
    const id = String(raw.id)
    if (!ID.test(id)) throw new Error(`${where} id: ${idRule(id)}`)
    if (seen.has(id))
      throw new Error(`${where} id: The identifier '${id}' may not be used more than once within the same scope.`)
    seen.add(id)
  }
  for (const key of ['name', 'if', 'run', 'with', 'env', 'working-directory', 'continue-on-error']) {
    checkExpressions(where, `jobs.<job_id>.steps.${key}`, raw[key])
  }
  for (const key of ['id', 'uses', 'shell']) checkExpressions(where, key, raw[key])
  const continueOnError = raw['continue-on-error']
  if (continueOnError !== undefined && typeof continueOnError !== 'boolean') {
    throw new Error(`${where} continue-on-error: the workflow engine takes true or false; got '${continueOnError}'`)
  }
  if (typeof raw.uses === 'string') checkActionVersion(where, raw.uses)
}

function checkJob(file: string, id: string, raw: unknown): void {
  const where = `sandbox: ${file}: job '${id}'`
  if (!ID.test(id)) throw new Error(`${where}: ${idRule(id)}`)
  if (!isRecord(raw)) throw new Error(`${where}: a job is a mapping`)
  if (raw.uses === undefined && raw['runs-on'] === undefined)
    throw new Error(`${where}: Required property is missing: runs-on`)
  for (const key of ['name', 'if', 'runs-on', 'timeout-minutes', 'concurrency', 'env', 'strategy']) {
    checkExpressions(where, `jobs.<job_id>.${key}`, raw[key])
  }
  checkExpressions(where, 'jobs.<job_id>.outputs.<output_id>', raw.outputs)
  checkExpressions(where, 'jobs.<job_id>.with.<with_id>', raw.with)
  checkExpressions(where, 'jobs.<job_id>.secrets.<secrets_id>', raw.secrets)
  for (const key of ['needs', 'uses', 'permissions']) checkExpressions(where, key, raw[key])
  checkPermissions(where, raw.permissions)
  checkConcurrency(where, raw.concurrency)
  checkNumber(where, 'timeout-minutes', raw['timeout-minutes'])
  const strategy = isRecord(raw.strategy) ? raw.strategy : {}
  checkNumber(where, 'strategy.max-parallel', strategy['max-parallel'])
  checkBooleanOrExpression(where, 'strategy.fail-fast', strategy['fail-fast'])
  const seen = new Set<string>()
  const steps = Array.isArray(raw.steps) ? raw.steps : []
  steps.forEach((step, index) => {
    checkStep(`${where} step ${index + 1}`, step, seen)
  })
}

/** Refuses what GitHub refuses in a workflow file (`doc` is the parsed YAML). */
export function checkWorkflowDocument(file: string, doc: Record<string, unknown>): void {
  const where = `sandbox: ${file}:`
  checkExpressions(where, 'run-name', doc['run-name'])
  checkExpressions(where, 'name', doc.name)
  checkExpressions(where, 'concurrency', doc.concurrency)
  checkExpressions(where, 'env', doc.env)
  checkExpressions(where, 'permissions', doc.permissions)
  checkPermissions(where, doc.permissions)
  checkConcurrency(where, doc.concurrency)
  const on = doc.on ?? doc.true // YAML 1.1 parsers read a bare `on` key as `true`.
  checkTriggers(where, on)
  for (const [event, config] of Object.entries(isRecord(on) ? on : {})) {
    if (event !== 'workflow_call' || !isRecord(config)) {
      checkExpressions(where, 'on', config)
      continue
    }
    for (const [part, value] of Object.entries(config)) {
      for (const [name, declared] of Object.entries(isRecord(value) ? value : {})) {
        const fields = isRecord(declared) ? declared : {}
        for (const [field, text] of Object.entries(fields)) {
          const key =
            part === 'inputs' && field === 'default'
              ? 'on.workflow_call.inputs.<inputs_id>.default'
              : part === 'outputs' && field === 'value'
                ? 'on.workflow_call.outputs.<output_id>.value'
                : 'on'
          checkExpressions(`${where} workflow_call ${part} '${name}'`, key, text)
        }
      }
    }
  }
  for (const [id, job] of Object.entries(isRecord(doc.jobs) ? doc.jobs : {})) checkJob(file, id, job)
}
