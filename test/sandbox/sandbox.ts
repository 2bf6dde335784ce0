// The whole GitHub sandbox on loopback: the REST API stand-in, the results service (cache and
// artifacts), a git remote, and the workflow engine that runs the action's bundle job after job.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { artifactsRestHandler } from './artifacts-rest.js'
import { GitServer } from './git-server.js'
import * as gh from './github-objects.js'
import { mergePullIntoBase, updatePullRefs } from './pull-refs.js'
import { type CacheEntry, type CacheIndex, type MountedHandler, type RestApi, startRestApi } from './rest-api.js'
import { ResultsServer } from './results-server.js'
import { type GitRemote, type JobRecord, WorkflowEngine } from './workflow-engine.js'
import { applyOverrides, parseWorkflow, type WorkflowSpec } from './workflow-file.js'

const run = promisify(execFile)

/** Links point where they do on GitHub (nothing connects there; see WorkflowEngineOptions.serverUrl). */
const SERVER_URL = 'https://github.com'

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** The action's folder (action.yml and its bundle, `dist/index.js` by default). */
  actionDir: string
  /** The repository's initial files (path → content), or a folder to copy (without .git and node_modules). */
  repoFiles?: Record<string, string>
  repoDir?: string
  owner?: string
  repo?: string
  defaultBranch?: string
  /** People and their permission on the repository; each gets a personal token (see `tokenOf`). */
  users?: Record<string, gh.RepoPermission>
  /**
   * The workflow. Read from `.github/workflows/<file>` in the repository when it exists; fields given
   * here override what the file says.
   */
  workflow: Partial<WorkflowSpec> & { file: string }
  maxJobs?: number
  jobTimeoutMs?: number
  secrets?: Record<string, string>
  vars?: Record<string, string>
  debug?: boolean
  extraEnv?: Record<string, string>
  /**
   * "Allow GitHub Actions to create and approve pull requests" (off by default, as on GitHub): when off,
   * the job's GITHUB_TOKEN gets GitHub's 403 on opening a pull request. See `RestApiOptions`.
   */
  actionsCanCreatePullRequests?: boolean
  /** Play an older GitHub Enterprise Server, which answers a dispatch asking for run details 400. */
  refusesRunDetails?: boolean
  /** Keep the sandbox's folder after `stop()` (to look at workspaces and summaries). */
  keep?: boolean
  /** Where to create the sandbox's folder (default: a new folder under the OS temp dir). */
  root?: string
}

/** The running sandbox. */
export interface Sandbox {
  root: string
  api: RestApi
  engine: WorkflowEngine
  results: ResultsServer
  git: SandboxGit
  /** The `git http-backend` server behind the remote (e.g. `rejectPushes(name, reason)`). */
  gitServer: GitServer
  /** The repository's name on the git server (`owner/repo.git`). */
  gitRepositoryName: string
  /** Every job so far (live array). */
  jobs: JobRecord[]
  /** The owner's personal token, and each user's (`ghp_<login>`), for a test's own API calls. */
  tokenOf(login: string): string
  /** A person presses "Run workflow": `POST .../dispatches` through the API (validated like any call). */
  dispatch(inputs?: Record<string, string>, options?: { ref?: string; actor?: string }): Promise<{ runId: number }>
  waitForIdle(timeoutMs?: number): Promise<JobRecord[]>
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
  stop(): Promise<void>
}

/** The sandbox's git remote, with the means to change it as someone else would. */
export interface SandboxGit extends GitRemote {
  /** Commits files on a branch of the remote as `author` (a push from someone else); returns the sha. */
  commit(branch: string, files: Record<string, string>, message: string, author?: string): Promise<string>
  /** The sha a ref points at, or undefined. */
  resolveRef(ref: string): string | undefined
  /** A file's content at a ref of the remote, or undefined. */
  show(ref: string, path: string): Promise<string | undefined>
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

const gitEnv = (author: string) => ({
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: author,
  GIT_AUTHOR_EMAIL: `${author}@users.noreply.example.invalid`,
  GIT_COMMITTER_NAME: author,
  GIT_COMMITTER_EMAIL: `${author}@users.noreply.example.invalid`,
})

async function git(cwd: string, args: string[], author = 'sandbox'): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: gitEnv(author), maxBuffer: 64 * 1024 * 1024 })
  return stdout.trim()
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    if (path.startsWith('/') || path.split('/').includes('..')) {
      throw new Error(`sandbox: repository file paths must be relative and stay inside; got '${path}'`)
    }
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
}

