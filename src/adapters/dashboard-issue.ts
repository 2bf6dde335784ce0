/**
 * The dashboard issue with Octokit: listed by its label (`GET /repos/{o}/{r}/issues?labels=`, which
 * also lists pull requests: they are left out) and kept only when the controller opened it and its body
 * opens with the dashboard's marker, created with the label, pinned with GraphQL `pinIssue` and its
 * `isPinned` read back (REST has no pinning), read again with `GET` around each rewrite, rewritten
 * with `PATCH`, and a duplicate unpinned and closed as one.
 */
import { isOwnComment } from '../domain/comment-author.js'
import { DASHBOARD_LABEL, isDashboardBody } from '../domain/report/dashboard.js'
import type { DashboardIssue, DashboardIssues } from '../ports/dashboard.js'
import { GitHubPermissionError } from '../ports/github.js'
import { rateLimited } from './github.js'
import type { OctokitClient } from './github-client.js'
import { statusOf } from './request-error.js'

interface RawIssue {
  number: number
  node_id: string
  body?: string | null
  html_url: string
  user: { login: string; type: string } | null
  pull_request?: unknown
}

function toIssue(issue: RawIssue): DashboardIssue {
  return { number: issue.number, nodeId: issue.node_id, body: issue.body ?? '', url: issue.html_url }
}

/** GraphQL's errors (HTTP 200 with `errors`), each with its message and type. */
function graphqlErrors(error: unknown): { message: string; type?: string }[] {
  const errors = (error as { errors?: unknown } | null)?.errors
  return Array.isArray(errors) ? (errors as { message: string; type?: string }[]) : []
}

/**
 * A 403 (or GraphQL's FORBIDDEN) names the permission to grant, as the other GitHub calls do; a 403 or
 * 429 that is a used-up rate limit says so instead (no permission would help).
 */
function explained(error: unknown, what: string): Error {
  const limited = rateLimited(error, `The dashboard call to ${what}`)
  if (limited) return limited
  const fromGraphql = graphqlErrors(error)
  const message = fromGraphql.length
    ? fromGraphql.map((e) => e.message).join('; ')
    : ((error as Error).message.split('\n')[0] ?? '')
  if (statusOf(error) === 403 || fromGraphql.some((e) => e.type === 'FORBIDDEN')) {
    return new GitHubPermissionError(
      `GitHub refused to ${what} (403: ${message}). The token needs 'issues: write': add it under 'permissions:' of the job that runs loop-controller.`,
      'issues: write',
      403,
    )
  }
  return new Error(`GitHub refused to ${what}: ${message}`, { cause: error })
}

export class OctokitDashboardIssues implements DashboardIssues {
  /** The token's own login (null: an installation token, which may not ask), asked once. */
  private login: Promise<string | null> | undefined

  constructor(
    private readonly octokit: OctokitClient,
    private readonly owner: string,
    private readonly repo: string,
  ) {}

  private async attempt<T>(what: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body()
    } catch (error) {
      throw explained(error, what)
    }
  }

  async list(): Promise<DashboardIssue[]> {
    const issues = (await this.attempt('list the dashboard issues', () =>
      this.octokit.paginate(this.octokit.rest.issues.listForRepo, {
        owner: this.owner,
        repo: this.repo,
        labels: DASHBOARD_LABEL,
        state: 'open',
        sort: 'created',
        direction: 'asc',
        per_page: 100,
      }),
    )) as RawIssue[]
    const login = await this.ownLogin()
    // Anyone who can label an issue could label theirs: only the controller's own issue is the dashboard.
    // Without the exact login (an installation token) any bot's issue passes `isOwnComment`, another
    // workflow's `github-actions[bot]` included: the body must also open with the dashboard's marker.
    return issues
      .filter(
        (issue) =>
          issue.pull_request === undefined && isOwnComment(issue.user, login) && isDashboardBody(issue.body ?? ''),
      )
      .map(toIssue)
      .sort((a, b) => a.number - b.number)
  }

  async create(title: string, body: string): Promise<DashboardIssue> {
    const response = await this.attempt('open the dashboard issue', () =>
      this.octokit.rest.issues.create({ owner: this.owner, repo: this.repo, title, body, labels: [DASHBOARD_LABEL] }),
    )
    const created = response.data as RawIssue
    if (created.user?.login) this.login = Promise.resolve(created.user.login)
    return toIssue(created)
  }

  async pin(issue: DashboardIssue): Promise<void> {
    await this.attempt(`pin issue #${issue.number}`, () =>
      this.octokit.graphql('mutation($id: ID!) { pinIssue(input: { issueId: $id }) { issue { number } } }', {
        id: issue.nodeId,
      }),
    )
  }

  async isPinned(issue: DashboardIssue): Promise<boolean> {
    const data = await this.attempt(`read whether issue #${issue.number} is pinned`, () =>
      this.octokit.graphql<{ repository: { issue: { isPinned: boolean } | null } | null }>(
        'query($owner: String!, $repo: String!, $number: Int!) { repository(owner: $owner, name: $repo) { issue(number: $number) { isPinned } } }',
        { owner: this.owner, repo: this.repo, number: issue.number },
      ),
    )
    return data.repository?.issue?.isPinned === true
  }

  async update(number: number, body: string): Promise<void> {
    await this.attempt(`rewrite issue #${number}`, () =>
      this.octokit.rest.issues.update({ owner: this.owner, repo: this.repo, issue_number: number, body }),
    )
  }

  async get(number: number): Promise<DashboardIssue> {
    const response = await this.attempt(`read issue #${number}`, () =>
      this.octokit.rest.issues.get({ owner: this.owner, repo: this.repo, issue_number: number }),
    )
    return toIssue(response.data as RawIssue)
  }

  async closeDuplicate(duplicate: DashboardIssue, kept: number): Promise<void> {
    const { number } = duplicate
    // The job that opened it pinned it: a closed duplicate must not hold one of the repository's three pins.
    await this.octokit
      .graphql('mutation($id: ID!) { unpinIssue(input: { issueId: $id }) { issue { number } } }', {
        id: duplicate.nodeId,
      })
      .catch(() => undefined)
    await this.attempt(`close the duplicate dashboard #${number}`, async () => {
      await this.octokit.rest.issues.createComment({
        owner: this.owner,
        repo: this.repo,
        issue_number: number,
        body: `A second dashboard opened by a race; the dashboard is #${kept}.`,
      })
      await this.octokit.rest.issues.update({
        owner: this.owner,
        repo: this.repo,
        issue_number: number,
        state: 'closed',
        state_reason: 'duplicate',
      })
    })
  }

  private ownLogin(): Promise<string | null> {
    this.login ??= this.octokit.rest.users.getAuthenticated().then(
      (response) => response.data.login,
      (error: unknown) => {
        // An installation token (GITHUB_TOKEN) may not ask who it is; it opens issues as the app's bot.
        const status = statusOf(error)
        if (status === 401 || status === 403 || status === 404) return null
        this.login = undefined
        throw error
      },
    )
    return this.login
  }
}
