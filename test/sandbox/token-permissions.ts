// The GITHUB_TOKEN's permissions as GitHub gives them: the scopes and levels a workflow may ask for,
// the repository's default when it asks for none ("Permissions for the GITHUB_TOKEN"), and the rule
// for reusable workflows: a called workflow's job may keep or lower its caller's permissions, and a
// file that asks for more is not valid, so GitHub starts none of the run's jobs (startup_failure).
import type { Permissions, WorkflowSpec } from './workflow-file.js'

/** GitHub's GITHUB_TOKEN scopes and the levels each takes (`write` includes `read`). */
const PERMISSION_LEVELS: Readonly<Record<string, readonly string[]>> = Object.fromEntries([
  ...[
    'actions',
    'attestations',
    'checks',
    'contents',
    'deployments',
    'discussions',
    'issues',
    'packages',
    'pages',
    'pull-requests',
    'repository-projects',
    'security-events',
    'statuses',
  ].map((scope) => [scope, ['read', 'write', 'none']]),
  ['id-token', ['write', 'none']],
  ['models', ['read', 'none']],
])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * `permissions: read-all` or `write-all`: every scope GitHub lists at that level, or at the highest
 * level below it the scope takes (`models: read` in write-all; read-all has no `id-token`).
 */
export function allPermissions(level: 'read' | 'write'): Record<string, 'read' | 'write'> {
  const granted: Record<string, 'read' | 'write'> = {}
  for (const [scope, levels] of Object.entries(PERMISSION_LEVELS)) {
    if (levels.includes(level)) granted[scope] = level
    else if (level === 'write' && levels.includes('read')) granted[scope] = 'read'
  }
  return granted
}

/**
 * The repository's "Workflow permissions" setting (the REST API's `default_workflow_permissions`):
 * what a job's token gets when neither its workflow nor its job says `permissions:`. `write` is the
 * permissive default (read and write for every scope but `id-token`, which it lacks, and `models`, read
 * only); `read` the restricted one (`contents: read`, `packages: read`; `metadata: read` always).
 */
export function defaultPermissions(setting: 'write' | 'read'): Permissions {
  if (setting === 'read') return { contents: 'read', packages: 'read' } as Permissions
  const permissive = Object.entries(allPermissions('write')).filter(([scope]) => scope !== 'id-token')
  return Object.fromEntries(permissive) as Permissions
}

/** Refuses a `permissions:` value GitHub refuses: an unknown scope, or a level the scope does not take. */
export function checkPermissions(where: string, value: unknown): void {
  if (value === undefined || value === 'read-all' || value === 'write-all') return
  if (!isRecord(value)) {
    throw new Error(
      `${where} permissions: takes read-all, write-all or a mapping of scopes; got ${JSON.stringify(value)}`,
    )
  }
  for (const [scope, level] of Object.entries(value)) {
    const levels = PERMISSION_LEVELS[scope]
    if (!levels) {
      throw new Error(
        `${where} permissions: unknown scope '${scope}' (GitHub's scopes: ${Object.keys(PERMISSION_LEVELS).join(', ')})`,
      )
    }
    if (typeof level !== 'string' || !levels.includes(level)) {
      throw new Error(`${where} permissions.${scope}: ${JSON.stringify(level)} is not one of ${levels.join(', ')}`)
    }
  }
}

const RANK: Readonly<Record<string, number>> = { none: 0, read: 1, write: 2 }
const rankOf = (level: string): number => RANK[level] ?? 0
const levelOf = (permissions: Permissions, scope: string): string =>
  (permissions as Record<string, string | undefined>)[scope] ?? 'none'

/**
 * GitHub's refusal of a run whose called workflow asks for more than its caller grants: a job (or the
 * called file's top-level `permissions`, which its jobs take) with a scope above the calling job's
 * permissions. The caller's own jobs may ask for anything; a job without `permissions` gets its
 * workflow's, else the calling job's, else the repository's default. Undefined when the run is valid.
 * A called file the engine cannot read, or one deeper than `maxLevels`, is left to the calling job to
 * fail (run-graph.ts).
 */
export function excessCalledPermissions(
  spec: WorkflowSpec,
  granted: Permissions,
  read: (uses: string) => WorkflowSpec,
  maxLevels: number,
  called?: { uses: string; depth: number },
): string | undefined {
  for (const job of spec.jobs ?? []) {
    const own = job.permissions ?? spec.workflowPermissions
    if (called && own) {
      const over = Object.keys(own).filter((scope) => rankOf(levelOf(own, scope)) > rankOf(levelOf(granted, scope)))
      if (over.length > 0) {
        const requesting = over.map((scope) => `${scope}: ${levelOf(own, scope)}`).join(', ')
        const allowed = over.map((scope) => `${scope}: ${levelOf(granted, scope)}`).join(', ')
        return `Error calling workflow '${called.uses}'. The nested job '${job.id}' is requesting '${requesting}', but is only allowed '${allowed}'.`
      }
    }
    const depth = called?.depth ?? 0
    if (!job.call || depth >= maxLevels) continue
    let nested: WorkflowSpec
    try {
      nested = read(job.call.uses)
    } catch {
      continue
    }
    const found = excessCalledPermissions(nested, own ?? granted, read, maxLevels, {
      uses: job.call.uses,
      depth: depth + 1,
    })
    if (found) return found
  }
  return undefined
}
