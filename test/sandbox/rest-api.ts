// A stand-in for GitHub's REST API on 127.0.0.1: an in-memory model of one repository (users, issues,
// pull requests, comments, labels, reviews, workflow runs, caches), with every request and response
// checked against GitHub's official OpenAPI description, token permissions enforced as GitHub does for
// GITHUB_TOKEN, rate-limit headers, and injectable faults (5xx, secondary rate limits, latency).
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as gh from './github-objects.js'
import { githubDescription, type MatchedOperation } from './openapi.js'
import { paginate } from './pagination.js'

export type {
  CommentModel,
  IssueModel,
  LabelModel,
  RepoModel,
  RepoPermission,
  ReviewModel,
  RunModel,
  UserModel,
} from './github-objects.js'

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

/**
 * A fault to inject. `match` is `METHOD /path` where `*` matches any characters (so
 * `POST /repos/*\/dispatches` matches every dispatch). The first matching rule with `times` left applies.
 */
export interface FaultRule {
  match: string
  /** Answer with this status (e.g. 502) instead of serving the request. */
  status?: number
  /** Answer as GitHub's secondary rate limit: this status (403 or 429) with `retry-after`. */
  secondaryRateLimit?: { status?: 403 | 429; retryAfterSeconds: number }
  /** Delay before answering (or before serving, when no status is set). */
  latencyMs?: number
  /** How many requests the rule applies to; unlimited when omitted. */
  times?: number
  headers?: Record<string, string>
  body?: unknown
}

/** A `workflow_dispatch` as the API received it. */
export interface DispatchRequest {
  workflowId: string
  ref: string
  inputs: Record<string, string>
  actor: gh.UserModel
}

/** Starts a run for a dispatch; throws an {@link ApiError} to refuse it (GitHub's 404/422). */
export type DispatchHandler = (request: DispatchRequest) => { runId: number }

/** One cache entry as `GET /repos/{o}/{r}/actions/caches` lists it. */
export interface CacheEntry {
  id: number
  key: string
  ref: string
  version: string
  sizeInBytes: number
  createdAt: string
  lastAccessedAt: string
}

/** The cache store the caches endpoints read and delete from (the results server's, when mounted). */
export interface CacheIndex {
  list(): CacheEntry[]
  delete(id: number): boolean
}

/** An extra handler mounted in front of the model (e.g. the artifact endpoints). True when it answered. */
export type MountedHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>

/** One request and its answer, as the stand-in saw them. */
export interface Exchange {
  method: string
  path: string
  operationId: string | undefined
  actor: string | undefined
  /** `installation` for a job's GITHUB_TOKEN (the action's own calls), `user` for a person's token. */
  tokenKind: TokenGrant['kind'] | undefined
  status: number
  requestBody: unknown
  responseBody: unknown
  fault: boolean
}

/** An error the API answers with, in GitHub's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

/** Options of {@link startRestApi}. */
export interface RestApiOptions {
  owner: string
  repo: string
  defaultBranch?: string
  /** People with their permission on the repository. */
  users?: Record<string, gh.RepoPermission>
  /** Tokens the API accepts. */
  tokens?: Record<string, TokenGrant>
  /** Calls per hour per token before the primary rate limit answers 403 (default 5000). */
  rateLimit?: number
  /** The web/git server root for links (defaults to the API's own URL). */
  serverUrl?: string
  /** Resolves a branch or sha to a commit sha (the git remote); unknown refs give undefined. */
  resolveRef?: (ref: string) => string | undefined
  caches?: CacheIndex
  artifacts?: MountedHandler
  /**
   * The repository setting "Allow GitHub Actions to create and approve pull requests" (Settings →
   * Actions → General → Workflow permissions; `can_approve_pull_request_reviews` in the REST API). Off
   * by default, as on GitHub for new repositories and organizations: the job's GITHUB_TOKEN then gets 403
   * on `POST /pulls`, while a person's token or another app's is unaffected.
   */
  actionsCanCreatePullRequests?: boolean
}

const DOCS = 'https://docs.github.com/rest'
/** The GitHub Actions app's bot: the actor of every job's GITHUB_TOKEN. */
const ACTIONS_BOT = 'github-actions[bot]'
const API_VERSION = '2022-11-28'

/** The in-memory state of the repository the API serves. */
export class GitHubModel {
  readonly repo: gh.RepoModel
  readonly users = new Map<string, gh.UserModel>()
  readonly issues = new Map<number, gh.IssueModel>()
  readonly comments: gh.CommentModel[] = []
  readonly reviews: gh.ReviewModel[] = []
  readonly runs = new Map<number, gh.RunModel>()
  readonly labels = new Map<string, gh.LabelModel>()
  readonly caches: CacheEntry[] = []
  private nextId = 1000
  private nextNumber = 1

