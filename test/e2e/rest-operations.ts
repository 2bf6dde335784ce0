// Which REST operations the action calls, read from its source, and which e2e files exercise each: every
// operation the action calls must be served to a job in at least one end-to-end scenario, where the
// stand-in validates its request and response against GitHub's description.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { githubDescription } from '../sandbox/openapi.js'

const ACTION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * The operations each e2e file's jobs call with their GITHUB_TOKEN, checked after the file's tests all
 * pass (a file that claims one its jobs never called fails).
 */
export const OPERATIONS_EXERCISED: Readonly<Record<string, readonly string[]>> = {
  'chain.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/get',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'concurrency.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'pulls/get',
    'repos/get-collaborator-permission-level',
  ],
  'crash-before-push.test.ts': ['actions/create-workflow-dispatch', 'pulls/create', 'pulls/list'],
  'dashboard.test.ts': ['actions/create-workflow-dispatch', 'issues/create', 'issues/list-for-repo', 'issues/update'],
  'enterprise-server.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-workflow-runs',
    'issues/list-labels-on-issue',
    'pulls/create',
    'pulls/list',
  ],
  'issue-task.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'kill-switch.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/get',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'pagination.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/delete-artifact',
    'actions/download-artifact',
    'actions/list-artifacts-for-repo',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'people-and-faults.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/delete-artifact',
    'actions/download-artifact',
    'actions/list-artifacts-for-repo',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/get',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'permissions.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'pulls/create',
    'pulls/list',
  ],
  'pull-request-events.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/get',
    'pulls/list',
    'repos/get-collaborator-permission-level',
  ],
  'pull-request-setting.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'reusable-workflow.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-for-repo',
    'issues/list-labels-on-issue',
    'issues/update',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'sharded-check.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'many-loops.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-for-repo',
    'issues/list-labels-on-issue',
    'issues/update',
    'issues/update-comment',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'sweeper.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'lost-state.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-artifacts-for-repo',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/get',
    'pulls/list',
    'repos/get-collaborator-permission-level',
  ],
  'rate-limit.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
  ],
  'fan-out-loops.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-for-repo',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'fan-out-budget.test.ts': [
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'fan-out.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'fan-out-legs.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'fan-out-caller-group.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'fan-out-rerun.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
    'pulls/create',
    'pulls/list',
  ],
  'fan-out-leg-jobs.test.ts': [
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
  ],
  'fan-out-flake.test.ts': [
    'actions/list-jobs-for-workflow-run-attempt',
    'issues/create-comment',
    'issues/list-comments',
    'pulls/create',
    'pulls/list',
    'users/get-authenticated',
  ],
  'stranded-slots.test.ts': [
    'actions/create-workflow-dispatch',
    'actions/get-workflow-run',
    'issues/create-comment',
    'issues/get',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'queued-abort.test.ts': [
    'actions/create-workflow-dispatch',
    'issues/create-comment',
    'issues/list-comments',
    'issues/list-labels-on-issue',
    'issues/update-comment',
    'pulls/create',
    'pulls/list',
    'repos/get-collaborator-permission-level',
    'users/get-authenticated',
  ],
  'depends-on.test.ts': ['issues/create-comment', 'issues/list-comments'],
}

/** Calls that libraries bundled into the action make on its behalf, and what in the source makes them. */
const LIBRARY_CALLS: readonly { operationId: string; caller: RegExp; why: string }[] = [
  {
    operationId: 'actions/download-artifact',
    caller: /\.downloadArtifact\([\s\S]{0,400}?\bfindBy\b/,
    why: "@actions/artifact's downloadArtifact with findBy fetches the zip through REST",
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
