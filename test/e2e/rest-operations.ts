// Which REST operations the action calls, read from its source, and which e2e files exercise each: every
// operation the action calls must be served to a job in at least one end-to-end scenario, where the
// stand-in validates its request and response against GitHub's description.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { githubDescription } from '../sandbox/openapi.js'

const ACTION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

const DISPATCH = 'actions/create-workflow-dispatch'
/** Fan-out's decide judges each leg's verdict by the leg's own job and that job's log. */
const LEG_JOBS = ['actions/list-jobs-for-workflow-run-attempt', 'actions/download-job-logs-for-workflow-run'] as const
const STOP_LABELS = 'issues/list-labels-on-issue'
const PERMISSION = 'repos/get-collaborator-permission-level'
const OWN_LOGIN = 'users/get-authenticated'
/** The loop's status comment: looked for among the comments, posted once, then edited. */
const STATUS_COMMENT = ['issues/create-comment', 'issues/list-comments', 'issues/update-comment'] as const
/** The loop's pull request: looked for, then opened. */
const PULL_REQUEST = ['pulls/create', 'pulls/list'] as const
/** The pinned dashboard issue: looked for, opened, read again before and after each rewrite, rewritten. */
const DASHBOARD = ['issues/create', 'issues/list-for-repo', 'issues/update', 'issues/get'] as const
/** The `artifact` state store: its snapshots listed, downloaded and pruned. */
const ARTIFACT_STORE = [
  'actions/delete-artifact',
  'actions/download-artifact',
  'actions/list-artifacts-for-repo',
] as const
/** Fan-out's hand-off: verify and decide take the plan and the verdicts through the REST API. */
const FAN_OUT_HAND_OFF = ['actions/list-workflow-run-artifacts', 'actions/download-artifact'] as const
/**
 * A loop that iterates to its pull request: it dispatches each next iteration, reads the stop labels,
 * tells its own login from people's, and keeps its status comment.
 */
const ITERATING = [DISPATCH, STOP_LABELS, OWN_LOGIN, ...STATUS_COMMENT, ...PULL_REQUEST] as const

/**
 * The operations each e2e file's jobs call with their GITHUB_TOKEN, checked after the file's tests all
 * pass (a file that claims one its jobs never called fails).
 */
export const OPERATIONS_EXERCISED: Readonly<Record<string, readonly string[]>> = {
  'chain.test.ts': [...ITERATING, 'pulls/get', PERMISSION],
  'concurrency.test.ts': [DISPATCH, 'issues/list-comments', STOP_LABELS, 'pulls/get', PERMISSION],
  'crash-before-push.test.ts': [DISPATCH, ...PULL_REQUEST],
  'dashboard.test.ts': [DISPATCH, ...DASHBOARD],
  'enterprise-server.test.ts': [DISPATCH, 'actions/list-workflow-runs', STOP_LABELS, ...PULL_REQUEST],
  'issue-task.test.ts': [...ITERATING, PERMISSION],
  'kill-switch.test.ts': [...ITERATING, 'pulls/get', PERMISSION],
  'pagination.test.ts': [...ITERATING, ...ARTIFACT_STORE, PERMISSION],
  'people-and-faults.test.ts': [...ITERATING, ...ARTIFACT_STORE, 'pulls/get', PERMISSION],
  'permissions.test.ts': [DISPATCH, 'issues/create-comment', 'issues/list-comments', ...PULL_REQUEST],
  'pull-request-events.test.ts': [DISPATCH, STOP_LABELS, ...STATUS_COMMENT, ...PULL_REQUEST, 'pulls/get', PERMISSION],
  'pull-request-setting.test.ts': [...ITERATING, PERMISSION],
  'reusable-workflow.test.ts': [...ITERATING, ...DASHBOARD],
  // A bad input fails the job before it calls GitHub.
  'reusable-bad-inputs.test.ts': [],
  'sharded-check.test.ts': ITERATING,
  'many-loops.test.ts': [DISPATCH, STOP_LABELS, OWN_LOGIN, ...STATUS_COMMENT, ...DASHBOARD, PERMISSION],
  'sweeper.test.ts': [...ITERATING, 'actions/get-workflow-run'],
  'example-workflows.test.ts': ITERATING,
  'capped-raise.test.ts': ITERATING,
  'quick-start.test.ts': [...ITERATING, 'pulls/get', PERMISSION],
  'workflow-push.test.ts': ITERATING,
  'lost-state.test.ts': [
    DISPATCH,
    'actions/list-artifacts-for-repo',
    STOP_LABELS,
    ...STATUS_COMMENT,
    ...PULL_REQUEST,
    'pulls/get',
    PERMISSION,
  ],
  'rate-limit.test.ts': [DISPATCH, STOP_LABELS, ...STATUS_COMMENT, ...PULL_REQUEST],
  'fan-out-loops.test.ts': [...ITERATING, ...LEG_JOBS, 'issues/create', 'issues/list-for-repo', PERMISSION],
  'fan-out-budget.test.ts': [...LEG_JOBS, 'issues/create-comment', 'issues/list-comments', ...PULL_REQUEST, OWN_LOGIN],
  'fan-out.test.ts': [...ITERATING, ...LEG_JOBS, ...FAN_OUT_HAND_OFF],
  'fan-out-capped-raise.test.ts': [...ITERATING, ...LEG_JOBS],
  'fan-out-legs.test.ts': [...ITERATING, ...LEG_JOBS],
  'fan-out-trusted-ref.test.ts': [...ITERATING, ...LEG_JOBS],
  'fan-out-no-legs.test.ts': [...ITERATING, ...LEG_JOBS],
  'fan-out-caller-group.test.ts': ITERATING,
  'fan-out-example-dashboard.test.ts': [
    ...LEG_JOBS,
    'issues/create',
    'issues/list-for-repo',
    ...PULL_REQUEST,
    ...FAN_OUT_HAND_OFF,
  ],
  'fan-out-rerun.test.ts': [DISPATCH, ...LEG_JOBS, 'issues/create-comment', 'issues/list-comments', ...PULL_REQUEST],
  'fan-out-leg-jobs.test.ts': [...LEG_JOBS, 'issues/create-comment', 'issues/list-comments'],
  'fan-out-rerun-failed.test.ts': [
    DISPATCH,
    ...LEG_JOBS,
    ...FAN_OUT_HAND_OFF,
    'issues/create-comment',
    'issues/list-comments',
    ...PULL_REQUEST,
  ],
  'fan-out-flake.test.ts': [...LEG_JOBS, 'issues/create-comment', 'issues/list-comments', ...PULL_REQUEST, OWN_LOGIN],
  'resume-not-in-line.test.ts': [
    'actions/get-workflow-run',
    ...STATUS_COMMENT,
    ...PULL_REQUEST,
    STOP_LABELS,
    PERMISSION,
    OWN_LOGIN,
  ],
  'stranded-slots.test.ts': [
    DISPATCH,
    'actions/get-workflow-run',
    ...STATUS_COMMENT,
    'issues/get',
    STOP_LABELS,
    PERMISSION,
    OWN_LOGIN,
  ],
  'queued-abort.test.ts': [...ITERATING, PERMISSION],
  'depends-on.test.ts': ['issues/create-comment', 'issues/list-comments', 'issues/get'],
  'runner-file-commands.test.ts': [...ITERATING, ...LEG_JOBS],
  'max-loops-workflows.test.ts': [DISPATCH, STOP_LABELS, OWN_LOGIN, ...STATUS_COMMENT, PERMISSION],
  'store-chunks.test.ts': [DISPATCH, ...DASHBOARD],
}

