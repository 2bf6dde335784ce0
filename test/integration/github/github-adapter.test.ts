// The Octokit adapter against a tiny REST stand-in on 127.0.0.1 (only the routes these tests need).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OctokitGitHub, permissionFor } from '../../../src/adapters/github.js'
import { GitHubPermissionError, GitHubRateLimitedError } from '../../../src/ports/github.js'

interface Recorded {
  method: string
  path: string
  body: unknown
  auth: string | undefined
}
type Handler = (req: Recorded, res: ServerResponse) => void

let server: Server
let baseUrl = ''
let routes: Array<{ method: string; pattern: RegExp; handler: Handler }> = []
let requests: Recorded[] = []

function route(method: string, pattern: RegExp, handler: Handler): void {
  routes.push({ method, pattern, handler })
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body === undefined ? '' : JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const recorded: Recorded = {
      method: req.method ?? '',
      path: req.url ?? '',
      body: await readBody(req),
      auth: req.headers.authorization,
    }
    requests.push(recorded)
    const match = routes.find((r) => r.method === recorded.method && r.pattern.test(recorded.path))
    if (match) match.handler(recorded, res)
    else json(res, 404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  routes = []
  requests = []
})

/** The adapter against the stand-in; the throttling plugin only where a test is about rate limits. */
function client(options: { throttle?: boolean; warnings?: string[] } = {}): OctokitGitHub {
  const { warnings } = options
  return new OctokitGitHub({
    token: 'test-token',
    owner: 'o',
    repo: 'r',
    baseUrl,
    retryBaseMs: 1,
    throttle: options.throttle ?? false,
    rateLimitUnitMs: 10,
    ...(warnings ? { logger: { warning: (message: string) => warnings.push(message), debug: () => {} } } : {}),
  })
}

/** A comment as the API lists it; by default the job token's own (an installation token posts as its bot). */
function comment(id: number, body: string, user = { login: 'github-actions[bot]', type: 'Bot' }) {
  return { id, body, html_url: `https://github.test/o/r/issues/1#issuecomment-${id}`, user }
}

describe('dispatchWorkflow', () => {
  it('asks for run details and returns them (200)', async () => {
    route('POST', /\/actions\/workflows\/loop\.yml\/dispatches$/, (_req, res) =>
      json(res, 200, { workflow_run_id: 99, run_url: 'https://api/run/99', html_url: 'https://gh/run/99' }),
    )
    const run = await client().dispatchWorkflow({ workflow: 'loop.yml', ref: 'main', inputs: { iteration: '3' } })
    expect(run).toEqual({ runId: 99, runUrl: 'https://api/run/99', htmlUrl: 'https://gh/run/99' })
    expect(requests[0]).toMatchObject({
      path: '/repos/o/r/actions/workflows/loop.yml/dispatches',
      body: { ref: 'main', inputs: { iteration: '3' }, return_run_details: true },
      auth: 'token test-token',
    })
  })

  it('accepts 204', async () => {
    route('POST', /dispatches$/, (_req, res) => {
      res.writeHead(204)
      res.end()
    })
    expect(await client().dispatchWorkflow({ workflow: 1234, ref: 'main', inputs: {} })).toEqual({})
  })

  it('names the missing permission on 403', async () => {
    route('POST', /dispatches$/, (_req, res) => json(res, 403, { message: 'Resource not accessible by integration' }))
    const error = await client()
      .dispatchWorkflow({ workflow: 'loop.yml', ref: 'main', inputs: {} })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GitHubPermissionError)
    expect((error as GitHubPermissionError).permission).toBe('actions: write')
    expect((error as Error).message).toContain("The token needs 'actions: write'")
    expect(requests).toHaveLength(1)
  })

  it('retries a server error a bounded number of times', async () => {
    let calls = 0
    route('POST', /dispatches$/, (_req, res) => {
      calls++
      if (calls < 3) json(res, 502, { message: 'Bad Gateway' })
      else json(res, 200, { workflow_run_id: 5 })
    })
    expect(await client().dispatchWorkflow({ workflow: 'loop.yml', ref: 'main', inputs: {} })).toEqual({ runId: 5 })
    expect(calls).toBe(3)
  })

  it('gives up after the retries with the status in the message', async () => {
    route('POST', /dispatches$/, (_req, res) => json(res, 500, { message: 'boom' }))
    await expect(client().dispatchWorkflow({ workflow: 'loop.yml', ref: 'main', inputs: {} })).rejects.toThrow(
      /GitHub POST \/repos\/o\/r\/actions\/workflows\/loop.yml\/dispatches failed \(500\)/,
    )
    expect(requests).toHaveLength(4)
  })
})

