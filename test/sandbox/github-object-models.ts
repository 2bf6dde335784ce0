// The sandbox's records of GitHub's objects (users, repositories, issues and pull requests, comments,
// labels, reviews, workflow runs), which github-objects.ts turns into the JSON GitHub sends.

/** Where links in returned objects point. */
export interface UrlContext {
  /** The REST API root, e.g. `http://127.0.0.1:4100` (no trailing slash). */
  apiUrl: string
  /** The web/git server root (`GITHUB_SERVER_URL`). */
  serverUrl: string
}

/** A repository collaborator's role. */
export type RepoPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

/** A person or bot known to the sandbox. */
export interface UserModel {
  login: string
  id: number
  type: 'User' | 'Bot'
  permission: RepoPermission
}

/** A repository known to the sandbox. */
export interface RepoModel {
  id: number
  owner: UserModel
  name: string
  defaultBranch: string
  private: boolean
  fork: boolean
  createdAt: string
}

/** A label attached to an issue or pull request. */
export interface LabelModel {
  id: number
  name: string
  color: string
  description: string | null
}

/** An issue; a pull request is an issue with `pull` set (they share numbers, as on GitHub). */
export interface IssueModel {
  number: number
  id: number
  title: string
  body: string | null
  user: UserModel
  state: 'open' | 'closed'
  labels: LabelModel[]
  createdAt: string
  updatedAt: string
  closedAt: string | null
  pull?: PullModel
  /** Why it was closed (`completed`, `not_planned`, `duplicate`), as the update that closed it said. */
  stateReason?: 'completed' | 'not_planned' | 'duplicate'
  /** Pinned to the repository (GraphQL `pinIssue`); GitHub pins at most three issues per repository. */
  pinned?: boolean
}

/** The pull-request side of an issue. */
export interface PullModel {
  id: number
  head: { ref: string; sha: string; repo: RepoModel; user: UserModel }
  base: { ref: string; sha: string }
  draft: boolean
  merged: boolean
  mergedAt: string | null
  mergedBy: UserModel | null
  mergeCommitSha: string | null
  maintainerCanModify: boolean
}

/** A comment on an issue or pull request. */
export interface CommentModel {
  id: number
  issueNumber: number
  user: UserModel
  body: string
  createdAt: string
  updatedAt: string
}

/** A pull request review. */
export interface ReviewModel {
  id: number
  pullNumber: number
  user: UserModel
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING'
  body: string
  commitId: string
  submittedAt: string
}

/** A workflow run as the API reports it. */
export interface RunModel {
  id: number
  runNumber: number
  runAttempt: number
  workflowId: number
  workflowPath: string
  workflowName: string
  /** The run's title (`display_title`): its `run-name`, when the workflow has one. */
  displayTitle?: string
  event: string
  headBranch: string
  headSha: string
  actor: UserModel
  status: 'queued' | 'in_progress' | 'completed'
  /** `startup_failure`: the workflow was not valid, and no job started. */
  conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped' | 'startup_failure' | null
  createdAt: string
  updatedAt: string
  startedAt: string | null
}
