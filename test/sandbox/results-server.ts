/**
 * A loopback stand-in for GitHub's Actions results service, as the current `@actions/cache` (v6) and
 * `@actions/artifact` (v6) speak to it: the twirp JSON services
 * `github.actions.results.api.v1.CacheService` and `...ArtifactService`, and the Azure Blob REST subset
 * behind their signed URLs (Put Blob, Put Block, Put Block List, Get Blob with Range, Get Properties).
 *
 * GitHub's documented behaviour it reproduces:
 * - cache keys are immutable: a second CreateCacheEntry for the same key, version and scope is refused
 *   (409 `already_exists`), and `@actions/cache`'s `saveCache` then returns -1;
 * - restore looks for the exact key, then each restore key as a prefix, newest created first, in the
 *   job's own ref scope first and then in the default branch's;
 * - branch scoping: the scope comes from the runtime token. Like GitHub's, `ACTIONS_RUNTIME_TOKEN` is a
 *   JWT; its `ac` claim lists cache scopes (`[{"Scope":"refs/heads/x","Permission":3}]`, 1 = read,
 *   2 = write) and its `scp` claim carries `Actions.Results:<run backend id>:<job backend id>`, which
 *   the artifact client decodes. `issueRuntimeToken(job)` mints one per job: its own ref read+write,
 *   a pull request event's base branch and the default branch read-only. So entries saved on the
 *   default branch are visible to every branch, and a branch's entries are invisible to the default
 *   branch and to other branches (a comment's job runs on the default branch: it cannot see them);
 * - artifact names are unique per workflow run (a second CreateArtifact of a name is 409);
 * - signed blob URLs expire (`signedUrlTtlMs`), after which the blob side answers 403.
 * Faults on demand: `evict(prefix)`, `failNext(n, status)`, `truncateNextDownloads(n)`, and artifact
 * expiry (`expireArtifacts`). Every request is logged in `requests`.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One job as the stand-in sees it; `issueRuntimeToken` turns it into a runtime token. */
export interface JobIdentity {
  /** `owner/name` */
  repository: string
  runId: number
  runAttempt?: number
  /** Job name, to tell two jobs of one run apart. */
  job?: string
  /** The ref the job runs on, e.g. `refs/heads/main`. */
  ref: string
  /** A pull request event's base branch (`refs/heads/...`), whose entries the job may also read. */
  baseRef?: string
}

export interface RequestLogEntry {
  method: string
  path: string
  /** The twirp method or blob operation, e.g. `CreateCacheEntry`, `PutBlock`, `GetBlob`. */
  operation: string
  status: number
  at: number
}

interface CacheEntry {
  id: number
  key: string
  version: string
  scope: string
  blob: string
  createdAt: number
  finalized: boolean
  sizeBytes: number
}

/** An artifact as both the twirp service and the REST stand-in (`artifacts-rest.ts`) see it. */
export interface ArtifactRecord {
  id: number
  name: string
  repository: string
  runId: number
  runBackendId: string
  jobBackendId: string
  ref: string
  blob: string
  size: number
  digest: string | null
  createdAt: Date
  expiresAt: Date
  /** Set by `expireArtifacts`, or when `expiresAt` passes. */
  expired: boolean
  finalized: boolean
}

interface StoredBlob {
  data: Buffer
  contentType: string
  blocks: Map<string, Buffer>
  committed: boolean
  etag: string
  lastModified: Date
}

interface TokenClaims {
  scp: string
  ac: string
  repository: string
  run_id: string
  ref: string
  exp: number
}

interface Fault {
  status: number
  remaining: number
  operation?: string
}

const CACHE_SERVICE = 'github.actions.results.api.v1.CacheService'
const ARTIFACT_SERVICE = 'github.actions.results.api.v1.ArtifactService'
const ACCOUNT = 'devstoreaccount1'

export interface ResultsServerOptions {
  /** The repository's default branch, whose cache entries every ref can read. */
  defaultRef?: string
  /** How long a signed blob URL stays valid. */
  signedUrlTtlMs?: number
}

