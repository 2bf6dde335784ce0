// A stand-in for GitHub's REST API on 127.0.0.1: an in-memory model of one repository (users, issues,
// pull requests, comments, labels, reviews, workflow runs, caches), with every request and response
// checked against GitHub's official OpenAPI description, token permissions enforced as GitHub does for
// GITHUB_TOKEN, rate-limit headers, and injectable faults (5xx, secondary rate limits, latency).
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApiError, type CacheIndex, GitHubModel } from './github-model.js'
import type * as gh from './github-objects.js'
import { serveGraphql } from './graphql-api.js'
import { githubDescription, type MatchedOperation } from './openapi.js'
import { RateLimits, rateHeaders, rateLimitBody } from './rate-limits.js'
import { type FaultRule, FaultRules, faultReply } from './rest-faults.js'
import { createHandlers, DOCS, type Reply } from './rest-handlers.js'
import { grants, permissionProblem, type TokenGrant } from './rest-permissions.js'

export { ApiError, type CacheEntry, type CacheIndex, GitHubModel } from './github-model.js'
export type {
  CommentModel,
  IssueModel,
  LabelModel,
  RepoModel,
  RepoPermission,
  ReviewModel,
  RunModel,
  UserModel,
} from './github-objects.js'
export type { FaultRule } from './rest-faults.js'
export type { Scope, TokenGrant } from './rest-permissions.js'

/** A `workflow_dispatch` as the API received it. */
export interface DispatchRequest {
  workflowId: string
  ref: string
  inputs: Record<string, string>
  actor: gh.UserModel
}

/** Starts a run for a dispatch; throws an {@link ApiError} to refuse it (GitHub's 404/422). */
export type DispatchHandler = (request: DispatchRequest) => { runId: number }

/** An extra handler mounted in front of the model (e.g. the artifact endpoints). True when it answered. */
export type MountedHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>

/** One request and its answer, as the stand-in saw them. */
export interface Exchange {
  method: string
  path: string
  operationId: string | undefined
  actor: string | undefined
  /** `installation` for a job's GITHUB_TOKEN (the action's own calls), `user` for a person's token. */
  tokenKind: TokenGrant['kind'] | undefined
  /** The token that made the request (a job's GITHUB_TOKEN names its job), once it authenticated. */
  token: string | undefined
  status: number
  requestBody: unknown
  responseBody: unknown
  fault: boolean
}

/** Options of {@link startRestApi}. */
export interface RestApiOptions {
  owner: string
  repo: string
  defaultBranch?: string
  /** People with their permission on the repository. */
  users?: Record<string, gh.RepoPermission>
  /** Tokens the API accepts. */
  tokens?: Record<string, TokenGrant>
  /** Calls per hour per user token before the primary rate limit answers 403 (default 5000, GitHub's). */
  rateLimit?: number
  /**
   * Calls per hour per repository that every installation token (each job's GITHUB_TOKEN) shares
   * before the primary rate limit answers 403: GitHub's 1,000 for GITHUB_TOKEN (default).
   */
  installationRateLimit?: number
  /** The web/git server root for links (defaults to the API's own URL). */
  serverUrl?: string
  /** Resolves a branch or sha to a commit sha (the git remote); unknown refs give undefined. */
  resolveRef?: (ref: string) => string | undefined
  /** An older GitHub Enterprise Server: refuses `return_run_details` on a dispatch (400). */
  refusesRunDetails?: boolean
  /** Merges a pull request's head into its base on the git remote; returns the merge commit. */
  mergePull?: (pull: { number: number; headRef: string; headSha: string; baseRef: string }) => string
  caches?: CacheIndex
  artifacts?: MountedHandler
  /**
   * The repository setting "Allow GitHub Actions to create and approve pull requests" (Settings →
   * Actions → General → Workflow permissions; `can_approve_pull_request_reviews` in the REST API). Off
   * by default, as on GitHub for new repositories and organizations: the job's GITHUB_TOKEN then gets 403
   * on `POST /pulls`, while a person's token or another app's is unaffected.
   */
  actionsCanCreatePullRequests?: boolean
  /** Stores a job's log where it can be downloaded and returns its signed URL (the 302 of a job's logs). */
  jobLogUrl?: (jobId: number, log: string) => string
}

