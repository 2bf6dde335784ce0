/**
 * What the controller asks of GitHub's API (docs/github.md). Implemented with Octokit in
 * `adapters/github.ts`; any other implementation (a test double, another forge) keeps the same meaning.
 */
import type { RunJob } from '../domain/fan-out-jobs.js'

export interface WorkflowDispatch {
  /** The workflow file name (`loop.yml`) or its numeric id. */
  workflow: string | number
  ref: string
  /** Workflow inputs; GitHub takes strings only. */
  inputs: Record<string, string>
}

/** What GitHub says about the run a dispatch started (only when it answers 200 with run details). */
export interface DispatchedRun {
  runId?: number
  runUrl?: string
  htmlUrl?: string
}

export interface PullRequestInfo {
  number: number
  url: string
  state: 'open' | 'closed'
  merged: boolean
  draft: boolean
  headRef: string
  /** `owner/name` of the head repository (null when the fork was deleted). */
  headRepo: string | null
  baseRef: string
}

export interface CommentRef {
  id: number
  url: string
  /** True when this call created the comment, false when it updated one in place. */
  created: boolean
}

export interface GitHubPort {
  readonly owner: string
  readonly repo: string
  /** Starts the workflow again (`return_run_details`); accepts GitHub's 200 and its older 204. */
  dispatchWorkflow(request: WorkflowDispatch): Promise<DispatchedRun>
  /** The open pull request from `head` into `base`, or a new one; never a second one. */
  findOrCreatePullRequest(request: {
    head: string
    base: string
    title: string
    body: string
    draft: boolean
  }): Promise<PullRequestInfo & { created: boolean }>
  /** The open pull request from the branch `head` (of this repository) into `base`, or null when there is none. */
  findOpenPullRequest(head: string, base: string): Promise<PullRequestInfo | null>
  getPullRequest(number: number): Promise<PullRequestInfo>
  isPullRequestMerged(number: number): Promise<boolean>
  /**
   * Marks a draft pull request ready for review (GitHub merges no drafts; REST cannot do this, GraphQL's
   * `markPullRequestReadyForReview` can). False when it was not a draft.
   */
  markReadyForReview(number: number): Promise<boolean>
  /**
   * Updates the comment that holds `marker` on the issue or pull request, or creates it. A retried
   * request never posts twice: before creating, and after a failed create, it searches again.
   */
  upsertStickyComment(request: { issueNumber: number; marker: string; body: string }): Promise<CommentRef>
  /** The user's permission on the repository: admin, maintain, write, triage, read or none. */
  getPermission(user: string): Promise<string>
  listLabels(issueNumber: number): Promise<string[]>
  /** The login the token acts as; for a GITHUB_TOKEN (which cannot ask), `fallback`. */
  getAuthenticatedLogin(fallback: string): Promise<string>
  /** A workflow run's status (`queued`, `in_progress`, `completed`, ...) and, once completed, its conclusion. */
  getWorkflowRun(runId: string): Promise<{ status: string; conclusion: string | null }>
  /** Whether the issue is open or closed. */
  getIssueState(issueNumber: number): Promise<'open' | 'closed'>
  /**
   * What the number names in this repository: an issue, a pull request, nothing (`none`: 404, or deleted),
   * or an issue transferred to another repository (`moved`).
   */
  getIssueKind(issueNumber: number): Promise<'issue' | 'pull-request' | 'none' | 'moved'>
  /** The jobs of one attempt of a workflow run, every page (`actions: read`; decide holds `actions: write`). */
  listRunAttemptJobs(runId: string, attempt: number): Promise<RunJob[]>
  /** One job's log, as plain text (`actions: read`). */
  jobLog(jobId: number): Promise<string>
}

/** The permission an endpoint needs, named so a 403 says exactly what to add to `permissions:`. */
export type GitHubPermission =
  | 'contents: write'
  | 'contents: read'
  | 'actions: write'
  | 'actions: read'
  | 'pull-requests: write'
  | 'pull-requests: read'
  | 'issues: write'
  | 'issues: read'
  | 'metadata: read'

/** GitHub answered 403 for lack of a permission: the message names it and where to grant it. */
export class GitHubPermissionError extends Error {
  override name = 'GitHubPermissionError'
  constructor(
    message: string,
    readonly permission: GitHubPermission,
    readonly status: number,
  ) {
    super(message)
  }
}

/**
 * GitHub's rate limit ran out and resets later than a job waits: the call was not made. What it was
 * for waits for a later job (the sweeper re-dispatches a loop whose dispatch failed).
 */
export class GitHubRateLimitedError extends Error {
  override name = 'GitHubRateLimitedError'
  constructor(
    message: string,
    /** When GitHub said the limit resets, if it said. */
    readonly resetAt: Date | null,
  ) {
    super(message)
  }
}

/**
 * GitHub refused to let this token open a pull request because of a repository (or organization)
 * setting, not a missing permission: "Allow GitHub Actions to create and approve pull requests" is off,
 * the default for new repositories and organizations. The branch is pushed; only the pull request waits.
 */
export class PullRequestsNotAllowedError extends Error {
  override name = 'PullRequestsNotAllowedError'
}