/** Twirp's error shape: an HTTP status and `{code, msg}`. */
class TwirpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The stand-in. Start with `ResultsServer.start()`; close with `close()`. */
export class ResultsServer {
  readonly requests: RequestLogEntry[] = []
  /** Artifact records, shared with the REST stand-in. */
  readonly artifacts: ArtifactRecord[] = []
  readonly defaultRef: string
  signedUrlTtlMs: number
  private readonly secret = randomBytes(32)
  private readonly cacheEntries: CacheEntry[] = []
  private readonly blobs = new Map<string, StoredBlob>()
  private readonly faults: Fault[] = []
  private truncations = 0
  private nextId = 1
  private nextArtifactId = 1000
  private server!: Server
  /** The origin, e.g. `http://127.0.0.1:41234`; `ACTIONS_RESULTS_URL` is this plus `/`. */
  url = ''

  private constructor(options: ResultsServerOptions) {
    this.defaultRef = options.defaultRef ?? 'refs/heads/main'
    this.signedUrlTtlMs = options.signedUrlTtlMs ?? 10 * 60_000
  }

  /** Starts the stand-in on 127.0.0.1, on a free port. */
  static async start(options: ResultsServerOptions = {}): Promise<ResultsServer> {
    const stand = new ResultsServer(options)
    stand.server = createServer((req, res) => {
      stand.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ code: 'internal', msg: String(error) }))
        } else res.destroy()
      })
    })
    await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve))
    stand.url = `http://127.0.0.1:${(stand.server.address() as AddressInfo).port}`
    return stand
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  /** Mints a runtime token for a job (a JWT signed with this stand-in's secret). */
  issueRuntimeToken(job: JobIdentity): string {
    const scopes = [{ Scope: job.ref, Permission: 3 }]
    if (job.baseRef && job.baseRef !== job.ref) scopes.push({ Scope: job.baseRef, Permission: 1 })
    if (job.ref !== this.defaultRef && job.baseRef !== this.defaultRef) {
      scopes.push({ Scope: this.defaultRef, Permission: 1 })
    }
    const claims: TokenClaims = {
      scp: `Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:${this.runBackendId(job)}:${this.jobBackendId(job)}`,
      ac: JSON.stringify(scopes),
      repository: job.repository,
      run_id: String(job.runId),
      ref: job.ref,
      exp: Math.floor(Date.now() / 1000) + 6 * 3600,
    }
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`
    return `${unsigned}.${createHmac('sha256', this.secret).update(unsigned).digest('base64url')}`
  }

  /**
   * The environment a job on GitHub would have for `@actions/cache` and `@actions/artifact`:
   * runtime token, results URL, the cache v2 switch (`ACTIONS_CACHE_SERVICE_V2`), repository, run and ref.
   */
  jobEnv(job: JobIdentity): Record<string, string> {
    return {
      ACTIONS_RUNTIME_TOKEN: this.issueRuntimeToken(job),
      ACTIONS_RESULTS_URL: `${this.url}/`,
      ACTIONS_CACHE_SERVICE_V2: 'true',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: job.repository,
      GITHUB_RUN_ID: String(job.runId),
      GITHUB_RUN_ATTEMPT: String(job.runAttempt ?? 1),
      GITHUB_REF: job.ref,
    }
  }

  /** Removes finalized cache entries whose key starts with `keyPrefix` (all when omitted); returns how many. */
  evict(keyPrefix = ''): number {
    let removed = 0
    for (let index = this.cacheEntries.length - 1; index >= 0; index--) {
      const entry = this.cacheEntries[index]!
      if (entry.key.startsWith(keyPrefix)) {
        this.cacheEntries.splice(index, 1)
        this.blobs.delete(entry.blob)
        removed++
      }
    }
    return removed
  }

  /** The next `count` twirp calls (of `operation`, e.g. `CreateCacheEntry`, when given) answer `status`. */
  failNext(count: number, status: number, operation?: string): void {
    this.faults.push({ status, remaining: count, operation })
  }

  /** The next `count` blob downloads send a full Content-Length but only half the bytes, then drop. */
  truncateNextDownloads(count: number): void {
    this.truncations += count
  }

  /** Marks artifacts expired (all, or those named `name`), as GitHub does after the retention period. */
  expireArtifacts(name?: string): number {
    let count = 0
    for (const artifact of this.artifacts) {
      if (name === undefined || artifact.name === name) {
        artifact.expired = true
        this.blobs.delete(artifact.blob)
        count++
      }
    }
    return count
  }

  /** Cache keys visible in the service (finalized), newest first; for assertions and diagnostics. */
  cacheKeys(): string[] {
    return this.cacheEntries
      .filter((entry) => entry.finalized)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
      .map((entry) => entry.key)
  }

  /** A signed URL for a blob, valid for `signedUrlTtlMs`, with permissions `r`, `w` or `rw`. */
  signBlobUrl(blob: string, permissions: string): string {
    const expiry = new Date(Date.now() + this.signedUrlTtlMs).toISOString()
    const path = `/${ACCOUNT}/${blob}`
    const sig = this.blobSignature(path, expiry, permissions)
    return `${this.url}${path}?sv=2024-05-04&se=${encodeURIComponent(expiry)}&sp=${permissions}&sig=${encodeURIComponent(sig)}`
  }

  /** Decodes and verifies a runtime token; throws a 401 twirp error when it is missing or forged. */
  private claims(req: IncomingMessage): TokenClaims {
    const header = req.headers.authorization ?? ''
    const token = header.replace(/^Bearer\s+/i, '')
    const [head, body, signature] = token.split('.')
    if (!head || !body || !signature) throw new TwirpError(401, 'unauthenticated', 'missing or malformed runtime token')
    const expected = createHmac('sha256', this.secret).update(`${head}.${body}`).digest('base64url')
    if (expected !== signature) throw new TwirpError(401, 'unauthenticated', 'runtime token signature is invalid')
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims
    if (claims.exp * 1000 < Date.now()) throw new TwirpError(401, 'unauthenticated', 'runtime token has expired')
    return claims
  }

  private runBackendId(job: JobIdentity): string {
    return uuidFrom(`run:${job.repository}:${job.runId}`)
  }

  private jobBackendId(job: JobIdentity): string {
    return uuidFrom(`job:${job.repository}:${job.runId}:${job.runAttempt ?? 1}:${job.job ?? 'job'}`)
  }

  private blobSignature(path: string, expiry: string, permissions: string): string {
    return createHmac('sha256', this.secret).update(`${path}\n${expiry}\n${permissions}`).digest('base64')
  }

  private log(req: IncomingMessage, operation: string, status: number): void {
    this.requests.push({
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0]!,
      operation,
      status,
      at: Date.now(),
    })
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url)
    if (url.pathname.startsWith('/twirp/')) return this.handleTwirp(req, res, url)
    if (url.pathname.startsWith(`/${ACCOUNT}/`)) return this.handleBlob(req, res, url)
    this.log(req, 'unknown', 404)
    res.writeHead(404).end()
  }

  private async handleTwirp(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const [, , service, method = ''] = url.pathname.split('/')
    const body = await readBody(req)
    const reply = (status: number, payload: unknown) => {
      this.log(req, method, status)
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    const fault = this.faults.find((candidate) => !candidate.operation || candidate.operation === method)
    if (fault) {
      fault.remaining--
      if (fault.remaining <= 0) this.faults.splice(this.faults.indexOf(fault), 1)
      if (fault.status === 429) res.setHeader('retry-after', '1')
      return reply(fault.status, {
        code: fault.status === 429 ? 'resource_exhausted' : 'unavailable',
        msg: 'fault injected by the stand-in',
      })
    }
    try {
      if (req.method !== 'POST') throw new TwirpError(405, 'bad_route', 'twirp methods are POST')
      const claims = this.claims(req)
      const input = (body.length ? JSON.parse(body.toString('utf8')) : {}) as Record<string, unknown>
      let output: unknown
      if (service === CACHE_SERVICE) output = this.cacheCall(method, input, claims)
      else if (service === ARTIFACT_SERVICE) output = this.artifactCall(method, input, claims)
      else throw new TwirpError(404, 'bad_route', `no service ${service}`)
      reply(200, output)
    } catch (error) {
      if (error instanceof TwirpError) reply(error.status, { code: error.code, msg: error.message })
      else if (error instanceof SyntaxError) reply(400, { code: 'malformed', msg: error.message })
      else throw error
    }
  }

  private scopes(claims: TokenClaims): Array<{ Scope: string; Permission: number }> {
    return JSON.parse(claims.ac) as Array<{ Scope: string; Permission: number }>
  }

  private cacheCall(method: string, input: Record<string, unknown>, claims: TokenClaims): unknown {
    const key = requireString(input, 'key')
    const version = requireString(input, 'version')
    const scopes = this.scopes(claims)
    if (method === 'CreateCacheEntry') {
      const writable = scopes.find((scope) => (scope.Permission & 2) !== 0)
      if (!writable) return { ok: false, message: 'cache write denied: the token has no writable scope' }
      if (this.cacheEntries.some((e) => e.key === key && e.version === version && e.scope === writable.Scope)) {
        throw new TwirpError(409, 'already_exists', `cache entry ${key} already exists in scope ${writable.Scope}`)
      }
      const blob = `actions-cache/${randomUUID()}`
      this.cacheEntries.push({
        id: this.nextId++,
        key,
        version,
        scope: writable.Scope,
        blob,
        createdAt: Date.now(),
        finalized: false,
        sizeBytes: 0,
      })
      return { ok: true, signed_upload_url: this.signBlobUrl(blob, 'w') }
    }
    if (method === 'FinalizeCacheEntryUpload') {
      const writable = scopes.find((scope) => (scope.Permission & 2) !== 0)
      const entry = this.cacheEntries.find(
        (e) => e.key === key && e.version === version && e.scope === writable?.Scope && !e.finalized,
      )
      if (!entry) throw new TwirpError(404, 'not_found', `no reserved cache entry ${key}`)
      const stored = this.blobs.get(entry.blob)
      if (!stored?.committed) return { ok: false, message: `cache entry ${key} has no uploaded data` }
      entry.finalized = true
      entry.sizeBytes = stored.data.length
      // Created-at is the finalize time: an entry becomes "newest" when it becomes visible.
      entry.createdAt = Date.now()
      return { ok: true, entry_id: String(entry.id) }
    }
    if (method === 'GetCacheEntryDownloadURL') {
      const restoreKeys = Array.isArray(input.restore_keys) ? (input.restore_keys as string[]) : []
      for (const scope of scopes.filter((candidate) => (candidate.Permission & 1) !== 0)) {
        const candidates = this.cacheEntries
          .filter((e) => e.finalized && e.version === version && e.scope === scope.Scope)
          .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
        const found =
          candidates.find((e) => e.key === key) ??
          restoreKeys.map((prefix) => candidates.find((e) => e.key.startsWith(prefix))).find(Boolean)
        if (found) {
          return { ok: true, signed_download_url: this.signBlobUrl(found.blob, 'r'), matched_key: found.key }
        }
      }
      return { ok: false }
    }
    throw new TwirpError(404, 'bad_route', `no method ${method} on the cache service`)
  }

  private artifactCall(method: string, input: Record<string, unknown>, claims: TokenClaims): unknown {
    const ids = /Actions\.Results:([^:\s]+):([^:\s]+)/.exec(claims.scp)
    const runBackendId = requireString(input, 'workflow_run_backend_id')
    if (!ids || ids[1] !== runBackendId) {
      throw new TwirpError(403, 'permission_denied', 'the runtime token does not belong to this workflow run')
    }
    const live = (a: ArtifactRecord) => a.runBackendId === runBackendId && !a.expired
    if (method === 'CreateArtifact') {
      const name = requireString(input, 'name')
      if (this.artifacts.some((a) => live(a) && a.name === name)) {
        throw new TwirpError(409, 'already_exists', `an artifact named ${name} already exists on this workflow run`)
      }
      const expiresAt = typeof input.expires_at === 'string' ? new Date(input.expires_at) : addDays(new Date(), 90)
      const mimeType = typeof input.mime_type === 'string' ? input.mime_type : 'application/zip'
      const blob = `actions-results/${randomUUID()}/${name}${mimeType === 'application/zip' ? '.zip' : ''}`
      this.artifacts.push({
        id: this.nextArtifactId++,
        name,
        repository: claims.repository,
        runId: Number(claims.run_id),
        runBackendId,
        jobBackendId: requireString(input, 'workflow_job_run_backend_id'),
        ref: claims.ref,
        blob,
        size: 0,
        digest: null,
        createdAt: new Date(),
        expiresAt,
        expired: false,
        finalized: false,
      })
      return { ok: true, signed_upload_url: this.signBlobUrl(blob, 'w') }
    }
    if (method === 'FinalizeArtifact') {
      const name = requireString(input, 'name')
      const artifact = this.artifacts.find((a) => live(a) && a.name === name && !a.finalized)
      if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} awaiting finalization`)
      const stored = this.blobs.get(artifact.blob)
      if (!stored?.committed) throw new TwirpError(400, 'failed_precondition', `artifact ${name} has no uploaded data`)
      const digest = `sha256:${createHash('sha256').update(stored.data).digest('hex')}`
      if (typeof input.hash === 'string' && input.hash !== digest) {
        throw new TwirpError(400, 'invalid_argument', `artifact ${name}: hash ${input.hash} does not match ${digest}`)
      }
      artifact.finalized = true
      artifact.size = stored.data.length
      artifact.digest = digest
      artifact.createdAt = new Date()
      return { ok: true, artifact_id: String(artifact.id) }
    }
    if (method === 'ListArtifacts') {
      const nameFilter = typeof input.name_filter === 'string' ? input.name_filter : undefined
      const idFilter = typeof input.id_filter === 'string' ? Number(input.id_filter) : undefined
      return {
        artifacts: this.artifacts
          .filter((a) => live(a) && a.finalized)
          .filter((a) => nameFilter === undefined || a.name === nameFilter)
          .filter((a) => idFilter === undefined || a.id === idFilter)
          .map((a) => ({
            workflow_run_backend_id: a.runBackendId,
            workflow_job_run_backend_id: a.jobBackendId,
            database_id: String(a.id),
            name: a.name,
            size: String(a.size),
            created_at: a.createdAt.toISOString(),
            ...(a.digest ? { digest: a.digest } : {}),
          })),
      }
    }
    if (method === 'GetSignedArtifactURL') {
      const name = requireString(input, 'name')
      const artifact = this.artifacts.find((a) => live(a) && a.finalized && a.name === name)
      if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} on this workflow run`)
      return { signed_url: this.signBlobUrl(artifact.blob, 'r') }
    }
    if (method === 'DeleteArtifact') {
      const name = requireString(input, 'name')
      const artifact = this.artifacts.find((a) => live(a) && a.finalized && a.name === name)
      if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} on this workflow run`)
      this.deleteArtifact(artifact.id)
      return { ok: true, artifact_id: String(artifact.id) }
    }
    throw new TwirpError(404, 'bad_route', `no method ${method} on the artifact service`)
  }

  /** Removes an artifact and its blob (the REST stand-in's DELETE uses this too). */
  deleteArtifact(id: number): boolean {
    const index = this.artifacts.findIndex((a) => a.id === id)
    if (index < 0) return false
    const [artifact] = this.artifacts.splice(index, 1)
    this.blobs.delete(artifact!.blob)
    return true
  }

  private async handleBlob(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const blobName = decodeURIComponent(url.pathname.slice(`/${ACCOUNT}/`.length))
    const comp = url.searchParams.get('comp')
    const operation =
      req.method === 'PUT'
        ? comp === 'block'
          ? 'PutBlock'
          : comp === 'blocklist'
            ? 'PutBlockList'
            : 'PutBlob'
        : req.method === 'HEAD'
          ? 'GetBlobProperties'
          : 'GetBlob'
    const body = await readBody(req)
    const fail = (status: number, code: string, message: string) => {
      this.log(req, operation, status)
      const xml = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`
      res.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code })
      res.end(req.method === 'HEAD' ? undefined : xml)
    }
    const expiry = url.searchParams.get('se') ?? ''
    const permissions = url.searchParams.get('sp') ?? ''
    const signature = url.searchParams.get('sig') ?? ''
    if (signature !== this.blobSignature(url.pathname, expiry, permissions)) {
      return fail(403, 'AuthenticationFailed', 'Signature did not match.')
    }
    if (Date.parse(expiry) < Date.now()) return fail(403, 'AuthenticationFailed', 'Signed expiry time has passed.')
    const needed = req.method === 'PUT' ? 'w' : 'r'
    if (!permissions.includes(needed)) return fail(403, 'AuthorizationPermissionMismatch', `Needs ${needed}.`)
    const common = (blob: StoredBlob) => ({
      etag: blob.etag,
      'last-modified': blob.lastModified.toUTCString(),
      'x-ms-request-id': randomUUID(),
      'x-ms-version': '2024-05-04',
      date: new Date().toUTCString(),
    })
    if (req.method === 'PUT') {
      const blob = this.blobs.get(blobName) ?? {
        data: Buffer.alloc(0),
        contentType: 'application/octet-stream',
        blocks: new Map(),
        committed: false,
        etag: '',
        lastModified: new Date(),
      }
      this.blobs.set(blobName, blob)
      if (operation === 'PutBlock') {
        const blockId = url.searchParams.get('blockid')
        if (!blockId) return fail(400, 'InvalidQueryParameterValue', 'blockid is required')
        blob.blocks.set(blockId, body)
      } else if (operation === 'PutBlockList') {
        const ids = [...body.toString('utf8').matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]*)<\//g)].map(
          (m) => m[1]!,
        )
        const parts: Buffer[] = []
        for (const id of ids) {
          const block = blob.blocks.get(id)
          if (!block) return fail(400, 'InvalidBlockList', `block ${id} was not staged`)
          parts.push(block)
        }
        blob.data = Buffer.concat(parts)
        blob.blocks.clear()
        blob.committed = true
        blob.contentType = String(req.headers['x-ms-blob-content-type'] ?? blob.contentType)
      } else {
        blob.data = body
        blob.committed = true
        blob.contentType = String(
          req.headers['x-ms-blob-content-type'] ?? req.headers['content-type'] ?? blob.contentType,
        )
      }
      blob.etag = `"0x${randomBytes(8).toString('hex').toUpperCase()}"`
      blob.lastModified = new Date()
      this.log(req, operation, 201)
      res.writeHead(201, { ...common(blob), 'x-ms-request-server-encrypted': 'true', 'content-length': '0' })
      res.end()
      return
    }
    const blob = this.blobs.get(blobName)
    if (!blob?.committed) return fail(404, 'BlobNotFound', 'The specified blob does not exist.')
    const headers: Record<string, string> = {
      ...common(blob),
      'content-type': blob.contentType,
      'x-ms-blob-type': 'BlockBlob',
      'accept-ranges': 'bytes',
    }
    if (req.method === 'HEAD') {
      this.log(req, operation, 200)
      res.writeHead(200, { ...headers, 'content-length': String(blob.data.length) })
      res.end()
      return
    }
    let data = blob.data
    let status = 200
    const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers['x-ms-range'] ?? req.headers.range ?? ''))
    if (range) {
      const start = Number(range[1])
      const end = range[2] ? Math.min(Number(range[2]), blob.data.length - 1) : blob.data.length - 1
      data = blob.data.subarray(start, end + 1)
      status = 206
      headers['content-range'] = `bytes ${start}-${end}/${blob.data.length}`
    }
    headers['content-length'] = String(data.length)
    if (this.truncations > 0) {
      this.truncations--
      this.log(req, `${operation}(truncated)`, status)
      res.writeHead(status, headers)
      res.write(data.subarray(0, Math.floor(data.length / 2)))
      // Let the half reach the client before the connection drops, as a broken transfer does.
      setTimeout(() => res.destroy(), 20)
      return
    }
    this.log(req, operation, status)
    res.writeHead(status, headers)
    res.end(data)
  }
}

function requireString(input: Record<string, unknown>, field: string): string {
  const value = input[field]
  if (typeof value !== 'string' || value.length === 0) {
    throw new TwirpError(400, 'invalid_argument', `${field} is required`)
  }
  return value
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000)
}
