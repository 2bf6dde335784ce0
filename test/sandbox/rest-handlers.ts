// The REST stand-in's operations, by GitHub operationId: each reads and changes the in-memory model and
// answers as GitHub does. Routing, authentication, validation and faults are rest-api.ts's.
import { ApiError, type CacheEntry, type CacheIndex, type GitHubModel } from './github-model.js'
import * as gh from './github-objects.js'
import { paginate } from './pagination.js'
import type { DispatchHandler } from './rest-api.js'
import { workflowJob } from './run-jobs.js'

export const DOCS = 'https://docs.github.com/rest'
/** The GitHub Actions app's bot: the actor of every job's GITHUB_TOKEN. */
export const ACTIONS_BOT = 'github-actions[bot]'

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface HandlerContext {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
  actor: gh.UserModel
  url: URL
}

/** What the operations read beyond the model: settings and links that change while the API runs. */
export interface HandlerEnvironment {
  model: GitHubModel
  caches: CacheIndex
  /** Resolves a branch or sha to a commit sha (the git remote); unknown refs give undefined. */
  resolveRef: ((ref: string) => string | undefined) | undefined
  /** Merges a pull request's head into its base on the git remote; returns the merge commit. */
  mergePull: ((pull: { number: number; headRef: string; headSha: string; baseRef: string }) => string) | undefined
  dispatchHandler(): DispatchHandler | undefined
  /** An older GitHub Enterprise Server: a dispatch that asks for `return_run_details` is a 400. */
  refusesRunDetails(): boolean
  apiUrl(): string
  ctx(): gh.UrlContext
  actionsCanCreatePullRequests(): boolean
  /** Where a job's log is served, as GitHub's 302 points at it: a signed URL of blob storage. */
  jobLogUrl: ((jobId: number, log: string) => string) | undefined
}

/** The operations the stand-in implements; any other operation of GitHub's description is a violation. */
export function createHandlers(env: HandlerEnvironment): Record<string, (c: HandlerContext) => Reply> {
  const { model, caches, ctx } = env
  const options = { resolveRef: env.resolveRef }
  const handlers: Record<string, (c: HandlerContext) => Reply> = {
    'actions/create-workflow-dispatch': (c) => {
      const dispatchHandler = env.dispatchHandler()
      if (!dispatchHandler) throw new ApiError(404, 'Not Found')
      if (env.refusesRunDetails() && 'return_run_details' in c.body) {
        throw new ApiError(400, 'Invalid request.\n\n"return_run_details" is not a permitted key.')
      }
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
          run_url: `${env.apiUrl()}/repos/${repoPath}/actions/runs/${runId}`,
          html_url: `${ctx().serverUrl}/${repoPath}/actions/runs/${runId}`,
        },
      }
    },
    'actions/list-workflow-runs': (c) => {
      const workflow = c.params.workflow_id ?? ''
      const event = c.query.get('event')
      const branch = c.query.get('branch')
      const runs = [...model.runs.values()]
        .filter((run) => run.workflowPath.endsWith(`/${workflow}`) || String(run.workflowId) === workflow)
        .filter((run) => (event === null || run.event === event) && (branch === null || run.headBranch === branch))
        .sort((a, b) => b.id - a.id)
      const { page, headers } = paginate(runs, c.url)
      const body = {
        total_count: runs.length,
        workflow_runs: page.map((run) => gh.workflowRun(ctx(), model.repo, run, model.now())),
      }
      return { status: 200, headers, body }
    },
    'actions/get-workflow-run': (c) => {
      const run = model.runs.get(Number(c.params.run_id))
      if (!run) throw new ApiError(404, 'Not Found')
      return { status: 200, body: gh.workflowRun(ctx(), model.repo, run, model.now()) }
    },
    'actions/list-jobs-for-workflow-run-attempt': (c) => {
      const run = model.runs.get(Number(c.params.run_id))
      const attempt = Number(c.params.attempt_number)
      if (!run || !(attempt >= 1 && attempt <= run.runAttempt)) throw new ApiError(404, 'Not Found')
      const jobs = model.jobs.filter((job) => job.runId === run.id && job.runAttempt === attempt)
      const { page, headers } = paginate(jobs, c.url)
      const body = { total_count: jobs.length, jobs: page.map((job) => workflowJob(ctx(), model.repo, job)) }
      return { status: 200, headers, body }
    },
    'actions/download-job-logs-for-workflow-run': (c) => {
      const job = model.jobs.find((j) => j.id === Number(c.params.job_id))
      // A job still going has no log file yet.
      if (!job?.log) throw new ApiError(404, 'Not Found')
      if (!env.jobLogUrl) throw new Error('the stand-in was started without a place to serve job logs (jobLogUrl)')
      return { status: 302, headers: { location: env.jobLogUrl(job.id, job.log) } }
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
    'issues/list-for-repo': (c) => {
      // GitHub's issues list holds pull requests too; `labels` is a comma-separated list that must all match.
      const state = c.query.get('state') ?? 'open'
      const labels = (c.query.get('labels') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean)
      const creator = c.query.get('creator')?.toLowerCase() ?? null
      const sort = c.query.get('sort') ?? 'created'
      if (sort !== 'created' && sort !== 'updated') {
        throw new ApiError(422, `the sandbox sorts issues by created or updated only; got sort=${sort}`)
      }
      const direction = c.query.get('direction') ?? 'desc'
      const key = sort === 'updated' ? 'updatedAt' : 'createdAt'
      const matching = [...model.issues.values()]
        .filter((i) => state === 'all' || i.state === state)
        .filter((i) => labels.every((name) => i.labels.some((l) => l.name.toLowerCase() === name)))
        .filter((i) => creator === null || i.user.login.toLowerCase() === creator)
        .sort((a, b) => {
          const order = a[key] === b[key] ? a.number - b.number : a[key] < b[key] ? -1 : 1
          return direction === 'desc' ? -order : order
        })
      const { page, headers } = paginate(matching, c.url)
      return { status: 200, headers, body: page.map(issueJson) }
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
          location: `${env.apiUrl()}/repos/${model.repo.owner.login}/${model.repo.name}/issues/comments/${created.id}`,
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
      if (!env.actionsCanCreatePullRequests() && c.actor.login === ACTIONS_BOT) {
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
      // GitHub merges no draft: it must be marked ready for review first.
      if (target.pull.draft) throw new ApiError(405, 'Pull Request is still a draft')
      const mergeSha = env.mergePull?.({
        number: target.number,
        headRef: target.pull.head.ref,
        headSha: target.pull.head.sha,
        baseRef: target.pull.base.ref,
      })
      target.pull.merged = true
      target.pull.mergedAt = model.now()
      target.pull.mergedBy = c.actor
      target.pull.mergeCommitSha = mergeSha ?? target.pull.head.sha
      target.state = 'closed'
      target.closedAt = target.pull.mergedAt
      return {
        status: 200,
        body: { sha: target.pull.mergeCommitSha, merged: true, message: 'Pull Request successfully merged' },
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
      // GitHub ignores state_reason unless the state changes; `reopened` is the reason of an open issue.
      const reason = body.state_reason
      if (body.state === 'closed')
        target.stateReason = reason === 'not_planned' || reason === 'duplicate' ? reason : 'completed'
      else delete target.stateReason
    }
    target.updatedAt = model.now()
  }

  return handlers
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