describe('upsertStickyComment', () => {
  const marker = '<!-- loop-controller:issue-1 -->'
  let stored: ReturnType<typeof comment>[] = []
  let failCreate = false
  let nextId = 100

  beforeEach(() => {
    stored = []
    failCreate = false
    route('GET', /\/issues\/1\/comments/, (req, res) => {
      const page = Number(new URL(req.path, baseUrl).searchParams.get('page') ?? '1')
      const pageSize = 2
      const slice = stored.slice((page - 1) * pageSize, page * pageSize)
      const headers: Record<string, string> =
        page * pageSize < stored.length
          ? { link: `<${baseUrl}/repos/o/r/issues/1/comments?per_page=100&page=${page + 1}>; rel="next"` }
          : {}
      json(res, 200, slice, headers)
    })
    route('POST', /\/issues\/1\/comments$/, (req, res) => {
      const created = comment(nextId++, (req.body as { body: string }).body)
      stored.push(created)
      // The comment is stored, but the answer is lost on the way back.
      if (failCreate) json(res, 502, { message: 'Bad Gateway' })
      else json(res, 201, created)
    })
    route('PATCH', /\/issues\/comments\/\d+$/, (req, res) => {
      const id = Number(req.path.split('/').pop())
      const target = stored.find((c) => c.id === id)
      if (!target) return json(res, 404, { message: 'Not Found' })
      target.body = (req.body as { body: string }).body
      json(res, 200, target)
    })
  })

  it('creates the comment when there is none', async () => {
    const ref = await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nhello` })
    expect(ref.created).toBe(true)
    expect(stored).toHaveLength(1)
    expect(stored[0]?.body).toBe(`${marker}\nhello`)
  })

  it('puts the marker first when the body lacks it', async () => {
    await client().upsertStickyComment({ issueNumber: 1, marker, body: 'hello' })
    expect(stored[0]?.body).toBe(`${marker}\nhello`)
  })

  it('finds the comment on a later page and updates it in place', async () => {
    stored = [
      comment(1, 'first'),
      comment(2, `> ${marker}\nsomeone quoting it`),
      comment(3, 'third'),
      comment(4, `${marker}\nold`),
    ]
    const ref = await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nnew` })
    expect(ref).toMatchObject({ id: 4, created: false })
    expect(stored.map((c) => c.body)).toEqual(['first', `> ${marker}\nsomeone quoting it`, 'third', `${marker}\nnew`])
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0)
  })

  it('leaves a marker in someone else`s comment alone: a person`s, or another account`s when the token knows its own', async () => {
    const pasted = `${marker}\nfake status`
    stored = [comment(1, pasted, { login: 'mallory', type: 'User' })]
    const ref = await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nreal` })
    expect(ref.created).toBe(true)
    expect(ref.id).not.toBe(1)
    expect(stored[0]?.body).toBe(pasted)
    // A personal token knows its login (GET /user): a Bot's comment of another app is not its own either.
    route('GET', /^\/user$/, (_req, res) => json(res, 200, { login: 'loop-bot' }))
    stored = [comment(1, pasted), comment(2, `${marker}\nmine`, { login: 'loop-bot', type: 'User' })]
    expect(await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nnew` })).toMatchObject({
      id: 2,
      created: false,
    })
    expect(stored.map((c) => c.body)).toEqual([pasted, `${marker}\nnew`])
  })

  it('never posts twice when the create answer is lost', async () => {
    failCreate = true
    const ref = await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nv1` })
    expect(ref.created).toBe(false)
    expect(stored).toHaveLength(1)
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1)
  })

  it('names issues: write when commenting is refused', async () => {
    routes = routes.filter((r) => r.method !== 'POST')
    route('POST', /\/issues\/1\/comments$/, (_req, res) =>
      json(res, 403, { message: 'Resource not accessible by integration' }),
    )
    await expect(client().upsertStickyComment({ issueNumber: 1, marker, body: 'x' })).rejects.toThrow(
      "The token needs 'issues: write'",
    )
  })
})

describe('pull requests', () => {
  const pull = (number: number, ref = 'loop/issue-1') => ({
    number,
    html_url: `https://github.test/o/r/pull/${number}`,
    state: 'open',
    draft: true,
    merged: false,
    head: { ref, repo: { full_name: 'o/r' } },
    base: { ref: 'main' },
  })
  const request = { head: 'loop/issue-1', base: 'main', title: 't', body: 'b', draft: true }

  it('returns the open pull request instead of opening another', async () => {
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, [pull(7)]))
    const found = await client().findOrCreatePullRequest(request)
    expect(found).toMatchObject({ number: 7, created: false, draft: true, headRef: 'loop/issue-1' })
    expect(decodeURIComponent(requests[0]?.path ?? '')).toContain('head=o:loop/issue-1')
  })

  it('opens a draft pull request when there is none', async () => {
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, []))
    route('POST', /\/pulls$/, (_req, res) => json(res, 201, pull(8)))
    expect(await client().findOrCreatePullRequest(request)).toMatchObject({ number: 8, created: true })
    expect(requests[1]?.body).toMatchObject({ head: 'loop/issue-1', base: 'main', draft: true })
  })

  it('uses the pull request that appeared meanwhile on 422', async () => {
    let lists = 0
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, lists++ === 0 ? [] : [pull(9)]))
    route('POST', /\/pulls$/, (_req, res) =>
      json(res, 422, { message: 'A pull request already exists for o:loop/issue-1.' }),
    )
    expect(await client().findOrCreatePullRequest(request)).toMatchObject({ number: 9, created: false })
  })

  it('falls back to a ready pull request where drafts are not supported', async () => {
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, []))
    route('POST', /\/pulls$/, (req, res) =>
      (req.body as { draft: boolean }).draft
        ? json(res, 422, { message: 'Draft pull requests are not supported in this repository.' })
        : json(res, 201, { ...pull(10), draft: false }),
    )
    expect(await client().findOrCreatePullRequest(request)).toMatchObject({ number: 10, created: true, draft: false })
  })

  it("finds the open pull request of a loop's branch, or none, with one request", async () => {
    let answer = [pull(7)]
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, answer))
    expect(await client().findOpenPullRequest('loop/issue-1', 'main')).toMatchObject({ number: 7, state: 'open' })
    answer = []
    expect(await client().findOpenPullRequest('loop/issue-1', 'main')).toBeNull()
    const query = new URLSearchParams(requests[0]?.path.split('?')[1])
    expect([query.get('head'), query.get('base'), query.get('state')]).toEqual(['o:loop/issue-1', 'main', 'open'])
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET'])
  })

  it('names pull-requests: read when looking for the open pull request is refused', async () => {
    route('GET', /\/pulls\?/, (_req, res) => json(res, 403, { message: 'Resource not accessible by integration' }))
    await expect(client().findOpenPullRequest('loop/issue-1', 'main')).rejects.toThrow(
      "The token needs 'pull-requests: read'",
    )
  })

  it('reads merged state', async () => {
    route('GET', /\/pulls\/7$/, (_req, res) => json(res, 200, { ...pull(7), merged: true, state: 'closed' }))
    expect(await client().isPullRequestMerged(7)).toBe(true)
  })

  it('names pull-requests: write when opening is refused', async () => {
    route('GET', /\/pulls\?/, (_req, res) => json(res, 200, []))
    route('POST', /\/pulls$/, (_req, res) => json(res, 403, { message: 'Resource not accessible by integration' }))
    await expect(client().findOrCreatePullRequest(request)).rejects.toThrow("The token needs 'pull-requests: write'")
  })
})