  constructor(
    owner: string,
    name: string,
    defaultBranch: string,
    private readonly clock: () => Date,
  ) {
    const ownerUser = this.addUser(owner, 'admin')
    this.repo = {
      id: this.id(),
      owner: ownerUser,
      name,
      defaultBranch,
      private: false,
      fork: false,
      createdAt: this.now(),
    }
  }

  /** A new unique id (GitHub ids are global across kinds). */
  id(): number {
    this.nextId += 1
    return this.nextId
  }

  now(): string {
    return this.clock()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z')
  }

  /** Adds (or updates the permission of) a person; `[bot]` logins are bots. */
  addUser(login: string, permission: gh.RepoPermission): gh.UserModel {
    const existing = this.users.get(login.toLowerCase())
    if (existing) {
      existing.permission = permission
      return existing
    }
    const user: gh.UserModel = { login, id: this.id(), type: login.endsWith('[bot]') ? 'Bot' : 'User', permission }
    this.users.set(login.toLowerCase(), user)
    return user
  }

  /** The person with this login; throws naming the known logins when absent. */
  user(login: string): gh.UserModel {
    const user = this.users.get(login.toLowerCase())
    if (!user) throw new Error(`sandbox: unknown user '${login}'; known: ${[...this.users.keys()].join(', ')}`)
    return user
  }

  /** The issue or pull request with this number, or GitHub's 404. */
  issue(number: number): gh.IssueModel {
    const found = this.issues.get(number)
    if (!found) throw new ApiError(404, 'Not Found')
    return found
  }

  /** The pull request with this number, or GitHub's 404. */
  pull(number: number): gh.IssueModel & { pull: gh.PullModel } {
    const found = this.issue(number)
    if (!found.pull) throw new ApiError(404, 'Not Found')
    return found as gh.IssueModel & { pull: gh.PullModel }
  }

  createIssue(user: gh.UserModel, title: string, body: string | null): gh.IssueModel {
    const created: gh.IssueModel = {
      number: this.nextNumber++,
      id: this.id(),
      title,
      body,
      user,
      state: 'open',
      labels: [],
      createdAt: this.now(),
      updatedAt: this.now(),
      closedAt: null,
    }
    this.issues.set(created.number, created)
    return created
  }

  createPull(
    user: gh.UserModel,
    fields: { title: string; body: string | null; head: string; headSha: string; base: string; baseSha: string },
    options: { draft?: boolean; headRepo?: gh.RepoModel } = {},
  ): gh.IssueModel & { pull: gh.PullModel } {
    const created = this.createIssue(user, fields.title, fields.body)
    created.pull = {
      id: this.id(),
      head: {
        ref: fields.head,
        sha: fields.headSha,
        repo: options.headRepo ?? this.repo,
        user: options.headRepo?.owner ?? this.repo.owner,
      },
      base: { ref: fields.base, sha: fields.baseSha },
      draft: options.draft ?? false,
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      maintainerCanModify: true,
    }
    return created as gh.IssueModel & { pull: gh.PullModel }
  }

  addComment(user: gh.UserModel, issueNumber: number, body: string): gh.CommentModel {
    const target = this.issue(issueNumber)
    const created: gh.CommentModel = {
      id: this.id(),
      issueNumber,
      user,
      body,
      createdAt: this.now(),
      updatedAt: this.now(),
    }
    this.comments.push(created)
    target.updatedAt = created.createdAt
    return created
  }

  /** Attaches labels (creating repository labels on first use, as GitHub does). */
  addLabels(issueNumber: number, names: string[]): gh.LabelModel[] {
    const target = this.issue(issueNumber)
    for (const name of names) {
      let known = this.labels.get(name.toLowerCase())
      if (!known) {
        known = { id: this.id(), name, color: 'ededed', description: null }
        this.labels.set(name.toLowerCase(), known)
      }
      if (!target.labels.some((l) => l.id === known?.id)) target.labels.push(known)
    }
    target.updatedAt = this.now()
    return target.labels
  }

  addReview(user: gh.UserModel, pullNumber: number, state: gh.ReviewModel['state'], body: string): gh.ReviewModel {
    const target = this.pull(pullNumber)
    const created: gh.ReviewModel = {
      id: this.id(),
      pullNumber,
      user,
      state,
      body,
      commitId: target.pull.head.sha,
      submittedAt: this.now(),
    }
    this.reviews.push(created)
    return created
  }

