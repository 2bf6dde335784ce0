import { mkdtempSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AutoStore } from '../../../src/adapters/stores/auto-store.js'
import { STATE_FILE } from '../../../src/adapters/stores/shared.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { startArtifactsRest } from '../../sandbox/artifacts-rest.js'
import { ResultsServer } from '../../sandbox/results-server.js'
import { makeState } from './fixtures.js'
import { cacheJobs, jobEnv, newRunId, REPOSITORY } from './jobs.js'
import { freshLoopId, runStoreContract } from './store-contract.js'

// The stand-ins start before the artifact store is imported: see artifact-store.test.ts.
const REST_TOKEN = 'ghs_loopback_rest_token'
const server = await ResultsServer.start()
const rest = await startArtifactsRest(server, { token: REST_TOKEN })
process.env.GITHUB_API_URL = rest.url
const { ArtifactStore } = await import('../../../src/adapters/stores/artifact-store.js')
const base = mkdtempSync(join(tmpdir(), 'auto-store-'))
const jobs = cacheJobs(server, base)

afterAll(async () => {
  await rest.close()
  await server.close()
  await rm(base, { recursive: true, force: true })
})

/** An `auto` store acting as a job of a new run on `ref`; `warnings` collects the notes it gives as warnings. */
function autoJob(ref = 'refs/heads/main', warnings?: string[]) {
  const runId = newRunId()
  const artifact = new ArtifactStore({
    token: REST_TOKEN,
    repository: REPOSITORY,
    runId,
    apiUrl: rest.url,
    workDir: join(base, `work-${runId}`),
    env: jobEnv(server, base, { repository: REPOSITORY, runId, ref }),
    echoLog: false,
  })
  const onNote = (message: string, level: string) => level === 'warning' && warnings?.push(message)
  return new AutoStore(jobs.store(ref, runId), artifact, { onNote })
}

runStoreContract('auto', async () => ({
  store: async () => autoJob(),
  plant: (loopId, text) => jobs.plant(loopId, text),
  readQuarantined: (at) => readFile(join(at, STATE_FILE), 'utf8'),
}))

describe('auto store: the cache decides, the artifact remembers', () => {
  it('carries on from the artifact when the cache is evicted in the middle of a loop', async () => {
    const loopId = freshLoopId('evicted')
    let loaded = await autoJob().load(loopId)
    expect(loaded).toBeNull()
    let version: string | null = null
    for (let iteration = 1; iteration <= 6; iteration++) {
      // Each iteration is a new job: it loads, works, saves.
      const job = autoJob()
      loaded = await job.load(loopId)
      expect(loaded?.state.iteration ?? 0).toBe(iteration - 1)
      version = await job.save(loopId, makeState(loopId, iteration), loaded?.version ?? null)
      if (iteration === 3) {
        expect(server.evict(jobs.store().keyPrefix(loopId))).toBe(3)
        const after = autoJob()
        const fallback = await after.load(loopId)
        expect(fallback?.version).toMatch(/^artifact:/)
        expect(fallback?.state.iteration).toBe(3)
        expect(after.notes.join('\n')).toMatch(/evicted/)
      }
    }
    expect(version).toBe('cache:3')
    const last = await autoJob().load(loopId)
    expect(last?.state.iteration).toBe(6)
    expect(last?.version).toBe('cache:3')
  })

  it('lets one of two jobs that both fell back to the artifact win', async () => {
    const loopId = freshLoopId('fallback-race')
    await autoJob().save(loopId, makeState(loopId, 1), null)
    server.evict(jobs.store().keyPrefix(loopId))
    const [alice, bob] = [autoJob(), autoJob()]
    const [a, b] = [await alice.load(loopId), await bob.load(loopId)]
    expect(a?.version).toMatch(/^artifact:/)
    const outcomes = await Promise.allSettled([
      alice.save(loopId, makeState(loopId, 2, 'alice'), a!.version),
      bob.save(loopId, makeState(loopId, 2, 'bob'), b!.version),
    ])
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    const lost = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
    expect(lost.reason).toBeInstanceOf(StoreConflictError)
  })

  it('reads a default-branch state from a branch whose cache scope is empty, then keeps to its own scope', async () => {
    const loopId = freshLoopId('branch')
    await autoJob('refs/heads/feature').save(loopId, makeState(loopId, 1), null)
    // The default branch cannot see the feature branch's cache entry: it reads the artifact.
    const onMain = autoJob('refs/heads/main')
    const loaded = await onMain.load(loopId)
    expect(loaded?.version).toMatch(/^artifact:/)
    expect(loaded?.state.iteration).toBe(1)
  })

  it('counts a failed artifact mirror as a warning, not a lost save; a cache miss read from the artifact is a plain note', async () => {
    const loopId = freshLoopId('mirror-fails')
    const warnings: string[] = []
    const job = autoJob('refs/heads/main', warnings)
    server.failNext(1, 400, 'CreateArtifact')
    const version = await job.save(loopId, makeState(loopId, 1), null)
    expect(version).toBe('cache:1')
    expect(job.notes.join('\n')).toMatch(/mirroring to the artifact failed/)
    expect(warnings.join('\n')).toMatch(
      /saved to the cache, but mirroring to the artifact failed \(a cache miss would read an older state\)/,
    )
    const elsewhere: string[] = []
    await autoJob('refs/heads/feature', elsewhere).load(loopId)
    expect(elsewhere).toEqual([])
    expect((await autoJob().load(loopId))?.version).toBe('cache:1')
  })
})