describe('people and labels', () => {
  it.each([
    { data: { permission: 'write', role_name: 'maintain' }, expected: 'maintain' },
    { data: { permission: 'admin' }, expected: 'admin' },
    { data: { permission: 'read', role_name: 'triage' }, expected: 'triage' },
  ])('reads the permission $expected', async ({ data, expected }) => {
    route('GET', /\/collaborators\/alice\/permission$/, (_req, res) => json(res, 200, data))
    expect(await client().getPermission('alice')).toBe(expected)
  })

  it('treats an unknown user as none', async () => {
    expect(await client().getPermission('nobody')).toBe('none')
  })

  it('lists labels', async () => {
    route('GET', /\/issues\/3\/labels/, (_req, res) => json(res, 200, [{ name: 'loop' }, { name: 'loop/stop' }]))
    expect(await client().listLabels(3)).toEqual(['loop', 'loop/stop'])
  })

  it('falls back to the bot login for a token that cannot ask who it is', async () => {
    route('GET', /^\/user$/, (_req, res) => json(res, 403, { message: 'Resource not accessible by integration' }))
    expect(await client().getAuthenticatedLogin('github-actions[bot]')).toBe('github-actions[bot]')
    routes = []
    route('GET', /^\/user$/, (_req, res) => json(res, 200, { login: 'loop-bot' }))
    expect(await client().getAuthenticatedLogin('github-actions[bot]')).toBe('loop-bot')
  })
})

