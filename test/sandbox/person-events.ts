// What people do on the repository (dispatch, comment, label, review, edit, open, merge, fork): each
// through the API as that person, validated like the action's calls, then the event GitHub would send.
import * as gh from './github-objects.js'
import { updatePullRefs } from './pull-refs.js'
import { git, type SandboxGit } from './remote-repo.js'
import type { RestApi } from './rest-api.js'
import type { JobRecord, WorkflowEngine } from './workflow-engine.js'

/** The people's side of the sandbox (see `Sandbox`). */
export interface PersonActions {
  /** A person presses "Run workflow": `POST .../dispatches` through the API (validated like any call). */
  dispatch(inputs?: Record<string, string>, options?: { ref?: string; actor?: string }): Promise<{ runId: number }>
  /** A person comments on an issue or pull request (the latest open pull request, else issue, when omitted). */
  comment(user: string, body: string, issueNumber?: number): Promise<{ commentId: number; job: JobRecord | undefined }>
  /** A person adds a label (`issues`/`pull_request` `labeled` event). */
  label(user: string, issueNumber: number, name: string): Promise<JobRecord | undefined>
  /** A person submits a pull request review (`pull_request_review` `submitted` event). */
  review(
    user: string,
    pullNumber: number,
    state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED',
    body?: string,
  ): Promise<JobRecord | undefined>
  /**
   * A person edits an issue's body (`PATCH .../issues/N` through the API, as ticking a task-list box
   * does), then the `issues` `edited` event with `changes.body.from`, the body before the edit.
   */
  editIssue(user: string, issueNumber: number, body: string): Promise<JobRecord | undefined>
  /** A person opens an issue (`issues` `opened` event). */
  openIssue(user: string, title: string, body?: string): Promise<{ number: number; job: JobRecord | undefined }>
  /**
   * A person merges a pull request (`PUT .../merge` through the API, which refuses a draft as GitHub does),
   * then the `pull_request` `closed` event with `merged`, on the pull request's merge ref.
   */
  merge(user: string, pullNumber: number): Promise<JobRecord | undefined>
  /** Someone with a fork opens a pull request from it (`pull_request_target` `opened` event). */
  openForkPullRequest(
    user: string,
    change: { branch: string; files: Record<string, string>; title?: string; body?: string },
  ): Promise<{ number: number; job: JobRecord | undefined }>
}

/** The reaction rollup of an issue nobody reacted to, as webhooks send it. */
const noReactions = (issueUrl: string) => ({
  url: `${issueUrl}/reactions`,
  total_count: 0,
  '+1': 0,
  '-1': 0,
  laugh: 0,
  confused: 0,
  heart: 0,
  hooray: 0,
  eyes: 0,
  rocket: 0,
})

export interface PersonActionsDeps {
  api: RestApi
  engine: WorkflowEngine
  remoteGit: SandboxGit
  bareDir: string
  owner: string
  repoName: string
  defaultBranch: string
  serverUrl: string
  workflowFile: string
  refusesRunDetails: boolean
  tokenOf(login: string): string
}