  commentCount(issueNumber: number): number {
    return this.comments.filter((c) => c.issueNumber === issueNumber).length
  }
}

/** Which scope an operation needs (GitHub's documented fine-grained permission per endpoint). */
const REQUIRED_SCOPE: Record<string, [Scope, 'read' | 'write']> = {
  'actions/create-workflow-dispatch': ['actions', 'write'],
  'actions/get-workflow-run': ['actions', 'read'],
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

const grants = (grant: TokenGrant, scope: Scope, level: 'read' | 'write'): boolean => {
  if (scope === 'metadata') return true
  const held = grant.permissions[scope]
  return held === 'write' || (held === 'read' && level === 'read')
}

const globToRegex = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )

interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

interface HandlerContext {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
  actor: gh.UserModel
  url: URL
}

/** The running REST API stand-in. */
export interface RestApi {
  /** The API root, `http://127.0.0.1:PORT`. */
  readonly url: string
  readonly model: GitHubModel
  /** Problems found by validation (requests GitHub would reject, responses off-schema, unimplemented operations, unknown endpoints). */
  readonly violations: string[]
  /** Every request and its answer, in order. */
  readonly exchanges: Exchange[]
  /** Adds a fault rule; returns a function that removes it. */
  inject(rule: FaultRule): () => void
  /** Registers a token. */
  addToken(token: string, grant: TokenGrant): void
  /** Revokes a token (GitHub revokes a job's GITHUB_TOKEN when the job ends). */
  removeToken(token: string): void
  /** What a token may do, or undefined for an unknown or revoked token (the git remote asks this too). */
  grantOf(token: string): TokenGrant | undefined
  /** Sets what a `workflow_dispatch` does (the workflow engine). */
  onDispatch(handler: DispatchHandler): void
  /** Sets the web/git server root used in links. */
  setServerUrl(url: string): void
  /** Sets the remaining primary rate limit of a token, and when it resets. */
  setRateLimit(token: string, remaining: number, resetInSeconds?: number): void
  /** A person with admin rights flips "Allow GitHub Actions to create and approve pull requests". */
  setActionsCanCreatePullRequests(allowed: boolean): void
  stop(): Promise<void>
}