/** Calls that libraries bundled into the action make on its behalf, and what in the source makes them. */
const LIBRARY_CALLS: readonly { operationId: string; caller: RegExp; why: string }[] = [
  {
    operationId: 'actions/download-artifact',
    caller: /\.downloadArtifact\([\s\S]{0,400}?\bfindBy\b/,
    why: "@actions/artifact's downloadArtifact with findBy fetches the zip through REST",
  },
]

/** Calls the reusable workflow's steps make with the job's token, and what in the workflow makes them. */
const WORKFLOW_CALLS: readonly { operationIds: readonly string[]; caller: RegExp; why: string }[] = [
  {
    operationIds: ['actions/list-workflow-run-artifacts', 'actions/download-artifact'],
    caller: /uses: actions\/download-artifact@[^\n]*\n(?:\s+[^\n]*\n){0,6}?\s+github-token:/,
    why: 'download-artifact with github-token lists the run`s artifacts and fetches each zip through REST',
  },
]

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * Every REST operation the action's source calls (`octokit.rest.NS.METHOD`, `octokit.request('METHOD
 * /path')`, and the bundled libraries' calls above), by GitHub operationId, with where it is called.
 * Throws naming the call when it is no operation of GitHub's description.
 */
export function operationsTheActionCalls(root = ACTION_DIR): Map<string, string[]> {
  const description = githubDescription()
  const found = new Map<string, string[]>()
  const add = (operationId: string, where: string) =>
    found.set(operationId, [...new Set([...(found.get(operationId) ?? []), where])])
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8')
    const where = relative(root, file)
    for (const [, namespace = '', method = ''] of text.matchAll(/\.rest\.(\w+)\.(\w+)/g)) {
      const operationId = `${kebab(namespace)}/${kebab(method)}`
      if (!description.operationById(operationId)) {
        throw new Error(`${where}: octokit.rest.${namespace}.${method} is no operation of ${description.source}`)
      }
      add(operationId, where)
    }
    for (const [, method = '', path = ''] of text.matchAll(/\.request\(\s*'([A-Z]+) (\/[^']*)'/g)) {
      const matched = description.match(method, path)
      if (!matched) throw new Error(`${where}: request('${method} ${path}') is no operation of ${description.source}`)
      add(matched.operation.operationId, where)
    }
    for (const call of LIBRARY_CALLS) if (call.caller.test(text)) add(call.operationId, `${where} (${call.why})`)
  }
  // The reusable workflow ships with the action: its steps' calls are the action's too.
  const workflow = join(root, '.github', 'workflows', 'loop.yml')
  const text = existsSync(workflow) ? readFileSync(workflow, 'utf8') : ''
  for (const call of WORKFLOW_CALLS) {
    if (!call.caller.test(text)) continue
    for (const operationId of call.operationIds) add(operationId, `.github/workflows/loop.yml (${call.why})`)
  }
  return found
}

/** The operations the action calls that no e2e file exercises, each with where the source calls it. */
export function unexercisedOperations(
  calls: ReadonlyMap<string, readonly string[]>,
  exercised: Readonly<Record<string, readonly string[]>> = OPERATIONS_EXERCISED,
): string[] {
  const covered = new Set(Object.values(exercised).flat())
  return [...calls]
    .filter(([operationId]) => !covered.has(operationId))
    .map(([operationId, where]) => `${operationId} (called in ${where.join(', ')})`)
}
