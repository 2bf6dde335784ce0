import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { githubDescription } from '../sandbox/openapi.js'
import { type RestApi, startRestApi } from '../sandbox/rest-api.js'

const MAIN_SHA = 'a'.repeat(40)
const BRANCH_SHA = 'b'.repeat(40)
let api: RestApi

beforeEach(async () => {
  api = await startRestApi({
    owner: 'acme',
    repo: 'demo',
    users: { alice: 'write', bob: 'read', maya: 'maintain' },
    tokens: {
      full: {
        actor: 'github-actions[bot]',
        kind: 'installation',
        permissions: { actions: 'write', contents: 'write', issues: 'write', 'pull-requests': 'write' },
      },
      readonly: {
        actor: 'github-actions[bot]',
        kind: 'installation',
        permissions: { issues: 'read', 'pull-requests': 'read' },
      },
    },
    resolveRef: (ref) => ({ main: MAIN_SHA, 'loop/one': BRANCH_SHA })[ref],
    // These tests open pull requests with the job's token; the setting itself has its own test below.
    actionsCanCreatePullRequests: true,
  })
})
afterEach(async () => {
  await api.stop()
})

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${api.url}${path}`, {
    ...init,
    headers: { authorization: `token ${init.token ?? 'full'}`, 'content-type': 'application/json' },
  })

describe('REST API stand-in: OpenAPI validation', () => {
  it('answers 422 to a request GitHub would reject and records the violation', async () => {
    const missing = await call('/repos/acme/demo/pulls', { method: 'POST', body: JSON.stringify({ head: 'loop/one' }) })
    expect(missing.status).toBe(422)
    const wrongType = await call('/repos/acme/demo/actions/workflows/loop.yml/dispatches', {
      method: 'POST',
      body: JSON.stringify({ ref: 7 }),
    })
    expect(wrongType.status).toBe(422)
    const badEnum = await call('/repos/acme/demo/pulls?state=merged')
    expect(badEnum.status).toBe(422)
    expect(await badEnum.json()).toMatchObject({
      message: expect.stringContaining('"merged" is not one of "open", "closed", "all"'),
    })
    expect(api.violations).toEqual([
      "request pulls/create (POST /repos/acme/demo/pulls): body: missing required property 'base'",
      'request actions/create-workflow-dispatch (POST /repos/acme/demo/actions/workflows/loop.yml/dispatches): body.ref: expected string, got integer',
      'request pulls/list (GET /repos/acme/demo/pulls): query.state: "merged" is not one of "open", "closed", "all"',
    ])
  })

  it('records a response that does not match GitHub schema', async () => {
    const issue = api.model.createIssue(api.model.user('alice'), 'a title', null)
    ;(issue as unknown as { title: number }).title = 42
    const response = await call(`/repos/acme/demo/issues/${issue.number}`)
    expect(response.status).toBe(200)
    expect(api.violations).toEqual(['response issues/get 200: response.title: expected string, got integer'])
  })

  it('records calls to operations GitHub has and the stand-in does not serve, naming the operation', async () => {
    const response = await call('/repos/acme/demo/deployments')
    expect(response.status).toBe(404)
    expect(api.violations).toEqual([
      'unimplemented operation: repos/list-deployments (GET /repos/{owner}/{repo}/deployments) requested as GET /repos/acme/demo/deployments; the stand-in does not serve it yet',
    ])
  })

  it('records calls to paths that are no operation of GitHub', async () => {
    const response = await call('/repos/acme/demo/no-such-thing')
    expect(response.status).toBe(404)
    expect(api.violations).toEqual([
      expect.stringMatching(
        /^unknown endpoint: GET \/repos\/acme\/demo\/no-such-thing is no operation of GitHub's REST description \(@octokit\/openapi 23\.0\.2 /,
      ),
    ])
  })

  it('serves what an Octokit client does in a loop, all on-schema', async () => {
    const octokit = getOctokit('full', { baseUrl: api.url })
    const repo = { owner: 'acme', repo: 'demo' }
    const created = await octokit.rest.pulls.create({ ...repo, head: 'loop/one', base: 'main', title: 'loop' })
    const listed = await octokit.rest.pulls.list({ ...repo, head: 'acme:loop/one', state: 'open' })
    expect(listed.data.map((p) => p.number)).toEqual([created.data.number])
    expect((await octokit.rest.pulls.list({ ...repo, head: 'acme:other' })).data).toEqual([])
    await expect(octokit.rest.pulls.create({ ...repo, head: 'loop/one', base: 'main' })).rejects.toMatchObject({
      status: 422,
    })
    await octokit.rest.pulls.update({ ...repo, pull_number: created.data.number, body: 'updated' })
    for (let i = 0; i < 7; i++) {
      await octokit.rest.issues.createComment({ ...repo, issue_number: created.data.number, body: `comment ${i}` })
    }
    const page = await octokit.rest.issues.listComments({ ...repo, issue_number: created.data.number, per_page: 3 })
    expect(page.headers.link).toContain('rel="next"')
    expect(page.headers.link).toContain('page=3')
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...repo,
      issue_number: created.data.number,
      per_page: 3,
    })
    expect(all.map((c) => c.body)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `comment ${i}`))
    const first = all[0]?.id ?? 0
    await octokit.rest.issues.updateComment({ ...repo, comment_id: first, body: 'edited' })
    await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: created.data.number,
      labels: ['loop/approved:deploy', 'x'],
    })
    await octokit.rest.issues.removeLabel({ ...repo, issue_number: created.data.number, name: 'x' })
    const labels = await octokit.rest.issues.listLabelsOnIssue({ ...repo, issue_number: created.data.number })
    expect(labels.data.map((l) => l.name)).toEqual(['loop/approved:deploy'])
    api.model.addReview(api.model.user('alice'), created.data.number, 'APPROVED', 'ok')
    const reviews = await octokit.rest.pulls.listReviews({ ...repo, pull_number: created.data.number })
    expect(reviews.data.map((r) => [r.user?.login, r.state])).toEqual([['alice', 'APPROVED']])
    const permission = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data
    expect(await permission('alice')).toMatchObject({ permission: 'write', role_name: 'write' })
    expect(await permission('maya')).toMatchObject({ permission: 'write', role_name: 'maintain' })
    expect(await permission('bob')).toMatchObject({ permission: 'read' })
    await expect(permission('nobody')).rejects.toMatchObject({ status: 404 })
    await expect(octokit.rest.pulls.checkIfMerged({ ...repo, pull_number: created.data.number })).rejects.toMatchObject(
      {
        status: 404,
      },
    )
    await octokit.rest.pulls.merge({ ...repo, pull_number: created.data.number })
    expect((await octokit.rest.pulls.checkIfMerged({ ...repo, pull_number: created.data.number })).status).toBe(204)
    expect((await octokit.rest.pulls.get({ ...repo, pull_number: created.data.number })).data.merged).toBe(true)
    await octokit.rest.repos.get(repo)
    await octokit.rest.rateLimit.get()
    expect(api.violations).toEqual([])
  })

  it('pages lists as GitHub does: 30 by default, at most 100, Link with absolute prev/next/last/first', async () => {
    const issue = api.model.createIssue(api.model.user('alice'), 'busy', null)
    for (let index = 0; index < 150; index++) api.model.addComment(api.model.user('bob'), issue.number, `c${index}`)
    const comments = `/repos/acme/demo/issues/${issue.number}/comments`
    const first = await call(comments)
    expect(((await first.json()) as unknown[]).length).toBe(30)
    expect(first.headers.get('link')).toBe(
      `<${api.url}${comments}?per_page=30&page=2>; rel="next", <${api.url}${comments}?per_page=30&page=5>; rel="last"`,
    )
    const middle = await call(`${comments}?per_page=50&page=2`)
    expect(middle.headers.get('link')).toBe(
      [
        `<${api.url}${comments}?per_page=50&page=1>; rel="prev"`,
        `<${api.url}${comments}?per_page=50&page=3>; rel="next"`,
        `<${api.url}${comments}?per_page=50&page=3>; rel="last"`,
        `<${api.url}${comments}?per_page=50&page=1>; rel="first"`,
      ].join(', '),
    )
    const capped = await call(`${comments}?per_page=500&page=2`)
    expect(((await capped.json()) as { body: string }[]).map((c) => c.body)).toEqual(
      Array.from({ length: 50 }, (_, index) => `c${index + 100}`),
    )
    expect(capped.headers.get('link')).toBe(
      `<${api.url}${comments}?per_page=100&page=1>; rel="prev", <${api.url}${comments}?per_page=100&page=1>; rel="first"`,
    )
    const octokit = getOctokit('full', { baseUrl: api.url })
    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      owner: 'acme',
      repo: 'demo',
      issue_number: issue.number,
      per_page: 100,
    })
    expect(all.map((c) => c.body)).toEqual(Array.from({ length: 150 }, (_, index) => `c${index}`))
    expect(api.violations).toEqual([])
  })

  it('lists and deletes caches by key', async () => {
    const at = '2026-01-01T00:00:00Z'
    api.model.caches.push(
      {
        id: 1,
        key: 'loop-state-1',
        ref: 'refs/heads/main',
        version: 'v',
        sizeInBytes: 10,
        createdAt: at,
        lastAccessedAt: at,
      },
      {
        id: 2,
        key: 'loop-state-2',
        ref: 'refs/heads/main',
        version: 'v',
        sizeInBytes: 20,
        createdAt: at,
        lastAccessedAt: at,
      },
    )
    const octokit = getOctokit('full', { baseUrl: api.url })
    const list = await octokit.rest.actions.getActionsCacheList({ owner: 'acme', repo: 'demo', key: 'loop-state-' })
    expect(list.data.total_count).toBe(2)
    const deleted = await octokit.rest.actions.deleteActionsCacheByKey({
      owner: 'acme',
      repo: 'demo',
      key: 'loop-state-1',
    })
    expect(deleted.data.actions_caches.map((c) => c.id)).toEqual([1])
    expect(api.model.caches.map((c) => c.key)).toEqual(['loop-state-2'])
    expect(api.violations).toEqual([])
  })
})

describe('REST API stand-in: permissions and faults', () => {
  it('answers 403 naming the missing permission when the token lacks it', async () => {
    const pull = api.model.createPull(api.model.user('alice'), {
      title: 't',
      body: null,
      head: 'loop/one',
      headSha: BRANCH_SHA,
      base: 'main',
      baseSha: MAIN_SHA,
    })
    const response = await call(`/repos/acme/demo/issues/${pull.number}/comments`, {
      method: 'POST',
      token: 'readonly',
      body: JSON.stringify({ body: 'hi' }),
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('x-accepted-github-permissions')).toBe('issues=write')
    expect(await response.json()).toMatchObject({ message: 'Resource not accessible by integration' })
    expect((await call(`/repos/acme/demo/issues/${pull.number}`, { token: 'readonly' })).status).toBe(200)
    expect((await call('/repos/acme/demo', { token: 'nope' })).status).toBe(401)
  })

  it('refuses the GITHUB_TOKEN a pull request while "Allow GitHub Actions to create and approve pull requests" is off, as GitHub does', async () => {
    api.setActionsCanCreatePullRequests(false)
    const open = (token: string) =>
      call('/repos/acme/demo/pulls', {
        method: 'POST',
        token,
        body: JSON.stringify({ head: 'loop/one', base: 'main', title: 'loop' }),
      })
    const refused = await open('full')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      message: 'GitHub Actions is not permitted to create or approve pull requests.',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      status: '403',
    })
    // A person's token (or another app's) is not the GitHub Actions app's: the setting does not apply.
    api.addToken('alice-pat', {
      actor: 'alice',
      kind: 'user',
      permissions: { contents: 'write', 'pull-requests': 'write' },
    })
    expect((await open('alice-pat')).status).toBe(201)
    expect(api.violations).toEqual([])
  })

  it('starts with the setting off, as a new repository on GitHub', async () => {
    const fresh = await startRestApi({
      owner: 'acme',
      repo: 'fresh',
      tokens: {
        full: { actor: 'github-actions[bot]', kind: 'installation', permissions: { 'pull-requests': 'write' } },
      },
      resolveRef: (ref) => ({ main: MAIN_SHA, 'loop/one': BRANCH_SHA })[ref],
    })
    try {
      const response = await fetch(`${fresh.url}/repos/acme/fresh/pulls`, {
        method: 'POST',
        headers: { authorization: 'token full', 'content-type': 'application/json' },
        body: JSON.stringify({ head: 'loop/one', base: 'main' }),
      })
      expect(response.status).toBe(403)
      fresh.setActionsCanCreatePullRequests(true)
      const allowed = await fetch(`${fresh.url}/repos/acme/fresh/pulls`, {
        method: 'POST',
        headers: { authorization: 'token full', 'content-type': 'application/json' },
        body: JSON.stringify({ head: 'loop/one', base: 'main' }),
      })
      expect(allowed.status).toBe(201)
    } finally {
      await fresh.stop()
    }
  })

  it('injects 5xx a given number of times, then serves', async () => {
    api.inject({ match: 'POST /repos/*/dispatches', status: 502, times: 2 })
    api.onDispatch(() => ({ runId: 77 }))
    const dispatch = () =>
      call('/repos/acme/demo/actions/workflows/loop.yml/dispatches', {
        method: 'POST',
        body: JSON.stringify({ ref: 'main' }),
      })
    expect((await dispatch()).status).toBe(502)
    expect((await dispatch()).status).toBe(502)
    expect((await dispatch()).status).toBe(204)
    expect(api.exchanges.map((e) => [e.status, e.fault])).toEqual([
      [502, true],
      [502, true],
      [204, false],
    ])
  })

  it('injects secondary rate limits with retry-after and the secondary-limit message', async () => {
    api.inject({ match: 'GET /repos/acme/demo', secondaryRateLimit: { status: 429, retryAfterSeconds: 1 }, times: 1 })
    const limited = await call('/repos/acme/demo')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('1')
    expect(await limited.json()).toMatchObject({ message: expect.stringContaining('secondary rate limit') })
    expect((await call('/repos/acme/demo')).status).toBe(200)
  })

  it('injects latency', async () => {
    api.inject({ match: 'GET /repos/acme/demo', latencyMs: 300, times: 1 })
    const started = Date.now()
    expect((await call('/repos/acme/demo')).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('sends rate-limit headers and answers 403 when the primary limit is spent', async () => {
    const ok = await call('/repos/acme/demo')
    // GITHUB_TOKEN: 1,000 an hour per repository, shared by every job's token.
    expect(ok.headers.get('x-ratelimit-limit')).toBe('1000')
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('999')
    expect((await call('/repos/acme/demo', { token: 'readonly' })).headers.get('x-ratelimit-remaining')).toBe('998')
    // A person's token: 5,000 an hour of its own.
    api.addToken('alice-token', { actor: 'alice', kind: 'user', permissions: {} })
    const person = await call('/repos/acme/demo', { token: 'alice-token' })
    expect([person.headers.get('x-ratelimit-limit'), person.headers.get('x-ratelimit-remaining')]).toEqual([
      '5000',
      '4999',
    ])
    api.setRepositoryRateLimit(0, 3000)
    for (const token of ['full', 'readonly']) {
      const spent = await call('/repos/acme/demo', { token })
      expect(spent.status).toBe(403)
      expect(spent.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(spent.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 + 2900)
      expect(await spent.json()).toMatchObject({
        message: expect.stringMatching(/^API rate limit exceeded for installation ID \d+\.$/),
      })
    }
    expect((await call('/repos/acme/demo', { token: 'alice-token' })).status).toBe(200)
    api.setRateLimit('alice-token', 0, 60)
    expect((await call('/repos/acme/demo', { token: 'alice-token' })).status).toBe(403)
  })
})

describe('OpenApiDescription', () => {
  it('routes every operation of GitHub description, literal segments before parameters', () => {
    const subset = githubDescription()
    expect(subset.source).toMatch(/^@octokit\/openapi 23\.0\.2 /)
    expect(subset.operationKeys().length).toBeGreaterThan(1000)
    expect(subset.match('GET', '/repos/o/r/commits/a/b/status')?.pathParams.ref).toBe('a/b')
    expect(subset.match('PATCH', '/repos/o/r/issues/comments/5')?.operation.operationId).toBe('issues/update-comment')
    expect(subset.match('PATCH', '/repos/o/r/issues/5')?.operation.operationId).toBe('issues/update')
    expect(subset.match('DELETE', '/repos/o/r/issues/5/labels/loop%2Fstop')?.pathParams.name).toBe('loop/stop')
  })
})