/** Starts the REST API stand-in on 127.0.0.1 (a free port). */
export async function startRestApi(options: RestApiOptions): Promise<RestApi> {
  const openapi = githubDescription()
  const model = new GitHubModel(options.owner, options.repo, options.defaultBranch ?? 'main', () => new Date())
  for (const [login, permission] of Object.entries(options.users ?? {})) model.addUser(login, permission)
  const tokens = new Map(Object.entries(options.tokens ?? {}))
  for (const grant of tokens.values())
    if (!model.users.has(grant.actor.toLowerCase())) model.addUser(grant.actor, 'none')
  const faults: { rule: FaultRule; left: number; regex: RegExp }[] = []
  const violations: string[] = []
  const exchanges: Exchange[] = []
  const hourly = options.rateLimit ?? 5000
  let actionsCanCreatePullRequests = options.actionsCanCreatePullRequests ?? false
  const usage = new Map<string, { used: number; limit: number; reset: number }>()
  const caches: CacheIndex = options.caches ?? {
    list: () => model.caches,
    delete: (id) => {
      const index = model.caches.findIndex((c) => c.id === id)
      if (index >= 0) model.caches.splice(index, 1)
      return index >= 0
    },
  }
  let dispatchHandler: DispatchHandler | undefined
  let serverUrl = options.serverUrl
  let apiUrl = ''
  const ctx = (): gh.UrlContext => ({ apiUrl, serverUrl: serverUrl ?? apiUrl })

  const handlers: Record<string, (c: HandlerContext) => Reply> = {
    'actions/create-workflow-dispatch': (c) => {
      if (!dispatchHandler) throw new ApiError(404, 'Not Found')
      const inputs: Record<string, string> = {}
      for (const [name, value] of Object.entries((c.body.inputs as Record<string, unknown> | undefined) ?? {})) {
        if (value !== null && typeof value === 'object') {
          throw new ApiError(422, `Input '${name}' must be a string, number or boolean; got an object.`)
        }
        inputs[name] = String(value)
      }
      const { runId } = dispatchHandler({
        workflowId: c.params.workflow_id ?? '',
        ref: String(c.body.ref),
        inputs,
        actor: c.actor,
      })
      if (c.body.return_run_details !== true) return { status: 204 }
      const repoPath = `${model.repo.owner.login}/${model.repo.name}`
      return {
        status: 200,
        body: {
          workflow_run_id: runId,
          run_url: `${apiUrl}/repos/${repoPath}/actions/runs/${runId}`,
          html_url: `${ctx().serverUrl}/${repoPath}/actions/runs/${runId}`,
        },
      }
    },
    'actions/get-workflow-run': (c) => {
      const run = model.runs.get(Number(c.params.run_id))
      if (!run) throw new ApiError(404, 'Not Found')
      return { status: 200, body: gh.workflowRun(ctx(), model.repo, run, model.now()) }
    },
    'actions/get-actions-cache-list': (c) => {
      const key = c.query.get('key')
      const ref = c.query.get('ref')
      const sort = (c.query.get('sort') ?? 'last_accessed_at') as 'created_at' | 'last_accessed_at' | 'size_in_bytes'
      const direction = c.query.get('direction') === 'asc' ? 1 : -1
      const field = {
        created_at: 'createdAt',
        last_accessed_at: 'lastAccessedAt',
        size_in_bytes: 'sizeInBytes',
      } as const
      const matching = caches
        .list()
        .filter((e) => (key === null || e.key.startsWith(key)) && (ref === null || e.ref === ref))
        .sort((a, b) =>
          a[field[sort]] < b[field[sort]] ? -direction : a[field[sort]] > b[field[sort]] ? direction : 0,
        )
      const { page, headers } = paginate(matching, c.url)
      return { status: 200, headers, body: { total_count: matching.length, actions_caches: page.map(cacheJson) } }
    },
    'actions/delete-actions-cache-by-key': (c) => {
      const key = c.query.get('key') ?? ''
      const ref = c.query.get('ref')
      const doomed = caches.list().filter((e) => e.key === key && (ref === null || e.ref === ref))
      if (doomed.length === 0) throw new ApiError(404, 'Not Found')
      for (const entry of [...doomed]) caches.delete(entry.id)
      return { status: 200, body: { total_count: doomed.length, actions_caches: doomed.map(cacheJson) } }
    },
    'actions/delete-actions-cache-by-id': (c) => {
      if (!caches.delete(Number(c.params.cache_id))) throw new ApiError(404, 'Not Found')
      return { status: 204 }
    },
    'actions/list-artifacts-for-repo': () => ({ status: 200, body: { total_count: 0, artifacts: [] } }),
    'actions/list-workflow-run-artifacts': () => ({ status: 200, body: { total_count: 0, artifacts: [] } }),
    'rate-limit/get': () => {
      throw new ApiError(500, 'rate-limit/get is answered before routing')
    },
    'users/get-authenticated': (c) => ({ status: 200, body: gh.publicUser(ctx(), c.actor, model.now()) }),
    'repos/get': () => ({ status: 200, body: gh.repository(ctx(), model.repo, model.now()) }),
    'repos/get-collaborator-permission-level': (c) => {
      const user = model.users.get((c.params.username ?? '').toLowerCase())
      if (!user) throw new ApiError(404, 'Not Found')
      // The API folds maintain into write and triage into read; role_name keeps the exact role.
      const folded = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' }
      const permissions = {
        admin: user.permission === 'admin',
        maintain: ['admin', 'maintain'].includes(user.permission),
        push: ['admin', 'maintain', 'write'].includes(user.permission),
        triage: ['admin', 'maintain', 'write', 'triage'].includes(user.permission),
        pull: user.permission !== 'none',
      }
      return {
        status: 200,
        body: {
          permission: folded[user.permission],
          role_name: user.permission,
          user: { ...gh.simpleUser(ctx(), user), permissions, role_name: user.permission },
        },
      }
    },
    'issues/create': (c) => {
      const created = model.createIssue(c.actor, String(c.body.title), (c.body.body as string | undefined) ?? null)
      if (Array.isArray(c.body.labels)) model.addLabels(created.number, c.body.labels.map(labelName))
      return { status: 201, body: issueJson(created) }
    },
    'issues/get': (c) => ({ status: 200, body: issueJson(model.issue(Number(c.params.issue_number))) }),
    'issues/update': (c) => {
      const target = model.issue(Number(c.params.issue_number))
      applyIssueEdits(target, c.body)
      if (Array.isArray(c.body.labels)) {
        target.labels = []
        model.addLabels(target.number, c.body.labels.map(labelName))
      }
      return { status: 200, body: issueJson(target) }
    },
    'issues/list-comments': (c) => {
      const number = Number(c.params.issue_number)
      model.issue(number)
      const since = c.query.get('since')
      const all = model.comments.filter((m) => m.issueNumber === number && (since === null || m.updatedAt >= since))
      const { page, headers } = paginate(all, c.url)
      return { status: 200, headers, body: page.map((m) => commentJson(m)) }
    },
    'issues/create-comment': (c) => {
      const created = model.addComment(c.actor, Number(c.params.issue_number), String(c.body.body))
      return {
        status: 201,
        headers: {
          location: `${apiUrl}/repos/${model.repo.owner.login}/${model.repo.name}/issues/comments/${created.id}`,
        },
        body: commentJson(created),
      }
    },
    'issues/update-comment': (c) => {
      const target = model.comments.find((m) => m.id === Number(c.params.comment_id))
      if (!target) throw new ApiError(404, 'Not Found')
      target.body = String(c.body.body)
      target.updatedAt = model.now()
      return { status: 200, body: commentJson(target) }
    },
    'issues/list-labels-on-issue': (c) => {
      const { page, headers } = paginate(model.issue(Number(c.params.issue_number)).labels, c.url)
      return { status: 200, headers, body: page.map((l) => gh.label(ctx(), model.repo, l)) }
    },
    'issues/add-labels': (c) => {
      const names = Array.isArray(c.body.labels) ? c.body.labels.map(labelName) : []
      const labels = model.addLabels(Number(c.params.issue_number), names)
      return { status: 200, body: labels.map((l) => gh.label(ctx(), model.repo, l)) }
    },
    'issues/remove-label': (c) => {
      const target = model.issue(Number(c.params.issue_number))
      const name = (c.params.name ?? '').toLowerCase()
      const index = target.labels.findIndex((l) => l.name.toLowerCase() === name)
      if (index < 0) throw new ApiError(404, 'Label does not exist')
      target.labels.splice(index, 1)
      target.updatedAt = model.now()
      return { status: 200, body: target.labels.map((l) => gh.label(ctx(), model.repo, l)) }
    },
    'pulls/list': (c) => {
      const state = c.query.get('state') ?? 'open'
      const head = c.query.get('head')
      const base = c.query.get('base')
      const sort = c.query.get('sort') ?? 'created'
      const direction = c.query.get('direction') ?? (sort === 'created' ? 'desc' : 'asc')
      const matching = [...model.issues.values()]
        .filter((i): i is gh.IssueModel & { pull: gh.PullModel } => i.pull !== undefined)
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => base === null || i.pull.base.ref === base)
        .filter((i) => {
          if (head === null) return true
          const [owner, ref] = head.includes(':') ? head.split(':', 2) : [model.repo.owner.login, head]
          return i.pull.head.ref === ref && i.pull.head.repo.owner.login.toLowerCase() === owner?.toLowerCase()
        })
        .sort((a, b) => {
          const key = sort === 'updated' ? 'updatedAt' : 'createdAt'
          const order = a[key] === b[key] ? a.number - b.number : a[key] < b[key] ? -1 : 1
          return direction === 'desc' ? -order : order
        })
      const { page, headers } = paginate(matching, c.url)
      return { status: 200, headers, body: page.map((i) => pullJson(i, false)) }
    },
    'pulls/create': (c) => {
      // GitHub's answer (and wording) when the repository setting is off; it applies to the GITHUB_TOKEN only.
      if (!actionsCanCreatePullRequests && c.actor.login === ACTIONS_BOT) {
        throw new ApiError(403, 'GitHub Actions is not permitted to create or approve pull requests.', {
          documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
        })
      }
      const head = String(c.body.head)
      const headRef = head.includes(':') ? (head.split(':', 2)[1] ?? head) : head
      const base = String(c.body.base)
      const headSha = options.resolveRef ? options.resolveRef(headRef) : 'HEAD'
      const baseSha = options.resolveRef ? options.resolveRef(base) : 'HEAD'
      if (headSha === undefined) throw validationFailed('PullRequest', 'head', 'invalid')
      if (baseSha === undefined) throw validationFailed('PullRequest', 'base', 'invalid')
      const open = [...model.issues.values()].find((i) => i.state === 'open' && i.pull?.head.ref === headRef)
      if (open) {
        throw new ApiError(422, 'Validation Failed', {
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: `A pull request already exists for ${model.repo.owner.login}:${headRef}.`,
            },
          ],
        })
      }
      if (headSha === baseSha) {
        throw new ApiError(422, 'Validation Failed', {
          errors: [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${headRef}` }],
        })
      }
      const title = typeof c.body.title === 'string' ? c.body.title : headRef
      const created = model.createPull(
        c.actor,
        { title, body: (c.body.body as string | undefined) ?? null, head: headRef, headSha, base, baseSha },
        { draft: c.body.draft === true },
      )
      return { status: 201, body: pullJson(created, true) }
    },
    'pulls/get': (c) => {
      const target = model.pull(Number(c.params.pull_number))
      refreshHead(target)
      return { status: 200, body: pullJson(target, true) }
    },
    'pulls/update': (c) => {
      const target = model.pull(Number(c.params.pull_number))
      applyIssueEdits(target, c.body)
      if (typeof c.body.base === 'string') target.pull.base.ref = c.body.base
      return { status: 200, body: pullJson(target, true) }
    },
    'pulls/check-if-merged': (c) => ({ status: model.pull(Number(c.params.pull_number)).pull.merged ? 204 : 404 }),
    'pulls/merge': (c) => {
      const target = model.pull(Number(c.params.pull_number))
      refreshHead(target)
      if (target.state !== 'open') throw new ApiError(405, 'Pull Request is not mergeable')
      if (typeof c.body.sha === 'string' && c.body.sha !== target.pull.head.sha) {
        throw new ApiError(409, 'Head branch was modified. Review and try the merge again.')
      }
      target.pull.merged = true
      target.pull.mergedAt = model.now()
      target.pull.mergedBy = c.actor
      target.pull.mergeCommitSha = target.pull.head.sha
      target.state = 'closed'
      target.closedAt = target.pull.mergedAt
      return {
        status: 200,
        body: { sha: target.pull.head.sha, merged: true, message: 'Pull Request successfully merged' },
      }
    },
    'pulls/list-reviews': (c) => {
      const number = Number(c.params.pull_number)
      model.pull(number)
      const { page, headers } = paginate(
        model.reviews.filter((r) => r.pullNumber === number),
        c.url,
      )
      return { status: 200, headers, body: page.map((r) => gh.review(ctx(), model.repo, r)) }
    },
  }

  const issueJson = (i: gh.IssueModel) => gh.issue(ctx(), model.repo, i, model.commentCount(i.number))
  const commentJson = (m: gh.CommentModel) =>
    gh.comment(ctx(), model.repo, m, model.issues.get(m.issueNumber)?.pull !== undefined)
  const pullJson = (i: gh.IssueModel, full: boolean) =>
    gh.pullRequest(
      ctx(),
      model.repo,
      i,
      { comments: model.commentCount(i.number), reviewComments: 0 },
      model.now(),
      full,
    )
  const refreshHead = (i: gh.IssueModel & { pull: gh.PullModel }) => {
    if (i.state !== 'open' || !options.resolveRef || i.pull.head.repo !== model.repo) return
    const sha = options.resolveRef(i.pull.head.ref)
    if (sha) i.pull.head.sha = sha
  }
  const applyIssueEdits = (target: gh.IssueModel, body: Record<string, unknown>) => {
    if (typeof body.title === 'string') target.title = body.title
    if (typeof body.body === 'string' || body.body === null) target.body = body.body as string | null
    if (body.state === 'open' || body.state === 'closed') {
      target.closedAt = body.state === 'closed' ? model.now() : null
      target.state = body.state
    }
    target.updatedAt = model.now()
  }

  const rateFor = (token: string) => {
    let entry = usage.get(token)
    const nowSeconds = Math.floor(Date.now() / 1000)
    if (!entry || entry.reset <= nowSeconds) {
      entry = { used: 0, limit: hourly, reset: nowSeconds + 3600 }
      usage.set(token, entry)
    }
    return entry
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', apiUrl)
    const method = req.method ?? 'GET'
    const raw = await readBody(req)
    const exchange: Exchange = {
      method,
      path: url.pathname + url.search,
      operationId: undefined,
      actor: undefined,
      tokenKind: undefined,
      status: 0,
      requestBody: undefined,
      responseBody: undefined,
      fault: false,
    }
    exchanges.push(exchange)
    const send = (reply: Reply, extraHeaders: Record<string, string> = {}) => {
      exchange.status = reply.status
      exchange.responseBody = reply.body
      const text = reply.body === undefined ? '' : JSON.stringify(reply.body)
      res.writeHead(reply.status, {
        'x-github-api-version-selected': API_VERSION,
        'x-github-request-id': randomUUID().toUpperCase(),
        ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
        ...extraHeaders,
        ...reply.headers,
      })
      res.end(text)
    }

    const signature = `${method} ${url.pathname}`
    const fault = faults.find((f) => f.left > 0 && f.regex.test(signature))
    if (fault) {
      fault.left -= 1
      if (fault.rule.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.rule.latencyMs))
      const limited = fault.rule.secondaryRateLimit
      if (limited) {
        exchange.fault = true
        return send({
          status: limited.status ?? 403,
          headers: { 'retry-after': String(limited.retryAfterSeconds), ...fault.rule.headers },
          body: fault.rule.body ?? {
            message:
              'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
            documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
            status: String(limited.status ?? 403),
          },
        })
      }
      if (fault.rule.status) {
        exchange.fault = true
        return send({
          status: fault.rule.status,
          headers: fault.rule.headers ?? {},
          body: fault.rule.body ?? { message: 'Server Error', status: String(fault.rule.status) },
        })
      }
    }

    // Authentication, as GitHub: `token X` or `Bearer X`.
    const header = req.headers.authorization ?? ''
    const token = /^(?:token|bearer)\s+(.+)$/i.exec(header)?.[1]?.trim()
    const grant = token === undefined ? undefined : tokens.get(token)
    if (!token)
      return send({ status: 401, body: { message: 'Requires authentication', documentation_url: DOCS, status: '401' } })
    if (!grant)
      return send({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } })
    exchange.actor = grant.actor
    exchange.tokenKind = grant.kind
    const rate = rateFor(token)
    const rateHeaders = () => ({
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(Math.max(0, rate.limit - rate.used)),
      'x-ratelimit-used': String(rate.used),
      'x-ratelimit-reset': String(rate.reset),
      'x-ratelimit-resource': 'core',
    })
    if (signature === 'GET /rate_limit') {
      const core = {
        limit: rate.limit,
        remaining: Math.max(0, rate.limit - rate.used),
        reset: rate.reset,
        used: rate.used,
      }
      const body = { resources: { core, search: { ...core, limit: 30, remaining: 30, used: 0 } }, rate: core }
      const match = openapi.match(method, url.pathname)
      if (match)
        violations.push(...openapi.validateResponse(match, 200, body).map((p) => `response GET /rate_limit: ${p}`))
      return send({ status: 200, body }, rateHeaders())
    }
    if (rate.used >= rate.limit) {
      return send(
        {
          status: 403,
          body: {
            message: `API rate limit exceeded for ${grant.kind === 'installation' ? 'installation' : 'user'} ID ${model.user(grant.actor).id}.`,
            documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
            status: '403',
          },
        },
        rateHeaders(),
      )
    }
    rate.used += 1

    const match = openapi.match(method, url.pathname)
    if (!match) {
      violations.push(`unknown endpoint: ${signature} is no operation of GitHub's REST description (${openapi.source})`)
      return send(
        { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
        rateHeaders(),
      )
    }
    exchange.operationId = match.operation.operationId
    const owner = match.pathParams.owner
    if (owner !== undefined) {
      const sameRepo =
        owner.toLowerCase() === model.repo.owner.login.toLowerCase() &&
        (match.pathParams.repo ?? '').toLowerCase() === model.repo.name.toLowerCase()
      if (!sameRepo)
        return send(
          { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
          rateHeaders(),
        )
    }

    let body: unknown
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw)
      } catch {
        return send(
          { status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' } },
          rateHeaders(),
        )
      }
    }
    exchange.requestBody = body
    const problems = openapi.validateRequest(match, url.searchParams, body, raw.length > 0)
    if (problems.length > 0) {
      violations.push(...problems.map((p) => `request ${match.operation.operationId} (${signature}): ${p}`))
      return send(
        {
          status: 422,
          body: {
            message: `Invalid request.\n\n${problems.join('\n')}`,
            documentation_url: DOCS,
            status: '422',
          },
        },
        rateHeaders(),
      )
    }

    const forbidden = permissionProblem(match, grant)
    if (forbidden) return send(forbidden, rateHeaders())

    if (
      options.artifacts &&
      match.operation.operationId.startsWith('actions/') &&
      url.pathname.includes('/artifacts')
    ) {
      const served = await serveMounted(options.artifacts, req, res, url, raw, match, exchange, rateHeaders())
      if (served) return
    }

    const handler = handlers[match.operation.operationId]
    if (!handler) {
      // GitHub serves it, the stand-in does not: a test that reaches it must learn so, not see a quiet 404.
      violations.push(
        `unimplemented operation: ${match.operation.operationId} (${match.key}) requested as ${signature}; the stand-in does not serve it yet`,
      )
      return send(
        { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
        rateHeaders(),
      )
    }
    let reply: Reply
    try {
      reply = handler({
        params: match.pathParams,
        query: url.searchParams,
        body: (body ?? {}) as Record<string, unknown>,
        actor: model.user(grant.actor),
        url,
      })
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      reply = {
        status: error.status,
        headers: error.headers,
        body: { message: error.message, documentation_url: DOCS, ...error.extra, status: String(error.status) },
      }
    }
    const responseProblems =
      reply.status === 404 && reply.body === undefined ? [] : openapi.validateResponse(match, reply.status, reply.body)
    violations.push(...responseProblems.map((p) => `response ${match.operation.operationId} ${reply.status}: ${p}`))
    send(reply, rateHeaders())
  }

  function permissionProblem(match: MatchedOperation, grant: TokenGrant): Reply | undefined {
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
    if (scope === 'issues' && model.issues.get(number)?.pull && grants(grant, 'pull-requests', level)) return undefined
    return forbiddenReply([`${scope.replace('-', '_')}=${level}`])
  }

  const forbiddenReply = (accepted: string[]): Reply => ({
    status: 403,
    headers: accepted.length > 0 ? { 'x-accepted-github-permissions': accepted.join('; ') } : {},
    body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' },
  })

  async function serveMounted(
    handler: MountedHandler,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    raw: string,
    match: MatchedOperation,
    exchange: Exchange,
    headers: Record<string, string>,
  ): Promise<boolean> {
    // The mounted handler writes to `res` itself: capture what it writes to validate it.
    const chunks: Buffer[] = []
    const originalWrite = res.write.bind(res)
    const originalEnd = res.end.bind(res)
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as string))
      return (originalWrite as (...a: unknown[]) => boolean)(chunk, ...rest)
    }) as typeof res.write
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string))
      exchange.status = res.statusCode
      const text = Buffer.concat(chunks).toString('utf8')
      const isJson = String(res.getHeader('content-type') ?? '').includes('json')
      exchange.responseBody = isJson && text ? JSON.parse(text) : undefined
      const problems = openapi.validateResponse(match, res.statusCode, exchange.responseBody)
      violations.push(...problems.map((p) => `response ${match.operation.operationId} ${res.statusCode}: ${p}`))
      return (originalEnd as (...a: unknown[]) => ServerResponse)(chunk, ...rest)
    }) as typeof res.end
    // The body was already read; hand it over on the request object for handlers that need it.
    ;(req as IncomingMessage & { rawBody?: string }).rawBody = raw
    return handler(req, res, url)
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(
        `stand-in crashed on ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
      )
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: 'Server Error' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: apiUrl,
    model,
    violations,
    exchanges,
    inject(rule) {
      const entry = { rule, left: rule.times ?? Number.POSITIVE_INFINITY, regex: globToRegex(rule.match) }
      faults.push(entry)
      return () => {
        entry.left = 0
      }
    },
    addToken(token, grant) {
      tokens.set(token, grant)
      if (!model.users.has(grant.actor.toLowerCase())) model.addUser(grant.actor, 'none')
    },
    removeToken(token) {
      tokens.delete(token)
    },
    grantOf: (token) => tokens.get(token),
    onDispatch(handler) {
      dispatchHandler = handler
    },
    setServerUrl(url) {
      serverUrl = url
    },
    setActionsCanCreatePullRequests(allowed) {
      actionsCanCreatePullRequests = allowed
    },
    setRateLimit(token, remaining, resetInSeconds = 3600) {
      const rate = rateFor(token)
      rate.used = Math.max(0, rate.limit - remaining)
      rate.reset = Math.floor(Date.now() / 1000) + resetInSeconds
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const cacheJson = (e: CacheEntry) => ({
  id: e.id,
  ref: e.ref,
  key: e.key,
  version: e.version,
  last_accessed_at: e.lastAccessedAt,
  created_at: e.createdAt,
  size_in_bytes: e.sizeInBytes,
})

const labelName = (entry: unknown): string =>
  typeof entry === 'string' ? entry : String((entry as { name?: unknown } | null)?.name ?? '')

const validationFailed = (resource: string, field: string, code: string) =>
  new ApiError(422, 'Validation Failed', { errors: [{ resource, field, code }] })

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      // GitHub refuses bodies this large; a runaway client should not exhaust the test process.
      if (size > 25 * 1024 * 1024) {
        req.destroy(new Error('request body over 25 MiB'))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