describe('throttling', () => {
  it('waits out a secondary rate limit and retries', async () => {
    let calls = 0
    route('GET', /\/issues\/5\/labels/, (_req, res) => {
      calls++
      if (calls === 1) json(res, 403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '1' })
      else json(res, 200, [{ name: 'ok' }])
    })
    expect(await client({ throttle: true }).listLabels(5)).toEqual(['ok'])
    expect(calls).toBe(2)
  })

  /** GitHub's answer when the primary limit is spent until `resetInSeconds` from now. */
  function primaryLimit(res: ServerResponse, resetInSeconds: number) {
    const reset = Math.floor(Date.now() / 1000) + resetInSeconds
    json(
      res,
      403,
      { message: 'API rate limit exceeded for installation ID 1.' },
      { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
    )
  }

  it('gives up at once on a primary limit that resets later than a job waits, naming the reset', async () => {
    route('POST', /dispatches$/, (_req, res) => primaryLimit(res, 3000))
    const warnings: string[] = []
    const error = await client({ throttle: true, warnings })
      .dispatchWorkflow({ workflow: 'loop.yml', ref: 'main', inputs: {} })
      .catch((e: unknown) => e)
    expect(requests).toHaveLength(1)
    expect(error).toBeInstanceOf(GitHubRateLimitedError)
    const resetAt = (error as GitHubRateLimitedError).resetAt?.getTime() ?? 0
    expect(resetAt - Date.now()).toBeGreaterThan(2900_000)
    expect((error as Error).message).toMatch(
      /^GitHub POST \/repos\/o\/r\/actions\/workflows\/loop\.yml\/dispatches was not made: the API rate limit is used up until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(403: API rate limit exceeded/,
    )
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^GitHub primary rate limit on POST .*dispatches: it resets at \d{4}-.*Z \(in 30\d\d s\), later than the 60 s a job waits; giving up on this call now\.$/,
    )
  })

  it('waits for a primary limit that resets within the bound, and retries', async () => {
    let calls = 0
    route('GET', /\/issues\/5\/labels/, (_req, res) => {
      calls++
      if (calls === 1) primaryLimit(res, 2)
      else json(res, 200, [{ name: 'ok' }])
    })
    const warnings: string[] = []
    expect(await client({ throttle: true, warnings }).listLabels(5)).toEqual(['ok'])
    expect(calls).toBe(2)
    expect(warnings[0]).toMatch(/^GitHub primary rate limit on GET .*labels\?per_page=100; retrying after [1-4] s\.$/)
  })
})

describe('permissionFor', () => {
  it.each([
    { method: 'POST', route: '/repos/o/r/actions/workflows/x/dispatches', expected: 'actions: write' },
    { method: 'GET', route: '/repos/o/r/actions/runs/1/attempts/1/jobs', expected: 'actions: read' },
    { method: 'PATCH', route: '/repos/o/r/pulls/1', expected: 'pull-requests: write' },
    { method: 'GET', route: '/repos/o/r/pulls/1/reviews', expected: 'pull-requests: read' },
    { method: 'POST', route: '/repos/o/r/issues/1/comments', expected: 'issues: write' },
    { method: 'PUT', route: '/repos/o/r/contents/a.txt', expected: 'contents: write' },
  ])('$method $route needs $expected', ({ method, route: path, expected }) => {
    expect(permissionFor(method, path)).toBe(expected)
  })
})

describe('getIssueKind', () => {
  const issue = (number: number, repository: string, extra: Record<string, unknown> = {}) => ({
    number,
    repository_url: `${baseUrl}/repos/${repository}`,
    ...extra,
  })

  it('tells an issue, a pull request and a number that names nothing apart', async () => {
    route('GET', /\/repos\/o\/r\/issues\/3$/, (_req, res) => json(res, 200, issue(3, 'o/r')))
    route('GET', /\/repos\/o\/r\/issues\/7$/, (_req, res) => json(res, 200, issue(7, 'o/r', { pull_request: {} })))
    const github = client()
    expect([await github.getIssueKind(3), await github.getIssueKind(7), await github.getIssueKind(42)]).toEqual([
      'issue',
      'pull-request',
      'none',
    ])
  })

  it('says `moved` for an issue transferred to another repository (GitHub answers 301 to it)', async () => {
    route('GET', /\/repos\/o\/r\/issues\/12$/, (_req, res) => {
      res.writeHead(301, { location: `${baseUrl}/repositories/99/issues/4` })
      res.end()
    })
    route('GET', /\/repositories\/99\/issues\/4$/, (_req, res) => json(res, 200, issue(4, 'o/elsewhere')))
    expect(await client().getIssueKind(12)).toBe('moved')
    // The client followed the redirect: what it judged is the other repository's issue.
    expect(requests.map((req) => req.path)).toEqual(['/repos/o/r/issues/12', '/repositories/99/issues/4'])
  })
})
