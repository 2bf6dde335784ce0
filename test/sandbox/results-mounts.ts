// The results server's pieces the REST stand-in serves: the caches list and the artifact endpoints.
import { randomBytes } from 'node:crypto'
import { artifactsRestHandler } from './artifacts-rest.js'
import type { CacheEntry, CacheIndex, MountedHandler } from './rest-api.js'
import type { ResultsServer } from './results-server.js'

/** Reads the results server's cache entries for the REST caches endpoints. */
export function cacheIndexOf(results: ResultsServer): CacheIndex {
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
export function mountArtifacts(results: ResultsServer): MountedHandler {
  const internalToken = `sandbox-internal-${randomBytes(12).toString('hex')}`
  const handler = artifactsRestHandler(results, { token: internalToken })
  return (req, res, url) => {
    req.headers.authorization = `token ${internalToken}`
    return handler(req, res, url)
  }
}
