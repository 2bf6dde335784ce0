// The twirp side of the results stand-in: the cache service's and the artifact service's methods on
// the server's entries, artifacts and blobs (see results-server.ts for the behaviour they reproduce).
import { createHash, randomUUID } from 'node:crypto'
import type { StoredBlob } from './results-blobs.js'

export const CACHE_SERVICE = 'github.actions.results.api.v1.CacheService'
export const ARTIFACT_SERVICE = 'github.actions.results.api.v1.ArtifactService'

export interface CacheEntry {
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

export interface TokenClaims {
  scp: string
  ac: string
  repository: string
  run_id: string
  ref: string
  exp: number
}

/** What the services read and change: the server's records, and its means to sign and to delete. */
export interface ServiceStore {
  cacheEntries: CacheEntry[]
  artifacts: ArtifactRecord[]
  blobs: Map<string, StoredBlob>
  newCacheId(): number
  newArtifactId(): number
  signBlobUrl(blob: string, permissions: string): string
  deleteArtifact(id: number): boolean
}

/** Twirp's error shape: an HTTP status and `{code, msg}`. */
export class TwirpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export function cacheServiceCall(
  store: ServiceStore,
  method: string,
  input: Record<string, unknown>,
  claims: TokenClaims,
): unknown {
  const key = requireString(input, 'key')
  const version = requireString(input, 'version')
  const scopes = JSON.parse(claims.ac) as Array<{ Scope: string; Permission: number }>
  if (method === 'CreateCacheEntry') {
    const writable = scopes.find((scope) => (scope.Permission & 2) !== 0)
    if (!writable) return { ok: false, message: 'cache write denied: the token has no writable scope' }
    if (store.cacheEntries.some((e) => e.key === key && e.version === version && e.scope === writable.Scope)) {
      throw new TwirpError(409, 'already_exists', `cache entry ${key} already exists in scope ${writable.Scope}`)
    }
    const blob = `actions-cache/${randomUUID()}`
    store.cacheEntries.push({
      id: store.newCacheId(),
      key,
      version,
      scope: writable.Scope,
      blob,
      createdAt: Date.now(),
      finalized: false,
      sizeBytes: 0,
    })
    return { ok: true, signed_upload_url: store.signBlobUrl(blob, 'w') }
  }
  if (method === 'FinalizeCacheEntryUpload') {
    const writable = scopes.find((scope) => (scope.Permission & 2) !== 0)
    const entry = store.cacheEntries.find(
      (e) => e.key === key && e.version === version && e.scope === writable?.Scope && !e.finalized,
    )
    if (!entry) throw new TwirpError(404, 'not_found', `no reserved cache entry ${key}`)
    const stored = store.blobs.get(entry.blob)
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
      const candidates = store.cacheEntries
        .filter((e) => e.finalized && e.version === version && e.scope === scope.Scope)
        .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
      const found =
        candidates.find((e) => e.key === key) ??
        restoreKeys.map((prefix) => candidates.find((e) => e.key.startsWith(prefix))).find(Boolean)
      if (found) {
        return { ok: true, signed_download_url: store.signBlobUrl(found.blob, 'r'), matched_key: found.key }
      }
    }
    return { ok: false }
  }
  throw new TwirpError(404, 'bad_route', `no method ${method} on the cache service`)
}

export function artifactServiceCall(
  store: ServiceStore,
  method: string,
  input: Record<string, unknown>,
  claims: TokenClaims,
): unknown {
  const ids = /Actions\.Results:([^:\s]+):([^:\s]+)/.exec(claims.scp)
  const runBackendId = requireString(input, 'workflow_run_backend_id')
  if (!ids || ids[1] !== runBackendId) {
    throw new TwirpError(403, 'permission_denied', 'the runtime token does not belong to this workflow run')
  }
  const live = (a: ArtifactRecord) => a.runBackendId === runBackendId && !a.expired
  if (method === 'CreateArtifact') {
    const name = requireString(input, 'name')
    if (store.artifacts.some((a) => live(a) && a.name === name)) {
      throw new TwirpError(409, 'already_exists', `an artifact named ${name} already exists on this workflow run`)
    }
    const expiresAt = typeof input.expires_at === 'string' ? new Date(input.expires_at) : addDays(new Date(), 90)
    const mimeType = typeof input.mime_type === 'string' ? input.mime_type : 'application/zip'
    const blob = `actions-results/${randomUUID()}/${name}${mimeType === 'application/zip' ? '.zip' : ''}`
    store.artifacts.push({
      id: store.newArtifactId(),
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
    return { ok: true, signed_upload_url: store.signBlobUrl(blob, 'w') }
  }
  if (method === 'FinalizeArtifact') {
    const name = requireString(input, 'name')
    const artifact = store.artifacts.find((a) => live(a) && a.name === name && !a.finalized)
    if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} awaiting finalization`)
    const stored = store.blobs.get(artifact.blob)
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
      artifacts: store.artifacts
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
    const artifact = store.artifacts.find((a) => live(a) && a.finalized && a.name === name)
    if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} on this workflow run`)
    return { signed_url: store.signBlobUrl(artifact.blob, 'r') }
  }
  if (method === 'DeleteArtifact') {
    const name = requireString(input, 'name')
    const artifact = store.artifacts.find((a) => live(a) && a.finalized && a.name === name)
    if (!artifact) throw new TwirpError(404, 'not_found', `no artifact ${name} on this workflow run`)
    store.deleteArtifact(artifact.id)
    return { ok: true, artifact_id: String(artifact.id) }
  }
  throw new TwirpError(404, 'bad_route', `no method ${method} on the artifact service`)
}

function requireString(input: Record<string, unknown>, field: string): string {
  const value = input[field]
  if (typeof value !== 'string' || value.length === 0) {
    throw new TwirpError(400, 'invalid_argument', `${field} is required`)
  }
  return value
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000)
}
