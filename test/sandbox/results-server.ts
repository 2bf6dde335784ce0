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
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ACCOUNT, type BlobSide, handleBlobRequest, readBody, type StoredBlob } from './results-blobs.js'
import {
  ARTIFACT_SERVICE,
  type ArtifactRecord,
  artifactServiceCall,
  CACHE_SERVICE,
  type CacheEntry,
  cacheServiceCall,
  type ServiceStore,
  type TokenClaims,
  TwirpError,
} from './results-twirp.js'

export type { ArtifactRecord } from './results-twirp.js'

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

/** What `publishStepArtifact` takes: the zip of an upload-artifact step and where it was made. */
export interface StepArtifactUpload extends JobIdentity {
  name: string
  zip: Buffer
  expiresAt: Date
}

export interface RequestLogEntry {
  method: string
  path: string
  /** The twirp method or blob operation, e.g. `CreateCacheEntry`, `PutBlock`, `GetBlob`. */
  operation: string
  status: number
  at: number
}

interface Fault {
  status: number
  remaining: number
  operation?: string
}

export interface ResultsServerOptions {
  /** The repository's default branch, whose cache entries every ref can read. */
  defaultRef?: string
  /** How long a signed blob URL stays valid. */
  signedUrlTtlMs?: number
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
  private readonly store: ServiceStore = {
    cacheEntries: this.cacheEntries,
    artifacts: this.artifacts,
    blobs: this.blobs,
    newCacheId: () => this.nextId++,
    newArtifactId: () => this.nextArtifactId++,
    signBlobUrl: (blob, permissions) => this.signBlobUrl(blob, permissions),
    deleteArtifact: (id) => this.deleteArtifact(id),
  }
  private readonly blobSide: BlobSide = {
    blobs: this.blobs,
    signature: (path, expiry, permissions) => this.blobSignature(path, expiry, permissions),
    log: (req, operation, status) => this.log(req, operation, status),
    takeTruncation: () => {
      if (this.truncations <= 0) return false
      this.truncations--
      return true
    },
  }
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

  /**
   * An upload-artifact step's artifact, zipped by the engine: finalized at once and listed by the REST
   * API with the run's other artifacts, as GitHub lists every artifact of a run there; its id.
   */
  publishStepArtifact(upload: StepArtifactUpload): number {
    // One artifact service: a name the run holds (an upload-artifact step's, or @actions/artifact's) is refused.
    const runBackendId = this.runBackendId(upload)
    if (this.artifacts.some((a) => a.runBackendId === runBackendId && !a.expired && a.name === upload.name)) {
      throw new Error(
        `Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run ('${upload.name}')`,
      )
    }
    const blob = `actions-results/${randomBytes(8).toString('hex')}/${upload.name}.zip`
    const etag = `"${randomBytes(8).toString('hex')}"`
    this.blobs.set(blob, {
      data: upload.zip,
      contentType: 'application/zip',
      blocks: new Map(),
      committed: true,
      etag,
      lastModified: new Date(),
    })
    const id = this.store.newArtifactId()
    this.artifacts.push({
      id,
      name: upload.name,
      repository: upload.repository,
      runId: upload.runId,
      runBackendId,
      jobBackendId: this.jobBackendId(upload),
      ref: upload.ref,
      blob,
      size: upload.zip.length,
      digest: `sha256:${createHash('sha256').update(upload.zip).digest('hex')}`,
      createdAt: new Date(),
      expiresAt: upload.expiresAt,
      expired: false,
      finalized: true,
    })
    return id
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

  /**
   * Makes each artifact named `name` disagree with the digest GitHub lists for it, as a blob damaged in
   * storage or in transit does (the listed digest is changed, so the zip itself still opens):
   * download-artifact v8 fails on the mismatch, earlier majors only warn.
   */
  breakArtifactDigests(name: string): number {
    let count = 0
    for (const artifact of this.artifacts) {
      if (artifact.name !== name || !artifact.digest) continue
      artifact.digest = `sha256:${createHash('sha256').update(`not ${artifact.digest}`).digest('hex')}`
      count++
    }
    return count
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

  /** The finalized cache entries (what the REST caches endpoints list). */
  finalizedCacheEntries(): readonly CacheEntry[] {
    return this.cacheEntries.filter((entry) => entry.finalized)
  }

  /** Deletes a cache entry and its blob (the REST caches endpoints' DELETE); false when there is none. */
  deleteCacheEntry(id: number): boolean {
    const index = this.cacheEntries.findIndex((entry) => entry.id === id)
    if (index < 0) return false
    const [entry] = this.cacheEntries.splice(index, 1)
    this.blobs.delete(entry!.blob)
    return true
  }

  /** Stores a job's log as a text blob (as GitHub keeps job logs) and returns its signed read URL. */
  publishJobLog(jobId: number, log: string): string {
    const blob = `actions-results/logs/job/${jobId}-${randomBytes(4).toString('hex')}.txt`
    const etag = `"${randomBytes(8).toString('hex')}"`
    const data = Buffer.from(log, 'utf8')
    this.blobs.set(blob, {
      data,
      contentType: 'text/plain',
      blocks: new Map(),
      committed: true,
      etag,
      lastModified: new Date(),
    })
    return this.signBlobUrl(blob, 'r')
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
    if (url.pathname.startsWith(`/${ACCOUNT}/`)) return handleBlobRequest(this.blobSide, req, res, url)
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
      if (service === CACHE_SERVICE) output = cacheServiceCall(this.store, method, input, claims)
      else if (service === ARTIFACT_SERVICE) output = artifactServiceCall(this.store, method, input, claims)
      else throw new TwirpError(404, 'bad_route', `no service ${service}`)
      reply(200, output)
    } catch (error) {
      if (error instanceof TwirpError) reply(error.status, { code: error.code, msg: error.message })
      else if (error instanceof SyntaxError) reply(400, { code: 'malformed', msg: error.message })
      else throw error
    }
  }

  /** Removes an artifact and its blob (the REST stand-in's DELETE uses this too). */
  deleteArtifact(id: number): boolean {
    const index = this.artifacts.findIndex((a) => a.id === id)
    if (index < 0) return false
    const [artifact] = this.artifacts.splice(index, 1)
    this.blobs.delete(artifact!.blob)
    return true
  }
}

function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
