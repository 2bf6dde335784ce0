// The in-memory repository behind the REST stand-in (users, issues and pull requests, comments, labels,
// reviews, runs, caches), and the error the API answers with in GitHub's shape.
import type * as gh from './github-objects.js'
import type { JobModel } from './run-jobs.js'

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

/** The in-memory state of the repository the API serves. */
export class GitHubModel {
  readonly repo: gh.RepoModel
  readonly users = new Map<string, gh.UserModel>()
  readonly issues = new Map<number, gh.IssueModel>()
  readonly comments: gh.CommentModel[] = []
  readonly reviews: gh.ReviewModel[] = []
  readonly runs = new Map<number, gh.RunModel>()
  /** Every job of every run attempt, in the order they were created (`run-jobs.ts`). */
  readonly jobs: JobModel[] = []
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