/** Reads the results server's cache entries for the REST caches endpoints. */
function cacheIndexOf(results: ResultsServer): CacheIndex {
  // ResultsServer keeps its entries private; until it exposes a listing, read the field it keeps them in.
  const entries = () =>
    ((results as unknown as { cacheEntries?: RawCacheEntry[] }).cacheEntries ?? []).filter((e) => e.finalized)
  return {
    list: (): CacheEntry[] =>
      entries().map((e) => ({
        id: e.id,
        key: e.key,
        ref: e.scope,
        version: e.version,
        sizeInBytes: e.sizeBytes,
        createdAt: new Date(e.createdAt).toISOString(),
        lastAccessedAt: new Date(e.createdAt).toISOString(),
      })),
    delete: (id: number): boolean => {
      const all = (results as unknown as { cacheEntries?: RawCacheEntry[] }).cacheEntries ?? []
      const index = all.findIndex((e) => e.id === id)
      if (index >= 0) all.splice(index, 1)
      return index >= 0
    },
  }
}

interface RawCacheEntry {
  id: number
  key: string
  version: string
  scope: string
  createdAt: number
  finalized: boolean
  sizeBytes: number
}

/**
 * The artifact REST handlers (artifacts-rest.ts) check one token of their own; the REST stand-in has
 * already authenticated the caller and checked its `actions` permission, so it hands them that token.
 */
function mountArtifacts(results: ResultsServer): MountedHandler {
  const internalToken = `sandbox-internal-${randomBytes(12).toString('hex')}`
  const handler = artifactsRestHandler(results, { token: internalToken })
  return (req, res, url) => {
    req.headers.authorization = `token ${internalToken}`
    return handler(req, res, url)
  }
}

/**
 * The git remote as GitHub serves it: `git http-backend` (git-server.ts) behind a front that takes the
 * same tokens as the API (`x-access-token:<token>` basic auth): a job's GITHUB_TOKEN while the job runs,
 * or a person's token; fetching needs `contents: read`, pushing `contents: write`.
 */
