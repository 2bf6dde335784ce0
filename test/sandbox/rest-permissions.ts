// Which GITHUB_TOKEN permission each operation the stand-in serves needs, as GitHub documents per
// endpoint, and GitHub's refusal when a token lacks it.
import type { MatchedOperation } from './openapi.js'
import { DOCS, type Reply } from './rest-handlers.js'

/** A GITHUB_TOKEN permission scope (the `permissions:` keys of a workflow). */
export type Scope = 'actions' | 'contents' | 'issues' | 'pull-requests' | 'checks' | 'metadata'

/** What a token may do, and on whose behalf. */
export interface TokenGrant {
  /** The login the token acts as (`github-actions[bot]` for GITHUB_TOKEN). */
  actor: string
  /** `installation` is a GITHUB_TOKEN or app installation token, `user` a personal token. */
  kind: 'installation' | 'user'
  /** Granted scopes; `metadata: read` is implied. */
  permissions: Partial<Record<Scope, 'read' | 'write'>>
}

/** Which scope an operation needs (GitHub's documented fine-grained permission per endpoint). */
const REQUIRED_SCOPE: Record<string, [Scope, 'read' | 'write']> = {
  'actions/create-workflow-dispatch': ['actions', 'write'],
  'actions/get-workflow-run': ['actions', 'read'],
  'actions/list-workflow-runs': ['actions', 'read'],
  'actions/list-jobs-for-workflow-run-attempt': ['actions', 'read'],
  'actions/download-job-logs-for-workflow-run': ['actions', 'read'],
  'actions/get-actions-cache-list': ['actions', 'read'],
  'actions/delete-actions-cache-by-key': ['actions', 'write'],
  'actions/delete-actions-cache-by-id': ['actions', 'write'],
  'actions/list-artifacts-for-repo': ['actions', 'read'],
  'actions/list-workflow-run-artifacts': ['actions', 'read'],
  'actions/get-artifact': ['actions', 'read'],
  'actions/delete-artifact': ['actions', 'write'],
  'actions/download-artifact': ['actions', 'read'],
  'issues/add-labels': ['issues', 'write'],
  'issues/create': ['issues', 'write'],
  'issues/create-comment': ['issues', 'write'],
  'issues/get': ['issues', 'read'],
  'issues/list-for-repo': ['issues', 'read'],
  'issues/list-comments': ['issues', 'read'],
  'issues/list-labels-on-issue': ['issues', 'read'],
  'issues/remove-label': ['issues', 'write'],
  'issues/update': ['issues', 'write'],
  'issues/update-comment': ['issues', 'write'],
  'pulls/check-if-merged': ['pull-requests', 'read'],
  'pulls/create': ['pull-requests', 'write'],
  'pulls/get': ['pull-requests', 'read'],
  'pulls/list': ['pull-requests', 'read'],
  'pulls/list-reviews': ['pull-requests', 'read'],
  'pulls/merge': ['contents', 'write'],
  'pulls/update': ['pull-requests', 'write'],
  'repos/get': ['metadata', 'read'],
  'repos/get-collaborator-permission-level': ['metadata', 'read'],
}

export const grants = (grant: TokenGrant, scope: Scope, level: 'read' | 'write'): boolean => {
  if (scope === 'metadata') return true
  const held = grant.permissions[scope]
  return held === 'write' || (held === 'read' && level === 'read')
}

/**
 * GitHub's 403 (or 401) when `grant` may not call the matched operation, naming the permission it
 * lacks in `x-accepted-github-permissions`; undefined when it may.
 */
export function permissionProblem(
  match: MatchedOperation,
  grant: TokenGrant,
  isPullRequest: (issueNumber: number) => boolean,
): Reply | undefined {
  const id = match.operation.operationId
  if (id === 'users/get-authenticated' && grant.kind === 'installation') {
    return forbiddenReply([])
  }
  if (id === 'apps/get-authenticated') {
    return {
      status: 401,
      body: { message: 'A JSON web token could not be decoded', documentation_url: DOCS, status: '401' },
    }
  }
  const required = REQUIRED_SCOPE[id]
  if (!required) return undefined
  const [scope, level] = required
  if (grants(grant, scope, level)) return undefined
  // Comments and labels on a pull request are also allowed by `pull-requests` (GitHub accepts either).
  const number = Number(match.pathParams.issue_number)
  if (scope === 'issues' && isPullRequest(number) && grants(grant, 'pull-requests', level)) return undefined
  return forbiddenReply([`${scope.replace('-', '_')}=${level}`])
}

const forbiddenReply = (accepted: string[]): Reply => ({
  status: 403,
  headers: accepted.length > 0 ? { 'x-accepted-github-permissions': accepted.join('; ') } : {},
  body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' },
})