const API_VERSION = '2022-11-28'

/** The running REST API stand-in. */
export interface RestApi {
  /** The API root, `http://127.0.0.1:PORT`. */
  readonly url: string
  readonly model: GitHubModel
  /** Problems found by validation (requests GitHub would reject, responses off-schema, unimplemented operations, unknown endpoints). */
  readonly violations: string[]
  /** Every request and its answer, in order. */
  readonly exchanges: Exchange[]
  /** Adds a fault rule; returns a function that removes it. */
  inject(rule: FaultRule): () => void
  /** Registers a token. */
  addToken(token: string, grant: TokenGrant): void
  /** Revokes a token (GitHub revokes a job's GITHUB_TOKEN when the job ends). */
  removeToken(token: string): void
  /** What a token may do, or undefined for an unknown or revoked token (the git remote asks this too). */
  grantOf(token: string): TokenGrant | undefined
  /** Sets what a `workflow_dispatch` does (the workflow engine). */
  onDispatch(handler: DispatchHandler): void
  /** Sets the web/git server root used in links. */
  setServerUrl(url: string): void
  /** Sets the remaining primary rate limit of a token (an installation token's is its repository's), and when it resets. */
  setRateLimit(token: string, remaining: number, resetInSeconds?: number): void
  /** Sets the remaining primary rate limit every job's GITHUB_TOKEN shares (the repository's), and when it resets. */
  setRepositoryRateLimit(remaining: number, resetInSeconds?: number): void
  /** A person with admin rights flips "Allow GitHub Actions to create and approve pull requests". */
  setActionsCanCreatePullRequests(allowed: boolean): void
  stop(): Promise<void>
}

