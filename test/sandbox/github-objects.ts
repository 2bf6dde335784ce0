// Builders for the JSON objects GitHub's REST API returns (users, repositories, issues, pull requests,
// comments, labels, reviews, workflow runs), complete enough to satisfy the official schemas the
// sandbox validates every response against.
import type {
  CommentModel,
  IssueModel,
  LabelModel,
  RepoModel,
  ReviewModel,
  RunModel,
  UrlContext,
  UserModel,
} from './github-object-models.js'

export type {
  CommentModel,
  IssueModel,
  LabelModel,
  PullModel,
  RepoModel,
  RepoPermission,
  ReviewModel,
  RunModel,
  UrlContext,
  UserModel,
} from './github-object-models.js'

/** GitHub's global node id of an object (`PR_...` in GraphQL); opaque to clients. */
export const nodeId = (kind: string, id: number): string => Buffer.from(`${kind}:${id}`).toString('base64url')

/**
 * `simple-user`. The login is percent-encoded in links, as GitHub sends them
 * (`https://api.github.com/users/github-actions%5Bbot%5D`): a bare `[bot]` is no RFC 3986 URI. A bot's
 * page is its app's (`https://github.com/apps/github-actions`).
 */
export function simpleUser(ctx: UrlContext, user: UserModel): Record<string, unknown> {
  const api = `${ctx.apiUrl}/users/${encodeURIComponent(user.login)}`
  const appSlug = user.type === 'Bot' ? user.login.replace(/\[bot\]$/, '') : undefined
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId('U', user.id),
    avatar_url: `${ctx.serverUrl}/avatars/${appSlug ? 'in' : 'u'}/${user.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: appSlug
      ? `${ctx.serverUrl}/apps/${encodeURIComponent(appSlug)}`
      : `${ctx.serverUrl}/${encodeURIComponent(user.login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: user.type,
    site_admin: false,
    user_view_type: 'public',
  }
}

/** `public-user` (what `GET /user` returns for a personal token). */
export function publicUser(ctx: UrlContext, user: UserModel, now: string): Record<string, unknown> {
  return {
    ...simpleUser(ctx, user),
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 1,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: now,
    updated_at: now,
  }
}

/** `repository` / `full-repository` / `minimal-repository` (the fields all three require). */
export function repository(ctx: UrlContext, repo: RepoModel, now: string): Record<string, unknown> {
  const fullName = `${repo.owner.login}/${repo.name}`
  const api = `${ctx.apiUrl}/repos/${fullName}`
  const html = `${ctx.serverUrl}/${fullName}`
  const templated = (name: string, suffix: string) => [`${name}_url`, `${api}/${suffix}`] as const
  return {
    id: repo.id,
    node_id: nodeId('R', repo.id),
    name: repo.name,
    full_name: fullName,
    owner: simpleUser(ctx, repo.owner),
    private: repo.private,
    visibility: repo.private ? 'private' : 'public',
    fork: repo.fork,
    description: null,
    html_url: html,
    url: api,
    ...Object.fromEntries([
      templated('archive', '{archive_format}{/ref}'),
      templated('assignees', 'assignees{/user}'),
      templated('blobs', 'git/blobs{/sha}'),
      templated('branches', 'branches{/branch}'),
      templated('collaborators', 'collaborators{/collaborator}'),
      templated('comments', 'comments{/number}'),
      templated('commits', 'commits{/sha}'),
      templated('compare', 'compare/{base}...{head}'),
      templated('contents', 'contents/{+path}'),
      templated('contributors', 'contributors'),
      templated('deployments', 'deployments'),
      templated('downloads', 'downloads'),
      templated('events', 'events'),
      templated('forks', 'forks'),
      templated('git_commits', 'git/commits{/sha}'),
      templated('git_refs', 'git/refs{/sha}'),
      templated('git_tags', 'git/tags{/sha}'),
      templated('hooks', 'hooks'),
      templated('issue_comment', 'issues/comments{/number}'),
      templated('issue_events', 'issues/events{/number}'),
      templated('issues', 'issues{/number}'),
      templated('keys', 'keys{/key_id}'),
      templated('labels', 'labels{/name}'),
      templated('languages', 'languages'),
      templated('merges', 'merges'),
      templated('milestones', 'milestones{/number}'),
      templated('notifications', 'notifications{?since,all,participating}'),
      templated('pulls', 'pulls{/number}'),
      templated('releases', 'releases{/id}'),
      templated('stargazers', 'stargazers'),
      templated('statuses', 'statuses/{sha}'),
      templated('subscribers', 'subscribers'),
      templated('subscription', 'subscription'),
      templated('tags', 'tags'),
      templated('teams', 'teams'),
      templated('trees', 'git/trees{/sha}'),
    ]),
    clone_url: `${html}.git`,
    git_url: `${html.replace(/^https?:/, 'git:')}.git`,
    ssh_url: `git@${new URL(ctx.serverUrl).hostname}:${fullName}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: 'TypeScript',
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 1,
    default_branch: repo.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    license: null,
    pushed_at: now,
    created_at: repo.createdAt,
    updated_at: now,
    network_count: 0,
    subscribers_count: 0,
  }
}

/** `label`. */
export function label(ctx: UrlContext, repo: RepoModel, model: LabelModel): Record<string, unknown> {
  return {
    id: model.id,
    node_id: nodeId('LA', model.id),
    url: `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}/labels/${encodeURIComponent(model.name)}`,
    name: model.name,
    description: model.description,
    color: model.color,
    default: false,
  }
}

const authorAssociation = (user: UserModel, repo: RepoModel): string => {
  if (user.login === repo.owner.login) return 'OWNER'
  if (user.permission === 'admin' || user.permission === 'maintain' || user.permission === 'write') {
    return 'COLLABORATOR'
  }
  return 'NONE'
}

/** `issue` (a pull request's issue side carries `pull_request`). */
export function issue(ctx: UrlContext, repo: RepoModel, model: IssueModel, commentCount: number) {
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const html = `${ctx.serverUrl}/${repo.owner.login}/${repo.name}`
  const url = `${api}/issues/${model.number}`
  return {
    id: model.id,
    node_id: nodeId('I', model.id),
    url,
    repository_url: api,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${html}/${model.pull ? 'pull' : 'issues'}/${model.number}`,
    number: model.number,
    state: model.state,
    state_reason: model.state === 'closed' ? (model.stateReason ?? 'completed') : null,
    title: model.title,
    body: model.body,
    user: simpleUser(ctx, model.user),
    labels: model.labels.map((l) => label(ctx, repo, l)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: commentCount,
    closed_at: model.closedAt,
    created_at: model.createdAt,
    updated_at: model.updatedAt,
    author_association: authorAssociation(model.user, repo),
    ...(model.pull
      ? {
          pull_request: {
            url: `${api}/pulls/${model.number}`,
            html_url: `${html}/pull/${model.number}`,
            diff_url: `${html}/pull/${model.number}.diff`,
            patch_url: `${html}/pull/${model.number}.patch`,
            merged_at: model.pull.mergedAt,
          },
        }
      : {}),
  }
}

/** `pull-request-simple`; with `full`, `pull-request`. */
export function pullRequest(
  ctx: UrlContext,
  repo: RepoModel,
  model: IssueModel,
  counts: { comments: number; reviewComments: number },
  now: string,
  full: boolean,
): Record<string, unknown> {
  const pull = model.pull
  if (!pull) throw new Error(`pullRequest: #${model.number} is an issue, not a pull request`)
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const html = `${ctx.serverUrl}/${repo.owner.login}/${repo.name}`
  const url = `${api}/pulls/${model.number}`
  const link = (href: string) => ({ href })
  const simple = {
    url,
    id: pull.id,
    node_id: nodeId('PR', pull.id),
    html_url: `${html}/pull/${model.number}`,
    diff_url: `${html}/pull/${model.number}.diff`,
    patch_url: `${html}/pull/${model.number}.patch`,
    issue_url: `${api}/issues/${model.number}`,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${model.number}/comments`,
    statuses_url: `${api}/statuses/${pull.head.sha}`,
    number: model.number,
    state: model.state,
    locked: false,
    title: model.title,
    user: simpleUser(ctx, model.user),
    body: model.body,
    labels: model.labels.map((l) => label(ctx, repo, l)),
    milestone: null,
    active_lock_reason: null,
    created_at: model.createdAt,
    updated_at: model.updatedAt,
    closed_at: model.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: {
      label: `${pull.head.repo.owner.login}:${pull.head.ref}`,
      ref: pull.head.ref,
      sha: pull.head.sha,
      user: simpleUser(ctx, pull.head.user),
      repo: repository(ctx, pull.head.repo, now),
    },
    base: {
      label: `${repo.owner.login}:${pull.base.ref}`,
      ref: pull.base.ref,
      sha: pull.base.sha,
      user: simpleUser(ctx, repo.owner),
      repo: repository(ctx, repo, now),
    },
    _links: {
      self: link(url),
      html: link(`${html}/pull/${model.number}`),
      issue: link(`${api}/issues/${model.number}`),
      comments: link(`${api}/issues/${model.number}/comments`),
      review_comments: link(`${url}/comments`),
      review_comment: link(`${api}/pulls/comments{/number}`),
      commits: link(`${url}/commits`),
      statuses: link(`${api}/statuses/${pull.head.sha}`),
    },
    author_association: authorAssociation(model.user, repo),
    auto_merge: null,
    draft: pull.draft,
  }
  if (!full) return simple
  return {
    ...simple,
    merged: pull.merged,
    mergeable: model.state === 'open' ? true : null,
    rebaseable: model.state === 'open' ? true : null,
    mergeable_state: model.state === 'open' ? 'clean' : 'unknown',
    merged_by: pull.mergedBy ? simpleUser(ctx, pull.mergedBy) : null,
    comments: counts.comments,
    review_comments: counts.reviewComments,
    maintainer_can_modify: pull.maintainerCanModify,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  }
}

/** `issue-comment`. */
export function comment(ctx: UrlContext, repo: RepoModel, model: CommentModel, isPull: boolean) {
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const html = `${ctx.serverUrl}/${repo.owner.login}/${repo.name}`
  return {
    id: model.id,
    node_id: nodeId('IC', model.id),
    url: `${api}/issues/comments/${model.id}`,
    html_url: `${html}/${isPull ? 'pull' : 'issues'}/${model.issueNumber}#issuecomment-${model.id}`,
    issue_url: `${api}/issues/${model.issueNumber}`,
    body: model.body,
    user: simpleUser(ctx, model.user),
    created_at: model.createdAt,
    updated_at: model.updatedAt,
    author_association: authorAssociation(model.user, repo),
  }
}

/** `pull-request-review`. */
export function review(ctx: UrlContext, repo: RepoModel, model: ReviewModel) {
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const html = `${ctx.serverUrl}/${repo.owner.login}/${repo.name}/pull/${model.pullNumber}`
  return {
    id: model.id,
    node_id: nodeId('PRR', model.id),
    user: simpleUser(ctx, model.user),
    body: model.body,
    state: model.state,
    html_url: `${html}#pullrequestreview-${model.id}`,
    pull_request_url: `${api}/pulls/${model.pullNumber}`,
    _links: {
      html: { href: `${html}#pullrequestreview-${model.id}` },
      pull_request: { href: `${api}/pulls/${model.pullNumber}` },
    },
    submitted_at: model.submittedAt,
    commit_id: model.commitId,
    author_association: authorAssociation(model.user, repo),
  }
}

/** `workflow-run`. */
export function workflowRun(ctx: UrlContext, repo: RepoModel, model: RunModel, now: string) {
  const api = `${ctx.apiUrl}/repos/${repo.owner.login}/${repo.name}`
  const url = `${api}/actions/runs/${model.id}`
  const minimal = repository(ctx, repo, now)
  return {
    id: model.id,
    name: model.workflowName,
    node_id: nodeId('WFR', model.id),
    head_branch: model.headBranch,
    head_sha: model.headSha,
    path: model.workflowPath,
    display_title: model.displayTitle ?? model.workflowName,
    run_number: model.runNumber,
    run_attempt: model.runAttempt,
    event: model.event,
    status: model.status,
    conclusion: model.conclusion,
    workflow_id: model.workflowId,
    url,
    html_url: `${ctx.serverUrl}/${repo.owner.login}/${repo.name}/actions/runs/${model.id}`,
    pull_requests: [],
    created_at: model.createdAt,
    updated_at: model.updatedAt,
    run_started_at: model.startedAt ?? model.createdAt,
    actor: simpleUser(ctx, model.actor),
    triggering_actor: simpleUser(ctx, model.actor),
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${api}/check-suites/${model.id}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    workflow_url: `${api}/actions/workflows/${model.workflowId}`,
    head_commit: null,
    repository: minimal,
    head_repository: minimal,
  }
}