async function startGitFront(
  api: RestApi,
  backend: GitServer,
  backendToken: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const backendAuth = `Basic ${Buffer.from(`x-access-token:${backendToken}`).toString('base64')}`
  const server = createServer((req, res) => {
    const basic = /^basic\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : ''
    const grant = api.grantOf(password)
    const pushing = (req.url ?? '').includes('git-receive-pack')
    const level = grant?.permissions.contents
    const allowed = grant !== undefined && (pushing ? level === 'write' : level === 'read' || level === 'write')
    if (!allowed) {
      // GitHub answers an unknown token with 401 and a token without contents permission with 403.
      res.writeHead(grant ? 403 : 401, {
        'content-type': 'text/plain',
        ...(grant ? {} : { 'www-authenticate': 'Basic realm="GitHub"' }),
      })
      res.end(grant ? 'Permission to the repository denied.\n' : 'Invalid username or token.\n')
      req.resume()
      return
    }
    const target = new URL(req.url ?? '/', backend.url)
    const forward = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, authorization: backendAuth } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Starts everything on 127.0.0.1 and seeds the remote; stop it with `stop()`. */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const owner = options.owner ?? 'acme'
  const repoName = options.repo ?? 'demo'
  const defaultBranch = options.defaultBranch ?? 'main'
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'loop-sandbox-'))
  mkdirSync(root, { recursive: true })

  // The remote: a bare repository behind `git http-backend`, seeded with the project's files.
  const backendToken = randomBytes(16).toString('hex')
  const gitServer = await GitServer.start({ token: backendToken })
  const repoPathOnServer = `${owner}/${repoName}.git`
  await gitServer.createRepository(repoPathOnServer)
  const bareDir = gitServer.repositoryPath(repoPathOnServer)
  await git(bareDir, ['symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`])
  const seed = join(root, 'seed')
  mkdirSync(seed, { recursive: true })
  await git(seed, ['init', '--quiet', `--initial-branch=${defaultBranch}`])
  if (options.repoDir) {
    cpSync(options.repoDir, seed, {
      recursive: true,
      filter: (source) => !/(^|\/)(\.git|node_modules)(\/|$)/.test(source.slice(options.repoDir?.length ?? 0)),
    })
  }
  writeFiles(seed, options.repoFiles ?? {})
  await git(seed, ['add', '-A'])
  await git(seed, ['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], owner)
  await git(seed, ['push', '--quiet', bareDir, `HEAD:refs/heads/${defaultBranch}`])

  const workflowPath = [
    join(seed, '.github', 'workflows', options.workflow.file),
    join(seed, '.github', options.workflow.file),
  ].find(existsSync)
  const fromFile = workflowPath ? parseWorkflow(options.workflow.file, readFileSync(workflowPath, 'utf8')) : undefined
  const workflow: WorkflowSpec = applyOverrides(fromFile, options.workflow)

  const results = await ResultsServer.start({ defaultRef: `refs/heads/${defaultBranch}` })
  const users = options.users ?? {}
  const api = await startRestApi({
    owner,
    repo: repoName,
    defaultBranch,
    users,
    caches: cacheIndexOf(results),
    artifacts: mountArtifacts(results),
    serverUrl: SERVER_URL,
    actionsCanCreatePullRequests: options.actionsCanCreatePullRequests ?? false,
    refusesRunDetails: options.refusesRunDetails ?? false,
    resolveRef: (ref) => remoteGit.resolveRef(ref.startsWith('refs/') ? ref : `refs/heads/${ref}`),
    mergePull: (pull) => mergePullIntoBase(bareDir, pull),
  })
  const tokenOf = (login: string) => `ghp_${login.replace(/[^A-Za-z0-9]/g, '')}`
  for (const login of [owner, ...Object.keys(users)]) {
    const permission = api.model.user(login).permission
    const level = permission === 'admin' || permission === 'maintain' || permission === 'write' ? 'write' : 'read'
    api.addToken(tokenOf(login), {
      actor: login,
      kind: 'user',
      permissions: {
        actions: level,
        contents: level,
        issues: level === 'write' || permission === 'triage' ? 'write' : 'read',
        'pull-requests': level,
        checks: level,
      },
    })
  }

  const gitFront = await startGitFront(api, gitServer, backendToken)
  const remoteGit: SandboxGit = {
    cloneUrl: `${gitFront.url}/${repoPathOnServer}`,
    bareDir,
    resolveRef: (ref) => engine.resolveRef(ref),
    async commit(branch, files, message, author = owner) {
      const work = mkdtempSync(join(root, 'push-'))
      try {
        await git(work, ['init', '--quiet'])
        const exists = remoteGit.resolveRef(`refs/heads/${branch}`) !== undefined
        await git(work, ['fetch', '--quiet', bareDir, exists ? `refs/heads/${branch}` : `refs/heads/${defaultBranch}`])
        await git(work, ['checkout', '--quiet', '-B', branch, 'FETCH_HEAD'])
        writeFiles(work, files)
        await git(work, ['add', '-A'])
        await git(work, ['commit', '--quiet', '-m', message], author)
        await git(work, ['push', '--quiet', bareDir, `HEAD:refs/heads/${branch}`])
        return await git(work, ['rev-parse', 'HEAD'])
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    },
    async show(ref, path) {
      try {
        return (await run('git', ['--git-dir', bareDir, 'show', `${ref}:${path}`], { maxBuffer: 64 * 1024 * 1024 }))
          .stdout
      } catch {
        return undefined
      }
    },
  }

  const engine = new WorkflowEngine({
    api,
    remote: remoteGit,
    results,
    actionDir: options.actionDir,
    workflow,
    root,
    ...(options.maxJobs === undefined ? {} : { maxJobs: options.maxJobs }),
    ...(options.jobTimeoutMs === undefined ? {} : { jobTimeoutMs: options.jobTimeoutMs }),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.vars ? { vars: options.vars } : {}),
    ...(options.debug ? { debug: true } : {}),
    ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
  })

  const model = api.model
  const ctx = (): gh.UrlContext => ({ apiUrl: api.url, serverUrl: SERVER_URL })
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

  const sandbox: Sandbox = {
    root,
    api,
    engine,
    results,
    git: remoteGit,
    gitServer,
    gitRepositoryName: repoPathOnServer,
    jobs: engine.jobs,
    tokenOf,
    async dispatch(inputs = {}, dispatchOptions = {}) {
      // An older Enterprise Server takes no `return_run_details`: its 204 names no run, the engine does.
      const details = options.refusesRunDetails !== true
      const reply = (await asPerson(
        dispatchOptions.actor ?? owner,
        'POST',
        `${repoPath}/actions/workflows/${encodeURIComponent(workflow.file)}/dispatches`,
        { ref: dispatchOptions.ref ?? defaultBranch, inputs, ...(details ? { return_run_details: true } : {}) },
      )) as { workflow_run_id: number } | undefined
      return { runId: reply?.workflow_run_id ?? engine.jobs.at(-1)?.runId ?? 0 }
    },
    waitForIdle: (timeoutMs) => engine.waitForIdle(timeoutMs),
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
    async stop() {
      await engine.stop()
      await api.stop()
      await gitFront.stop()
      await gitServer.close()
      await results.close()
      if (!options.keep) rmSync(root, { recursive: true, force: true })
    },
  }

  function latestOpen(): number {
    const open = [...model.issues.values()].filter((i) => i.state === 'open')
    const target = open.filter((i) => i.pull).at(-1) ?? open.at(-1)
    if (!target) throw new Error('sandbox: comment() needs an issue number: there is no open pull request or issue')
    return target.number
  }

  return sandbox
}
