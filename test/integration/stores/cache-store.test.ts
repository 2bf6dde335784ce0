import { mkdtempSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STATE_FILE, StoreUnavailableError } from '../../../src/adapters/stores/shared.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { ResultsServer } from '../../sandbox/results-server.js'
import { makeState } from './fixtures.js'
import { cacheJobs } from './jobs.js'
import { freshLoopId, runStoreContract, type StoreHarness } from './store-contract.js'

let server: ResultsServer
let base: string

beforeAll(async () => {
  server = await ResultsServer.start()
  base = mkdtempSync(join(tmpdir(), 'cache-store-'))
})
afterAll(async () => {
  await server?.close()
  await rm(base, { recursive: true, force: true })
})

runStoreContract('cache', async (): Promise<StoreHarness> => {
  const jobs = cacheJobs(server, join(base, 'contract'))
  return {
    store: async () => jobs.store(),
    plant: (loopId, text) => jobs.plant(loopId, text),
    readQuarantined: (at) => readFile(join(at, STATE_FILE), 'utf8'),
  }
})

describe('cache store: GitHub behaviour and faults', () => {
  it('uses one immutable key per revision, restoring the newest by prefix', async () => {
    const jobs = cacheJobs(server, join(base, 'keys'))
    const store = jobs.store()
    const loopId = freshLoopId('keys')
    let version: string | null = null
    for (let iteration = 1; iteration <= 3; iteration++) {
      version = await store.save(loopId, makeState(loopId, iteration), version)
    }
    expect(server.cacheKeys().filter((key) => key.startsWith(store.keyPrefix(loopId)))).toEqual([
      `${store.keyPrefix(loopId)}3`,
      `${store.keyPrefix(loopId)}2`,
      `${store.keyPrefix(loopId)}1`,
    ])
    expect((await jobs.store().load(loopId))?.state.iteration).toBe(3)
  })

  it('hashes the loop part of a key that would pass 512 characters, and refuses loop ids the schema refuses', async () => {
    const jobs = cacheJobs(server, join(base, 'long'))
    const store = jobs.store()
    const longId = `${'ü'.repeat(190)}-${process.pid}`
    expect(store.keyPrefix(longId)).toMatch(/^loop-state-~[0-9a-f]{40}\.$/)
    const version = await store.save(longId, makeState(longId, 1), null)
    expect((await store.load(longId))?.version).toBe(version)
    const tooLong = 'x'.repeat(600)
    await expect(store.load(tooLong)).rejects.toThrow(/length 600.*expected 1 to 200 characters/)
  })

  it('sees default-branch entries from a branch, but not a branch entry from the default branch', async () => {
    const jobs = cacheJobs(server, join(base, 'scope'))
    const loopId = freshLoopId('scope')
    const onMain = jobs.store('refs/heads/main')
    const v1 = await onMain.save(loopId, makeState(loopId, 1), null)
    const onFeature = jobs.store('refs/heads/feature')
    expect((await onFeature.load(loopId))?.version).toBe(v1)
    await onFeature.save(loopId, makeState(loopId, 2), v1)
    expect((await jobs.store('refs/heads/feature').load(loopId))?.state.iteration).toBe(2)
    expect((await jobs.store('refs/heads/main').load(loopId))?.state.iteration).toBe(1)
    expect((await jobs.store('refs/heads/other').load(loopId))?.state.iteration).toBe(1)
  })

  it('reports a truncated download as unavailable, not as an empty loop, and reads it on the next try', async () => {
    const jobs = cacheJobs(server, join(base, 'truncated'))
    const loopId = freshLoopId('truncated')
    const version = await jobs.store().save(loopId, makeState(loopId, 1), null)
    server.truncateNextDownloads(1)
    await expect(jobs.store().load(loopId)).rejects.toThrow(StoreUnavailableError)
    expect((await jobs.store().load(loopId))?.version).toBe(version)
  })

  it('reports 429 from the cache service clearly and loses nothing', async () => {
    const jobs = cacheJobs(server, join(base, 'ratelimit'))
    const loopId = freshLoopId('ratelimit')
    const v1 = await jobs.store().save(loopId, makeState(loopId, 1), null)
    server.failNext(1, 429, 'GetCacheEntryDownloadURL')
    await expect(jobs.store().load(loopId)).rejects.toThrow(/Rate limited|429/)
    server.failNext(1, 429, 'CreateCacheEntry')
    await expect(jobs.store().save(loopId, makeState(loopId, 2), v1)).rejects.toThrow(StoreUnavailableError)
    expect((await jobs.store().load(loopId))?.version).toBe(v1)
    expect(await jobs.store().save(loopId, makeState(loopId, 2), v1)).toBe('2')
  })

  it('rides out a 5xx through the package retries', async () => {
    const jobs = cacheJobs(server, join(base, 'unavailable'))
    const loopId = freshLoopId('unavailable')
    server.failNext(1, 503, 'CreateCacheEntry')
    const version = await jobs.store().save(loopId, makeState(loopId, 1), null)
    expect((await jobs.store().load(loopId))?.version).toBe(version)
    expect(server.requests.filter((r) => r.operation === 'CreateCacheEntry' && r.status === 503)).toHaveLength(1)
  }, 20_000)

  it('treats a -1 whose key another writer holds as a conflict, confirmed by lookup', async () => {
    const jobs = cacheJobs(server, join(base, 'minus-one'))
    const loopId = freshLoopId('minus-one')
    const alice = jobs.store()
    const bob = jobs.store()
    const v1 = await alice.save(loopId, makeState(loopId, 1), null)
    await alice.save(loopId, makeState(loopId, 2, 'alice'), v1)
    const before = server.requests.length
    await expect(bob.save(loopId, makeState(loopId, 2, 'bob'), v1)).rejects.toBeInstanceOf(StoreConflictError)
    // Bob's lookup saw revision 2 before trying, so no create was even attempted.
    expect(server.requests.slice(before).some((r) => r.operation === 'CreateCacheEntry')).toBe(false)
  })

  it('logs the blob operations @actions/cache really uses', async () => {
    const jobs = cacheJobs(server, join(base, 'log'))
    const loopId = freshLoopId('log')
    const before = server.requests.length
    await jobs.store().save(loopId, makeState(loopId, 1), null)
    await jobs.store().load(loopId)
    const operations = new Set(server.requests.slice(before).map((r) => r.operation))
    expect(operations).toContain('PutBlob')
    expect(operations).toContain('GetBlob')
    expect(operations).toContain('FinalizeCacheEntryUpload')
  })
})