export function personActions(deps: PersonActionsDeps): PersonActions {
  const { api, engine, remoteGit, bareDir, owner, repoName, defaultBranch, tokenOf } = deps
  const model = api.model
  const ctx = (): gh.UrlContext => ({ apiUrl: api.url, serverUrl: deps.serverUrl })
  const repositoryJson = () => gh.repository(ctx(), model.repo, model.now())
  const issueJson = (i: gh.IssueModel) => gh.issue(ctx(), model.repo, i, model.commentCount(i.number))
  const pullJson = (i: gh.IssueModel) =>
    gh.pullRequest(
      ctx(),
      model.repo,
      i,
      { comments: model.commentCount(i.number), reviewComments: 0 },
      model.now(),
      true,
    )
  /**
   * Where GitHub runs a pull request's `pull_request` and `pull_request_review` workflows: its merge ref
   * (`refs/pull/N/merge`, a test merge of the head into the base), brought up to date first.
   */
  const mergeRefOf = (i: gh.IssueModel): string => {
    if (!i.pull) throw new Error(`sandbox: #${i.number} is not a pull request`)
    const headSha =
      i.pull.head.repo === model.repo
        ? (remoteGit.resolveRef(`refs/heads/${i.pull.head.ref}`) ?? i.pull.head.sha)
        : i.pull.head.sha
    const ref = updatePullRefs(bareDir, { number: i.number, headSha, baseRef: i.pull.base.ref })
    if (!ref)
      throw new Error(
        `sandbox: #${i.number} conflicts with ${i.pull.base.ref}; GitHub runs no pull_request workflow for it`,
      )
    return ref
  }

  /** Calls the API as a person, so the call is validated and recorded like the action's. */
  async function asPerson(login: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `token ${tokenOf(login)}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`sandbox: ${login}'s ${method} ${path} answered ${response.status}: ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  const repoPath = `/repos/${owner}/${repoName}`

  function latestOpen(): number {
    const open = [...model.issues.values()].filter((i) => i.state === 'open')
    const target = open.filter((i) => i.pull).at(-1) ?? open.at(-1)
    if (!target) throw new Error('sandbox: comment() needs an issue number: there is no open pull request or issue')
    return target.number
  }

  return {
    async dispatch(inputs = {}, dispatchOptions = {}) {
      // An older Enterprise Server takes no `return_run_details`: its 204 names no run, the engine does.
      const details = deps.refusesRunDetails !== true
      const reply = (await asPerson(
        dispatchOptions.actor ?? owner,
        'POST',
        `${repoPath}/actions/workflows/${encodeURIComponent(deps.workflowFile)}/dispatches`,
        { ref: dispatchOptions.ref ?? defaultBranch, inputs, ...(details ? { return_run_details: true } : {}) },
      )) as { workflow_run_id: number } | undefined
      return { runId: reply?.workflow_run_id ?? engine.jobs.at(-1)?.runId ?? 0 }
    },
    async comment(user, body, issueNumber) {
      const target = issueNumber ?? latestOpen()
      const created = (await asPerson(user, 'POST', `${repoPath}/issues/${target}/comments`, { body })) as {
        id: number
      }
      const issue = model.issue(target)
      const comment = model.comments.find((c) => c.id === created.id)
      if (!comment) throw new Error(`sandbox: comment ${created.id} vanished`)
      const job = engine.trigger(
        'issue_comment',
        {
          action: 'created',
          issue: issueJson(issue),
          comment: gh.comment(ctx(), model.repo, comment, issue.pull !== undefined),
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), model.user(user)),
        },
        model.user(user),
      )
      return { commentId: created.id, job }
    },
    async label(user, issueNumber, name) {
      await asPerson(user, 'POST', `${repoPath}/issues/${issueNumber}/labels`, { labels: [name] })
      const issue = model.issue(issueNumber)
      const labelModel = issue.labels.find((l) => l.name === name)
      if (!labelModel) throw new Error(`sandbox: label '${name}' was not added to #${issueNumber}`)
      const common = {
        action: 'labeled',
        label: gh.label(ctx(), model.repo, labelModel),
        repository: repositoryJson(),
        sender: gh.simpleUser(ctx(), model.user(user)),
      }
      if (issue.pull) {
        return engine.trigger(
          'pull_request',
          { ...common, number: issueNumber, pull_request: pullJson(issue) },
          model.user(user),
          mergeRefOf(issue),
        )
      }
      return engine.trigger('issues', { ...common, issue: issueJson(issue) }, model.user(user))
    },
    async review(user, pullNumber, state, body = '') {
      const pull = model.pull(pullNumber)
      const created = model.addReview(model.user(user), pullNumber, state, body)
      const reviewJson = gh.review(ctx(), model.repo, created)
      return engine.trigger(
        'pull_request_review',
        {
          action: 'submitted',
          // Webhook payloads spell review states in lower case, unlike the REST API.
          review: { ...reviewJson, state: state.toLowerCase() },
          pull_request: pullJson(pull),
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), model.user(user)),
        },
        model.user(user),
        mergeRefOf(pull),
      )
    },
    async merge(user, pullNumber) {
      const pull = model.pull(pullNumber)
      const ref = mergeRefOf(pull)
      const merged = (await asPerson(user, 'PUT', `${repoPath}/pulls/${pullNumber}/merge`, {})) as { sha: string }
      return engine.trigger(
        'pull_request',
        {
          action: 'closed',
          number: pullNumber,
          pull_request: pullJson(pull),
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), model.user(user)),
        },
        model.user(user),
        ref,
        // GitHub's GITHUB_SHA for a merged pull request's `closed` event is the merge commit on the base.
        merged.sha,
      )
    },
    async editIssue(user, issueNumber, body) {
      const issue = model.issue(issueNumber)
      if (issue.pull) throw new Error(`sandbox: #${issueNumber} is a pull request; editIssue edits issues`)
      const before = issue.body
      // GitHub's `changes` holds only what changed: an edit that changes nothing is not modelled.
      if (before === body) throw new Error(`sandbox: the edit of #${issueNumber} leaves its body as it was`)
      await asPerson(user, 'PATCH', `${repoPath}/issues/${issueNumber}`, { body })
      return engine.trigger(
        'issues',
        {
          action: 'edited',
          changes: { body: { from: before ?? '' } },
          // The webhook's issue carries its reactions, which the REST issue the other events send need not.
          issue: {
            ...issueJson(model.issue(issueNumber)),
            reactions: noReactions(`${api.url}${repoPath}/issues/${issueNumber}`),
          },
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), model.user(user)),
        },
        model.user(user),
      )
    },
    async openIssue(user, title, body) {
      const created = (await asPerson(user, 'POST', `${repoPath}/issues`, { title, ...(body ? { body } : {}) })) as {
        number: number
      }
      const job = engine.trigger(
        'issues',
        {
          action: 'opened',
          issue: issueJson(model.issue(created.number)),
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), model.user(user)),
        },
        model.user(user),
      )
      return { number: created.number, job }
    },
    async openForkPullRequest(user, change) {
      const person = model.user(user)
      const forkRepo: gh.RepoModel = {
        id: model.id(),
        owner: person,
        name: repoName,
        defaultBranch,
        private: false,
        fork: true,
        createdAt: model.now(),
      }
      // GitHub keeps a fork pull request's head in the base repository as refs/pull/N/head.
      const headSha = await remoteGit.commit(
        `fork-${user}-${change.branch}`,
        change.files,
        change.title ?? change.branch,
        user,
      )
      const baseSha = remoteGit.resolveRef(`refs/heads/${defaultBranch}`) ?? ''
      const pull = model.createPull(
        person,
        {
          title: change.title ?? change.branch,
          body: change.body ?? null,
          head: change.branch,
          headSha,
          base: defaultBranch,
          baseSha,
        },
        { headRepo: forkRepo },
      )
      await git(bareDir, ['update-ref', `refs/pull/${pull.number}/head`, headSha])
      await git(bareDir, ['update-ref', '-d', `refs/heads/fork-${user}-${change.branch}`])
      const job = engine.trigger(
        'pull_request_target',
        {
          action: 'opened',
          number: pull.number,
          pull_request: pullJson(pull),
          repository: repositoryJson(),
          sender: gh.simpleUser(ctx(), person),
        },
        person,
      )
      return { number: pull.number, job }
    },
  }
}