/** Starts the REST API stand-in on 127.0.0.1 (a free port). */
export async function startRestApi(options: RestApiOptions): Promise<RestApi> {
  const openapi = githubDescription()
  const model = new GitHubModel(options.owner, options.repo, options.defaultBranch ?? 'main', () => new Date())
  for (const [login, permission] of Object.entries(options.users ?? {})) model.addUser(login, permission)
  const tokens = new Map(Object.entries(options.tokens ?? {}))
  for (const grant of tokens.values())
    if (!model.users.has(grant.actor.toLowerCase())) model.addUser(grant.actor, 'none')
  const faults = new FaultRules()
  const violations: string[] = []
  const exchanges: Exchange[] = []
  const rates = new RateLimits(
    options.rateLimit ?? 5000,
    options.installationRateLimit ?? 1000,
    (token) => tokens.get(token)?.kind === 'installation',
  )
  let actionsCanCreatePullRequests = options.actionsCanCreatePullRequests ?? false
  const caches: CacheIndex = options.caches ?? {
    list: () => model.caches,
    delete: (id) => {
      const index = model.caches.findIndex((c) => c.id === id)
      if (index >= 0) model.caches.splice(index, 1)
      return index >= 0
    },
  }
  let dispatchHandler: DispatchHandler | undefined
  let serverUrl = options.serverUrl
  let apiUrl = ''
  const ctx = (): gh.UrlContext => ({ apiUrl, serverUrl: serverUrl ?? apiUrl })
  const handlers = createHandlers({
    model,
    caches,
    resolveRef: options.resolveRef,
    mergePull: options.mergePull,
    refusesRunDetails: () => options.refusesRunDetails === true,
    dispatchHandler: () => dispatchHandler,
    apiUrl: () => apiUrl,
    ctx,
    actionsCanCreatePullRequests: () => actionsCanCreatePullRequests,
    jobLogUrl: options.jobLogUrl,
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', apiUrl)
    const method = req.method ?? 'GET'
    const raw = await readBody(req)
    const exchange: Exchange = {
      method,
      path: url.pathname + url.search,
      operationId: undefined,
      actor: undefined,
      tokenKind: undefined,
      token: undefined,
      status: 0,
      requestBody: undefined,
      responseBody: undefined,
      fault: false,
    }
    exchanges.push(exchange)
    const send = (reply: Reply, extraHeaders: Record<string, string> = {}) => {
      exchange.status = reply.status
      exchange.responseBody = reply.body
      const text = reply.body === undefined ? '' : JSON.stringify(reply.body)
      res.writeHead(reply.status, {
        'x-github-api-version-selected': API_VERSION,
        'x-github-request-id': randomUUID().toUpperCase(),
        ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}),
        ...extraHeaders,
        ...reply.headers,
      })
      res.end(text)
    }

    const signature = `${method} ${url.pathname}`
    const fault = faults.take(signature)
    if (fault) {
      if (fault.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs))
      const reply = faultReply(fault)
      if (reply) {
        exchange.fault = true
        return send(reply)
      }
    }

    // Authentication, as GitHub: `token X` or `Bearer X`.
    const header = req.headers.authorization ?? ''
    const token = /^(?:token|bearer)\s+(.+)$/i.exec(header)?.[1]?.trim()
    const grant = token === undefined ? undefined : tokens.get(token)
    if (!token)
      return send({ status: 401, body: { message: 'Requires authentication', documentation_url: DOCS, status: '401' } })
    if (!grant)
      return send({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } })
    exchange.actor = grant.actor
    exchange.tokenKind = grant.kind
    exchange.token = token
    const rate = rates.of(token)
    if (signature === 'GET /rate_limit') {
      const body = rateLimitBody(rate)
      const match = openapi.match(method, url.pathname)
      if (match)
        violations.push(...openapi.validateResponse(match, 200, body).map((p) => `response GET /rate_limit: ${p}`))
      return send({ status: 200, body }, rateHeaders(rate))
    }
    if (rate.used >= rate.limit) {
      return send(
        {
          status: 403,
          body: {
            message: `API rate limit exceeded for ${grant.kind === 'installation' ? 'installation' : 'user'} ID ${model.user(grant.actor).id}.`,
            documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
            status: '403',
          },
        },
        rateHeaders(rate),
      )
    }
    rate.used += 1

    if (signature === 'POST /graphql') {
      const reply = await serveGraphql(raw, (scope, level) => grants(grant, scope, level), model)
      violations.push(...reply.problems)
      return send({ status: reply.status, body: reply.body }, rateHeaders(rate))
    }

    const match = openapi.match(method, url.pathname)
    if (!match) {
      violations.push(`unknown endpoint: ${signature} is no operation of GitHub's REST description (${openapi.source})`)
      return send(
        { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
        rateHeaders(rate),
      )
    }
    exchange.operationId = match.operation.operationId
    const owner = match.pathParams.owner
    if (owner !== undefined) {
      const sameRepo =
        owner.toLowerCase() === model.repo.owner.login.toLowerCase() &&
        (match.pathParams.repo ?? '').toLowerCase() === model.repo.name.toLowerCase()
      if (!sameRepo)
        return send(
          { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
          rateHeaders(rate),
        )
    }

    let body: unknown
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw)
      } catch {
        return send(
          { status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' } },
          rateHeaders(rate),
        )
      }
    }
    exchange.requestBody = body
    const problems = openapi.validateRequest(match, url.searchParams, body, raw.length > 0)
    if (problems.length > 0) {
      violations.push(...problems.map((p) => `request ${match.operation.operationId} (${signature}): ${p}`))
      return send(
        {
          status: 422,
          body: {
            message: `Invalid request.\n\n${problems.join('\n')}`,
            documentation_url: DOCS,
            status: '422',
          },
        },
        rateHeaders(rate),
      )
    }

    const forbidden = permissionProblem(match, grant, (number) => model.issues.get(number)?.pull !== undefined)
    if (forbidden) return send(forbidden, rateHeaders(rate))

    if (
      options.artifacts &&
      match.operation.operationId.startsWith('actions/') &&
      url.pathname.includes('/artifacts')
    ) {
      const served = await serveMounted(options.artifacts, req, res, url, match, exchange, rateHeaders(rate))
      if (served) return
    }

    const handler = handlers[match.operation.operationId]
    if (!handler) {
      // GitHub serves it, the stand-in does not: a test that reaches it must learn so, not see a quiet 404.
      violations.push(
        `unimplemented operation: ${match.operation.operationId} (${match.key}) requested as ${signature}; the stand-in does not serve it yet`,
      )
      return send(
        { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } },
        rateHeaders(rate),
      )
    }
    let reply: Reply
    try {
      reply = handler({
        params: match.pathParams,
        query: url.searchParams,
        body: (body ?? {}) as Record<string, unknown>,
        actor: model.user(grant.actor),
        url,
      })
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      reply = {
        status: error.status,
        headers: error.headers,
        body: { message: error.message, documentation_url: DOCS, ...error.extra, status: String(error.status) },
      }
    }
    const responseProblems =
      reply.status === 404 && reply.body === undefined ? [] : openapi.validateResponse(match, reply.status, reply.body)
    violations.push(...responseProblems.map((p) => `response ${match.operation.operationId} ${reply.status}: ${p}`))
    send(reply, rateHeaders(rate))
  }

  async function serveMounted(
    handler: MountedHandler,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    match: MatchedOperation,
    exchange: Exchange,
    headers: Record<string, string>,
  ): Promise<boolean> {
    // The mounted handler writes to `res` itself: capture what it writes to validate it.
    const chunks: Buffer[] = []
    const originalWrite = res.write.bind(res)
    const originalEnd = res.end.bind(res)
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as string))
      return (originalWrite as (...a: unknown[]) => boolean)(chunk, ...rest)
    }) as typeof res.write
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string))
      exchange.status = res.statusCode
      const text = Buffer.concat(chunks).toString('utf8')
      const isJson = String(res.getHeader('content-type') ?? '').includes('json')
      exchange.responseBody = isJson && text ? JSON.parse(text) : undefined
      const problems = openapi.validateResponse(match, res.statusCode, exchange.responseBody)
      violations.push(...problems.map((p) => `response ${match.operation.operationId} ${res.statusCode}: ${p}`))
      return (originalEnd as (...a: unknown[]) => ServerResponse)(chunk, ...rest)
    }) as typeof res.end
    return handler(req, res, url)
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(
        `stand-in crashed on ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
      )
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: 'Server Error' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url: apiUrl,
    model,
    violations,
    exchanges,
    inject: (rule) => faults.add(rule),
    addToken(token, grant) {
      tokens.set(token, grant)
      if (!model.users.has(grant.actor.toLowerCase())) model.addUser(grant.actor, 'none')
    },
    removeToken(token) {
      tokens.delete(token)
    },
    grantOf: (token) => tokens.get(token),
    onDispatch(handler) {
      dispatchHandler = handler
    },
    setServerUrl(url) {
      serverUrl = url
    },
    setActionsCanCreatePullRequests(allowed) {
      actionsCanCreatePullRequests = allowed
    },
    setRateLimit(token, remaining, resetInSeconds = 3600) {
      rates.setRemaining(token, remaining, resetInSeconds)
    },
    setRepositoryRateLimit(remaining, resetInSeconds = 3600) {
      rates.setRepositoryRemaining(remaining, resetInSeconds)
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      // GitHub refuses bodies this large; a runaway client should not exhaust the test process.
      if (size > 25 * 1024 * 1024) {
        req.destroy(new Error('request body over 25 MiB'))
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
