// The results server's pieces the REST stand-in serves: the caches list and the artifact endpoints.
import { randomBytes } from 'node:crypto'
import { artifactsRestHandler } from './artifacts-rest.js'
import type { CacheEntry, CacheIndex, MountedHandler } from './rest-api.js'
import type { ResultsServer } from './results-server.js'

/** The results server's cache entries as the REST caches endpoints list and delete them. */
export function cacheIndexOf(results: ResultsServer): CacheIndex {
  return {
    list: (): CacheEntry[] =>
      results.finalizedCacheEntries().map((e) => ({
        id: e.id,
        key: e.key,
        ref: e.scope,
        version: e.version,
        sizeInBytes: e.sizeBytes,
        createdAt: new Date(e.createdAt).toISOString(),
        lastAccessedAt: new Date(e.createdAt).toISOString(),
      })),
    delete: (id: number): boolean => results.deleteCacheEntry(id),
  }
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
