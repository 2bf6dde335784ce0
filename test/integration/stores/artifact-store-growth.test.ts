// The artifact store's bytes grow with the iterations, not with their square (issue 13, point 6): a
// loop of 30 jobs, each on a fresh runner that restores the trail, adds one iteration's files and
// saves; every save's upload stays about one iteration's size and a fresh runner still gets it all.
import { mkdtempSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { withActionsEnv } from '../../../src/adapters/stores/shared.js'
import { startArtifactsRest } from '../../sandbox/artifacts-rest.js'
import { ResultsServer } from '../../sandbox/results-server.js'
import { makeState } from './fixtures.js'
import { jobEnv, newRunId, REPOSITORY } from './jobs.js'
import { freshLoopId } from './store-contract.js'
import { addIteration, readTrail } from './trail.js'

// As in artifact-store.test.ts: the stand-ins start before `@actions/github` reads GITHUB_API_URL.
const REST_TOKEN = 'ghs_loopback_rest_token'
const server = await ResultsServer.start()
const rest = await startArtifactsRest(server, { token: REST_TOKEN })
process.env.GITHUB_API_URL = rest.url
const { ArtifactStore } = await import('../../../src/adapters/stores/artifact-store.js')
const base = mkdtempSync(join(tmpdir(), 'artifact-growth-'))

afterAll(async () => {
  await rest.close()
  await server.close()
  await rm(base, { recursive: true, force: true })
})

/** A job of run `runId` on its own runner: its own scratch folder and an empty trail folder. */
function job(runId = newRunId(), auditDir = join(base, `trail-${runId}`)) {
  const store = new ArtifactStore({
    token: REST_TOKEN,
    repository: REPOSITORY,
    runId,
    apiUrl: rest.url,
    workDir: join(base, `work-${runId}`),
    env: jobEnv(server, base, { repository: REPOSITORY, runId, ref: 'refs/heads/main' }),
    echoLog: false,
    auditDir: () => auditDir,
  })
  return { store, auditDir }
}

function sizeOf(version: string): number {
  return server.artifacts.find((artifact) => String(artifact.id) === version)!.size
}

function storedBytes(loopId: string): number {
  return server.artifacts
    .filter((artifact) => artifact.name === `loop-state-${loopId}` && !artifact.expired)
    .reduce((sum, artifact) => sum + artifact.size, 0)
}

describe('artifact store: bytes grow with the iterations', () => {
  it(
    '30 jobs, each restoring the trail on a fresh runner and adding one iteration: every upload stays one iteration big, and a fresh runner gets the whole trail',
    async () => {
      const loopId = freshLoopId('growth')
      const expected = join(base, 'expected-trail')
      const uploaded: number[] = []
      let version: string | null = null
      for (let n = 1; n <= 30; n++) {
        const { store, auditDir } = job()
        await store.restoreAudit(loopId, auditDir)
        expect(await readTrail(auditDir)).toEqual(await readTrail(expected))
        await addIteration(auditDir, n)
        await addIteration(expected, n)
        expect((await store.load(loopId))?.version ?? null).toBe(version)
        version = await store.save(loopId, makeState(loopId, n), version)
        uploaded.push(sizeOf(version))
      }
      const { store, auditDir } = job()
      const restoreStarted = performance.now()
      expect(await store.restoreAudit(loopId, auditDir)).toBe(61)
      const restoreMs = Math.round(performance.now() - restoreStarted)
      expect(await readTrail(auditDir)).toEqual(await readTrail(expected))
      // One iteration's files, zipped as the store zips them: the first save's upload, give or take.
      const oneIteration = uploaded[0]!
      console.log(
        `artifact bytes uploaded per save (1..30): ${uploaded.join(' ')}; stored in total: ${storedBytes(loopId)}; a fresh runner's restore of the 30: ${restoreMs} ms`,
      )
      for (const [index, bytes] of uploaded.entries()) {
        expect(bytes, `save ${index + 1} uploaded ${bytes} bytes; the first, ${oneIteration}`).toBeLessThan(
          2 * oneIteration,
        )
      }
      expect(storedBytes(loopId)).toBeLessThan(2 * 30 * oneIteration)
    },
    5 * 60_000,
  )
})

/** Saves `iterations` iterations of `loopId`, each as a fresh job that restores the trail first; the reference trail grows in `expected`. */
async function runLoop(loopId: string, expected: string, from: number, to: number, version: string | null) {
  for (let n = from; n <= to; n++) {
    const { store, auditDir } = job()
    await store.restoreAudit(loopId, auditDir)
    await addIteration(auditDir, n)
    await addIteration(expected, n)
    version = await store.save(loopId, makeState(loopId, n), version)
  }
  return version!
}

async function freshRestore(loopId: string) {
  const { store, auditDir } = job()
  const count = await store.restoreAudit(loopId, auditDir)
  return { count, trail: await readTrail(auditDir), notes: store.notes.join('\n') }
}

function snapshotOf(version: string) {
  return server.artifacts.find((artifact) => String(artifact.id) === version)!
}

describe('artifact store: the trail kept in parts across snapshots', () => {
  it("several saves in one run replace the run's snapshot without losing the parts it held", async () => {
    const loopId = freshLoopId('one-run')
    const expected = join(base, `expected-${loopId}`)
    let version = await runLoop(loopId, expected, 1, 2, null)
    // One job, several iterations (budget-minutes): each save replaces the run's earlier snapshot.
    const { store, auditDir } = job()
    await store.restoreAudit(loopId, auditDir)
    for (let n = 3; n <= 6; n++) {
      await addIteration(auditDir, n)
      await addIteration(expected, n)
      version = await store.save(loopId, makeState(loopId, n), version)
    }
    expect(server.artifacts.filter((a) => a.name === `loop-state-${loopId}`)).toHaveLength(3)
    const restored = await freshRestore(loopId)
    expect(restored.trail).toEqual(await readTrail(expected))
    await runLoop(loopId, expected, 7, 8, version)
    expect((await freshRestore(loopId)).trail).toEqual(await readTrail(expected))
  })

  it("two writers on one base: the first wins, and a fresh runner gets the winner's trail", async () => {
    const loopId = freshLoopId('race-trail')
    const expected = join(base, `expected-${loopId}`)
    const v1 = await runLoop(loopId, expected, 1, 1, null)
    const [alice, bob] = [job(), job()]
    for (const writer of [alice, bob]) await writer.store.restoreAudit(loopId, writer.auditDir)
    await addIteration(alice.auditDir, 2)
    await addIteration(bob.auditDir, 2)
    await writeFile(join(bob.auditDir, 'final.md'), 'bob was here\n')
    const outcomes = await Promise.allSettled([
      alice.store.save(loopId, makeState(loopId, 2, 'alice'), v1),
      bob.store.save(loopId, makeState(loopId, 2, 'bob'), v1),
    ])
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    const winner = outcomes[0]!.status === 'fulfilled' ? alice : bob
    expect((await freshRestore(loopId)).trail).toEqual(await readTrail(winner.auditDir))
  })

  it('a snapshot that expired loses only the files it held, and the next save from a runner that has them heals the trail', async () => {
    const loopId = freshLoopId('lost')
    const expected = join(base, `expected-${loopId}`)
    const v1 = await runLoop(loopId, expected, 1, 1, null)
    const v3 = await runLoop(loopId, expected, 2, 3, v1)
    snapshotOf(v1).expired = true
    const broken = await freshRestore(loopId)
    expect(broken.notes).toMatch(/expired or was deleted/)
    expect(Object.keys(broken.trail).sort()).toEqual([
      'iterations/2.md',
      'iterations/3.md',
      'logs/2/test.log',
      'logs/3/test.log',
    ])
    // The state is in the newest snapshot itself: it still loads.
    expect((await job().store.load(loopId))?.version).toBe(v3)
    // A runner that still holds the whole trail (the same machine, or the CLI) saves: what only the
    // expired snapshot held is uploaded again.
    const { store } = job(newRunId(), expected)
    await addIteration(expected, 4)
    await store.save(loopId, makeState(loopId, 4), v3)
    const healed = await freshRestore(loopId)
    expect(healed.trail).toEqual(await readTrail(expected))
    expect(healed.notes).not.toMatch(/could not be restored|not restored/)
  })

  it('leans on no snapshot in the last quarter of its life: a save uploads its parts again, so its expiry loses nothing', async () => {
    const loopId = freshLoopId('ageing')
    const expected = join(base, `expected-${loopId}`)
    const v1 = await runLoop(loopId, expected, 1, 1, null)
    const v2 = await runLoop(loopId, expected, 2, 2, v1)
    const first = snapshotOf(v1)
    // Created 90 days ago, expiring in 10: within the last quarter of its life.
    first.createdAt = new Date(Date.now() - 90 * 86_400_000)
    first.expiresAt = new Date(Date.now() + 10 * 86_400_000)
    await runLoop(loopId, expected, 3, 3, v2)
    first.expired = true
    const restored = await freshRestore(loopId)
    expect(restored.trail).toEqual(await readTrail(expected))
    expect(restored.count).toBe(7)
  })

  it('reads a snapshot from before the manifest (the whole trail under audit/) and builds on it', async () => {
    const loopId = freshLoopId('legacy')
    const expected = join(base, `expected-${loopId}`)
    await addIteration(expected, 1)
    const runId = newRunId()
    const folder = join(base, `legacy-${runId}`)
    const { cp } = await import('node:fs/promises')
    await cp(expected, join(folder, 'audit'), { recursive: true })
    await writeFile(join(folder, 'loop-state.json'), JSON.stringify(makeState(loopId, 1)))
    const { DefaultArtifactClient } = await import('@actions/artifact')
    const files = Object.keys(await readTrail(folder)).map((path) => join(folder, path))
    await withActionsEnv(jobEnv(server, base, { repository: REPOSITORY, runId, ref: 'refs/heads/main' }), () =>
      new DefaultArtifactClient().uploadArtifact(`loop-state-${loopId}`, files, folder),
    )
    const legacy = (await job().store.load(loopId))!.version
    expect((await freshRestore(loopId)).trail).toEqual(await readTrail(expected))
    await runLoop(loopId, expected, 2, 3, legacy)
    expect((await freshRestore(loopId)).trail).toEqual(await readTrail(expected))
  })

  it('refuses a manifest whose paths would leave the trail folder', async () => {
    const loopId = freshLoopId('escape')
    const runId = newRunId()
    const folder = join(base, `escape-${runId}`)
    await mkdir(join(folder, 'trail'), { recursive: true })
    await writeFile(join(folder, 'loop-state.json'), JSON.stringify(makeState(loopId, 1)))
    await writeFile(join(base, 'escaped.txt'), 'before')
    const manifest = { base: null, files: { '../escaped.txt': { size: 5, sha256: 'x', parts: [[0, 5]] } } }
    await writeFile(join(folder, 'trail-manifest.json'), JSON.stringify(manifest))
    const { DefaultArtifactClient } = await import('@actions/artifact')
    await withActionsEnv(jobEnv(server, base, { repository: REPOSITORY, runId, ref: 'refs/heads/main' }), () =>
      new DefaultArtifactClient().uploadArtifact(
        `loop-state-${loopId}`,
        [join(folder, 'loop-state.json'), join(folder, 'trail-manifest.json')],
        folder,
      ),
    )
    const restored = await freshRestore(loopId)
    expect(restored.count).toBe(0)
    expect(restored.notes).toMatch(/not a plain relative path/)
    expect(await readFile(join(base, 'escaped.txt'), 'utf8')).toBe('before')
  })
})
