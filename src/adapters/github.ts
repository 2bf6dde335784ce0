/**
 * The GitHub port with Octokit: `@actions/github`'s client plus the retry and throttling plugins
 * (bounded), pointed at `GITHUB_API_URL` (or any base URL, e.g. a loopback stand-in in tests).
 * A 403 becomes a `GitHubPermissionError` that names the permission the workflow must grant.
 */
import { isOwnComment } from '../domain/comment-author.js'
import type { RunJob } from '../domain/fan-out-jobs.js'
import {
  type CommentRef,
  type DispatchedRun,
  type GitHubPermission,
  GitHubPermissionError,
  type GitHubPort,
  GitHubRateLimitedError,
  type PullRequestInfo,
  PullRequestsNotAllowedError,
  type WorkflowDispatch,
} from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import { createOctokit, type GitHubClientOptions, type OctokitClient, resetTime } from './github-client.js'
import { downloadJobLog, JOB_LOG_WAITS_MS, listRunAttemptJobs } from './github-jobs.js'
import { type RawPull, toPullRequest } from './github-pulls.js'
import { isRequestError, type RequestErrorLike, statusOf } from './request-error.js'

/** Which permission an endpoint needs (data, not an if-chain). First match wins. */
const PERMISSION_BY_ROUTE: ReadonlyArray<{ pattern: RegExp; write: GitHubPermission; read: GitHubPermission }> = [
  { pattern: /\/actions\//, write: 'actions: write', read: 'actions: read' },
  { pattern: /\/pulls(\/|$)/, write: 'pull-requests: write', read: 'pull-requests: read' },
  // The one GraphQL call: marking the loop's pull request ready for review.
  { pattern: /^\/graphql$/, write: 'pull-requests: write', read: 'pull-requests: read' },
  { pattern: /\/issues\//, write: 'issues: write', read: 'issues: read' },
  { pattern: /\/collaborators\//, write: 'metadata: read', read: 'metadata: read' },
  { pattern: /\/(git|contents)\//, write: 'contents: write', read: 'contents: read' },
]

/** The permission a request needs, from its method and route. */
export function permissionFor(method: string, route: string): GitHubPermission {
  const entry = PERMISSION_BY_ROUTE.find((candidate) => candidate.pattern.test(route))
  const writes = method.toUpperCase() !== 'GET'
  if (!entry) return writes ? 'contents: write' : 'contents: read'
  return writes ? entry.write : entry.read
}

function isRateLimit(error: RequestErrorLike): boolean {
  const remaining = error.response?.headers?.['x-ratelimit-remaining']
  return String(remaining) === '0' || /rate limit/i.test(error.message)
}

/** When a rate-limited answer says the limit resets (`x-ratelimit-reset`, epoch seconds), if it does. */
function resetOf(error: RequestErrorLike): Date | null {
  const reset = Number(error.response?.headers?.['x-ratelimit-reset'])
  return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : null
}

/** A 403 or 429 that says the rate limit is used up, as the error to throw (null: not one). */
export function rateLimited(error: unknown, what: string): GitHubRateLimitedError | null {
  if (!isRequestError(error) || (error.status !== 403 && error.status !== 429) || !isRateLimit(error)) return null
  const resetAt = resetOf(error)
  return new GitHubRateLimitedError(
    `${what} was not made: the API rate limit is used up${resetAt ? ` until ${resetTime(resetAt)}` : ''} (${error.status}: ${error.message.split('\n')[0]})`,
    resetAt,
  )
}

/** Turns a 403 (not a rate limit) into an error naming the missing permission; rethrows the rest. */
function explain(error: unknown, method: string, route: string): never {
  const limited = rateLimited(error, `GitHub ${method} ${route}`)
  if (limited) throw limited
  if (isRequestError(error) && error.status === 403 && !isRateLimit(error)) {
    const permission = permissionFor(method, route)
    throw new GitHubPermissionError(
      `GitHub refused ${method} ${route} (403: ${error.message.split('\n')[0]}). The token needs '${permission}': add it under 'permissions:' of the job that runs loop-controller (or use a token that has it).`,
      permission,
      403,
    )
  }
  if (isRequestError(error)) {
    const wrapped = new Error(`GitHub ${method} ${route} failed (${error.status}): ${error.message.split('\n')[0]}`, {
      cause: error,
    })
    throw Object.assign(wrapped, { status: error.status })
  }
  throw error
}

/** Whether a dispatch was refused for asking for run details: older Enterprise Servers answer 400. */
function refusesRunDetails(error: unknown): boolean {
  const status = statusOf(error)
  return status === 400 || (status === 422 && isRequestError(error) && /return_run_details/.test(error.message))
}

function dispatchedRun(data: unknown): DispatchedRun {
  if (typeof data !== 'object' || data === null) return {}
  const run = data as { workflow_run_id?: number; run_url?: string; html_url?: string }
  return {
    ...(typeof run.workflow_run_id === 'number' ? { runId: run.workflow_run_id } : {}),
    ...(typeof run.run_url === 'string' ? { runUrl: run.run_url } : {}),
    ...(typeof run.html_url === 'string' ? { htmlUrl: run.html_url } : {}),
  }
}

/** GitHub's words when "Allow GitHub Actions to create and approve pull requests" is off. */
const PULL_REQUESTS_NOT_ALLOWED = /not permitted to create or approve pull requests/i

/** The GitHub port over Octokit. */
export class OctokitGitHub implements GitHubPort {
  readonly owner: string
  readonly repo: string
  private readonly octokit: OctokitClient
  private readonly logger: Pick<Logger, 'warning' | 'debug'> | undefined
  private readonly jobLogWaitsMs: readonly number[]
  /** The token's own login (null: an installation token, which may not ask), asked once. */
  private login: Promise<string | null> | undefined

  constructor(options: GitHubClientOptions, octokit: OctokitClient = createOctokit(options)) {
    this.owner = options.owner
    this.repo = options.repo
    this.octokit = octokit
    this.logger = options.logger
    this.jobLogWaitsMs = options.jobLogWaitsMs ?? JOB_LOG_WAITS_MS
  }

  private get repoPath(): string {
    return `/repos/${this.owner}/${this.repo}`
  }

  private async call<T>(method: string, route: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body()
    } catch (error) {
      explain(error, method, route)
    }
  }

  async dispatchWorkflow(request: WorkflowDispatch): Promise<DispatchedRun> {
    const route = `${this.repoPath}/actions/workflows/${request.workflow}/dispatches`
    const dispatch = (runDetails: boolean) =>
      this.octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
        owner: this.owner,
        repo: this.repo,
        workflow_id: request.workflow,
        ref: request.ref,
        inputs: request.inputs,
        ...(runDetails ? { return_run_details: true } : {}),
      } as never)
    try {
      // 204 (no run details) has no body; 200 carries the new run.
      return dispatchedRun((await dispatch(true)).data)
    } catch (error) {
      if (!refusesRunDetails(error)) explain(error, 'POST', route)
    }
    // An older Enterprise Server refuses the parameter (400): dispatch without it, and tell the run it
    // started by the one run that was not listed before (no clocks compared).
    this.logger?.debug(`${route} refused return_run_details; dispatching without and finding the run.`)
    const before = await this.dispatchedRuns(request).catch(() => null)
    await this.call('POST', route, () => dispatch(false))
    if (before === null) return {}
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1000))
      const after = await this.dispatchedRuns(request).catch(() => [])
      const run = after.find((candidate) => !before.some((known) => known.runId === candidate.runId))
      if (run) return run
    }
    return {}
  }

  /** The workflow's newest dispatched runs on the dispatch's branch. */
  private async dispatchedRuns(request: WorkflowDispatch): Promise<Required<DispatchedRun>[]> {
    const response = await this.call('GET', `${this.repoPath}/actions/workflows/${request.workflow}/runs`, () =>
      this.octokit.rest.actions.listWorkflowRuns({
        owner: this.owner,
        repo: this.repo,
        workflow_id: request.workflow,
        event: 'workflow_dispatch',
        branch: /^refs\/heads\/(.+)$/.exec(request.ref)?.[1] ?? request.ref,
        per_page: 20,
      }),
    )
    return response.data.workflow_runs.map((run) => ({ runId: run.id, runUrl: run.url, htmlUrl: run.html_url }))
  }

  async findOpenPullRequest(head: string, base: string): Promise<PullRequestInfo | null> {
    const route = `${this.repoPath}/pulls`
    // GitHub allows one open pull request per head and base, but a list is followed to its end anyway.
    const pulls = await this.call('GET', route, () =>
      this.octokit.paginate(this.octokit.rest.pulls.list, {
        owner: this.owner,
        repo: this.repo,
        head: `${this.owner}:${head}`,
        base,
        state: 'open',
        per_page: 100,
      }),
    )
    const pull = (pulls as RawPull[]).find((candidate) => candidate.head.ref === head)
    return pull ? toPullRequest(pull) : null
  }

  async findOrCreatePullRequest(request: {
    head: string
    base: string
    title: string
    body: string
    draft: boolean
  }): Promise<PullRequestInfo & { created: boolean }> {
    const existing = await this.findOpenPullRequest(request.head, request.base)
    if (existing) return { ...existing, created: false }
    const route = `${this.repoPath}/pulls`
    const create = (draft: boolean) =>
      this.octokit.rest.pulls.create({
        owner: this.owner,
        repo: this.repo,
        head: request.head,
        base: request.base,
        title: request.title,
        body: request.body,
        draft,
      })
    try {
      const response = await create(request.draft)
      return { ...toPullRequest(response.data as RawPull), created: true }
    } catch (error) {
      if (statusOf(error) === 422) {
        const message = isRequestError(error) ? error.message : ''
        // Created meanwhile (a retried request, or a concurrent job): use that one.
        const again = await this.findOpenPullRequest(request.head, request.base)
        if (again) return { ...again, created: false }
        if (request.draft && /draft/i.test(message)) {
          this.logger?.warning('Draft pull requests are not available in this repository; opening a ready one.')
          const response = await this.call('POST', route, () => create(false))
          return { ...toPullRequest(response.data as RawPull), created: true }
        }
      }
      // A setting, not a permission: the token may well have pull-requests: write.
      if (statusOf(error) === 403 && isRequestError(error) && PULL_REQUESTS_NOT_ALLOWED.test(error.message)) {
        throw new PullRequestsNotAllowedError(`GitHub refused POST ${route} (403: ${error.message.split('\n')[0]})`)
      }
      explain(error, 'POST', route)
    }
  }

  async getPullRequest(number: number): Promise<PullRequestInfo> {
    const response = await this.call('GET', `${this.repoPath}/pulls/${number}`, () =>
      this.octokit.rest.pulls.get({ owner: this.owner, repo: this.repo, pull_number: number }),
    )
    return toPullRequest(response.data as RawPull)
  }

  async isPullRequestMerged(number: number): Promise<boolean> {
    return (await this.getPullRequest(number)).merged
  }

  async markReadyForReview(number: number): Promise<boolean> {
    const route = `${this.repoPath}/pulls/${number}`
    const response = await this.call('GET', route, () =>
      this.octokit.rest.pulls.get({ owner: this.owner, repo: this.repo, pull_number: number }),
    )
    const pull = response.data as RawPull
    if (pull.draft !== true) return false
    await this.call('POST', '/graphql', () =>
      this.octokit.graphql(
        'mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }',
        { id: pull.node_id },
      ),
    )
    return true
  }

  private async findStickyComment(issueNumber: number, marker: string): Promise<{ id: number; url: string } | null> {
    const route = `${this.repoPath}/issues/${issueNumber}/comments`
    const comments = await this.call('GET', route, () =>
      this.octokit.paginate(this.octokit.rest.issues.listComments, {
        owner: this.owner,
        repo: this.repo,
        issue_number: issueNumber,
        per_page: 100,
      }),
    )
    // The marker must open the body (a person quoting the comment does not own it), and the comment must
    // be the controller's own (a person pasting the marker does not either): see `isOwnComment`.
    const login = await this.ownLogin()
    const found = comments.find(
      (comment) => (comment.body ?? '').trimStart().startsWith(marker) && isOwnComment(comment.user, login),
    )
    return found ? { id: found.id, url: found.html_url } : null
  }

  private async updateComment(id: number, body: string): Promise<string> {
    const response = await this.call('PATCH', `${this.repoPath}/issues/comments/${id}`, () =>
      this.octokit.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: id, body }),
    )
    return response.data.html_url
  }

  async upsertStickyComment(request: { issueNumber: number; marker: string; body: string }): Promise<CommentRef> {
    const { issueNumber, marker } = request
    const body = request.body.trimStart().startsWith(marker) ? request.body : `${marker}\n${request.body}`
    const existing = await this.findStickyComment(issueNumber, marker)
    if (existing) return { id: existing.id, url: await this.updateComment(existing.id, body), created: false }
    const route = `${this.repoPath}/issues/${issueNumber}/comments`
    try {
      // No automatic retry of the create: a retry after a lost response would post a second comment.
      const response = await this.octokit.rest.issues.createComment({
        owner: this.owner,
        repo: this.repo,
        issue_number: issueNumber,
        body,
        request: { retries: 0 },
      } as Parameters<OctokitClient['rest']['issues']['createComment']>[0])
      // Its author is the token's exact identity: later searches in this job need no Bot fallback.
      if (response.data.user?.login) this.login = Promise.resolve(response.data.user.login)
      return { id: response.data.id, url: response.data.html_url, created: true }
    } catch (error) {
      if (statusOf(error) === 403) explain(error, 'POST', route)
      this.logger?.debug(`Creating the sticky comment failed (${statusOf(error) ?? 'no status'}); searching again.`)
      const again = await this.findStickyComment(issueNumber, marker)
      if (again) return { id: again.id, url: await this.updateComment(again.id, body), created: false }
      const response = await this.call('POST', route, () =>
        this.octokit.rest.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: issueNumber, body }),
      )
      return { id: response.data.id, url: response.data.html_url, created: true }
    }
  }

  async getPermission(user: string): Promise<string> {
    const route = `${this.repoPath}/collaborators/${user}/permission`
    try {
      const response = await this.octokit.rest.repos.getCollaboratorPermissionLevel({
        owner: this.owner,
        repo: this.repo,
        username: user,
      })
      const data = response.data as { permission?: string; role_name?: string }
      return (data.role_name || data.permission || 'none').toLowerCase()
    } catch (error) {
      if (statusOf(error) === 404) return 'none'
      explain(error, 'GET', route)
    }
  }

  async listLabels(issueNumber: number): Promise<string[]> {
    const labels = await this.call('GET', `${this.repoPath}/issues/${issueNumber}/labels`, () =>
      this.octokit.paginate(this.octokit.rest.issues.listLabelsOnIssue, {
        owner: this.owner,
        repo: this.repo,
        issue_number: issueNumber,
        per_page: 100,
      }),
    )
    return labels.map((label) => label.name)
  }

  async getAuthenticatedLogin(fallback: string): Promise<string> {
    return (await this.ownLogin()) ?? fallback
  }

  async getWorkflowRun(runId: string): Promise<{ status: string; conclusion: string | null }> {
    const { owner, repo } = this
    const { data } = await this.call('GET', `${this.repoPath}/actions/runs/${runId}`, () =>
      this.octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: Number(runId) }),
    )
    return { status: data.status ?? 'unknown', conclusion: data.conclusion ?? null }
  }

  async getIssueState(issueNumber: number): Promise<'open' | 'closed'> {
    const route = `${this.repoPath}/issues/${issueNumber}`
    const { owner, repo } = this
    const { data } = await this.call('GET', route, () =>
      this.octokit.rest.issues.get({ owner, repo, issue_number: issueNumber }),
    )
    return data.state === 'closed' ? 'closed' : 'open'
  }

  async getIssueKind(issueNumber: number): Promise<'issue' | 'pull-request' | 'none' | 'moved'> {
    const { owner, repo } = this
    try {
      const { data } = await this.octokit.rest.issues.get({ owner, repo, issue_number: issueNumber })
      // A transferred issue answers 301 to its new repository, which the client follows: the issue it
      // answers with is another repository's (its number there may differ), never this one's.
      const here = `/repos/${owner}/${repo}`.toLowerCase()
      if (data.number !== issueNumber || !data.repository_url.toLowerCase().endsWith(here)) return 'moved'
      return data.pull_request ? 'pull-request' : 'issue'
    } catch (error) {
      // 410: an issue that was deleted.
      if (statusOf(error) === 404 || statusOf(error) === 410) return 'none'
      explain(error, 'GET', `${this.repoPath}/issues/${issueNumber}`)
    }
  }

  async listRunAttemptJobs(runId: string, attempt: number): Promise<RunJob[]> {
    const { owner, repo } = this
    return this.call('GET', `${this.repoPath}/actions/runs/${runId}/attempts/${attempt}/jobs`, () =>
      listRunAttemptJobs(this.octokit, { owner, repo, runId: Number(runId), attempt }),
    )
  }

  async jobLog(jobId: number): Promise<string> {
    const { owner, repo } = this
    return this.call('GET', `${this.repoPath}/actions/jobs/${jobId}/logs`, () =>
      downloadJobLog(this.octokit, { owner, repo, jobId }, this.jobLogWaitsMs),
    )
  }

  private ownLogin(): Promise<string | null> {
    this.login ??= this.octokit.rest.users.getAuthenticated().then(
      (response) => response.data.login,
      (error: unknown) => {
        // An installation token (GITHUB_TOKEN) may not ask who it is; it posts as the app's bot.
        if (statusOf(error) === 401 || statusOf(error) === 403 || statusOf(error) === 404) return null
        this.login = undefined // a passing fault: ask again next time
        throw error
      },
    )
    return this.login
  }
}
