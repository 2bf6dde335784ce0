// API faults (issue 7, item 7), as a campaign on top of test/integration/github: a loopback REST stand-in
// injects random 5xx, 429, secondary rate limits, dropped connections and lost answers into many sticky
// comment updates and label reads. Retries stay within bounds and the loop's comment is never posted twice.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OctokitGitHub } from '../../src/adapters/github.js'
import { GitHubPermissionError } from '../../src/ports/github.js'
import { recordProof } from './record-proof.js'

const figures: Record<string, unknown> = {}
recordProof('apiFaults', () => figures)

const FAULTS = ['500', '502', '503', '504', '429', 'secondary', 'drop', 'lost-answer'] as const
type Fault = (typeof FAULTS)[number] | 'none'

let server: Server
let baseUrl = ''
let plan: Fault[] = []
const comments: { id: number; body: string }[] = []
let posts = 0
let attempts = 0
let injected = 0
let nextId = 1

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

async function body(req: IncomingMessage): Promise<{ body?: string }> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const data = await body(req)
    attempts++
    const fault = plan.shift() ?? 'none'
    const url = req.url ?? ''
    const write = req.method === 'POST' || req.method === 'PATCH'
    if (fault !== 'none' && fault !== 'lost-answer') {
      injected++
      if (fault === 'drop') return req.socket.destroy()
      if (fault === '429') return json(res, 429, { message: 'Too Many Requests' }, { 'retry-after': '0' })
      if (fault === 'secondary') {
        return json(res, 403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '0' })
      }
      return json(res, Number(fault), { message: 'Server Error' })
    }
    if (req.method === 'GET' && /\/issues\/1\/comments/.test(url)) return json(res, 200, comments)
    if (req.method === 'GET' && /\/issues\/1\/labels/.test(url)) return json(res, 200, [{ name: 'loop/running' }])
    if (req.method === 'GET' && /\/issues\/2\/labels/.test(url))
      return json(res, 403, { message: 'Resource not accessible by integration' })
    if (req.method === 'POST' && /\/issues\/1\/comments$/.test(url)) {
      posts++
      // Posted with the job's GITHUB_TOKEN: GitHub names the app's bot as the author (GET /user is 404 here).
      const user = { login: 'github-actions[bot]', type: 'Bot' }
      const created = { id: nextId++, body: data.body ?? '', html_url: 'https://github.test/c', user }
      comments.push(created)
      if (fault === 'lost-answer') {
        injected++
        return json(res, 502, { message: 'Bad Gateway' })
      }
      return json(res, 201, created)
    }
    if (req.method === 'PATCH' && /\/issues\/comments\/\d+$/.test(url)) {
      const target = comments.find((c) => c.id === Number(url.split('/').pop()))
      if (!target) return json(res, 404, { message: 'Not Found' })
      if (fault === 'lost-answer') {
        injected++
        target.body = data.body ?? ''
        return json(res, 502, { message: 'Bad Gateway' })
      }
      target.body = data.body ?? ''
      return json(res, 200, target)
    }
    if (write) return json(res, 404, { message: 'Not Found' })
    json(res, 404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const RETRIES = 3
const client = () =>
  new OctokitGitHub({
    token: 't',
    owner: 'o',
    repo: 'r',
    baseUrl,
    retries: RETRIES,
    retryBaseMs: 1,
    rateLimitUnitMs: 5,
  })

/** A deterministic PRNG so the campaign replays. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('API faults', () => {
  it('absorbs random faults within bounds and never posts the loop comment twice', async () => {
    const rand = random(3)
    const marker = '<!-- loop-controller:fault-campaign -->'
    let operations = 0
    let failedCleanly = 0
    const rounds = Number(process.env.API_FAULT_ROUNDS ?? 24)
    for (let round = 0; round < rounds; round++) {
      // One or two faults ahead of each operation: within the retry budget.
      plan = Array.from(
        { length: 1 + Math.floor(rand() * 2) },
        () => FAULTS[Math.floor(rand() * FAULTS.length)] as Fault,
      )
      const before = attempts
      operations++
      try {
        if (round % 3 === 2) expect(await client().listLabels(1)).toEqual(['loop/running'])
        else await client().upsertStickyComment({ issueNumber: 1, marker, body: `${marker}\nround ${round}` })
      } catch (error) {
        // A give-up must say why, with the status; never a silent success.
        failedCleanly++
        expect(String(error)).toMatch(/\d{3}|rate limit|socket|ECONNRESET|other side closed/i)
      }
      // Bounded: a GET of the list, then at most retries+1 tries of each request.
      expect(attempts - before).toBeLessThanOrEqual(3 * (RETRIES + 1) + 3)
      plan = []
    }
    expect(posts).toBe(1)
    expect(comments.filter((c) => c.body.startsWith(marker))).toHaveLength(1)
    expect(failedCleanly).toBeLessThanOrEqual(operations / 4)
    Object.assign(figures, {
      operations,
      injected,
      succeeded: operations - failedCleanly,
      gaveUpNamingTheStatus: failedCleanly,
      commentsPosted: posts,
    })
    console.log(
      `api: ${operations} operations under ${injected} injected faults (5xx, 429, secondary rate limits, dropped connections, lost answers), ` +
        `${operations - failedCleanly} succeeded after retries, ${failedCleanly} gave up with the status named, 1 comment posted (never twice)`,
    )
  }, 60_000)

  it('a 403 names the missing permission', async () => {
    plan = []
    const error = await client()
      .listLabels(2)
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(GitHubPermissionError)
    expect(String(error)).toContain('issues: read')
    figures.permissionNamed = 'issues: read'
  })
})
