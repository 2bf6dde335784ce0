import { mkdtempSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { STATE_FILE, withActionsEnv } from '../../../src/adapters/stores/shared.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { startArtifactsRest } from '../../sandbox/artifacts-rest.js'
import { ResultsServer } from '../../sandbox/results-server.js'
import { makeState } from './fixtures.js'
import { jobEnv, newRunId, REPOSITORY } from './jobs.js'
import { freshLoopId, runStoreContract } from './store-contract.js'

// `@actions/artifact` downloads through `@actions/github`, whose Octokit takes GITHUB_API_URL when the
// module loads, as on a runner: so the stand-ins start first and the stores are imported after.
const REST_TOKEN = 'ghs_loopback_rest_token'
const server = await ResultsServer.start()
const rest = await startArtifactsRest(server, { token: REST_TOKEN })
process.env.GITHUB_API_URL = rest.url
const { ArtifactStore } = await import('../../../src/adapters/stores/artifact-store.js')
const base = mkdtempSync(join(tmpdir(), 'artifact-store-'))

afterAll(async () => {
  await rest.close()
  await server.close()
  await rm(base, { recursive: true, force: true })
})

/** An artifact store acting as a job of a new run; `warnings` collects the notes it gives as warnings. */
function artifactJob(auditDir?: string, runId = newRunId(), warnings?: string[]) {
  return new ArtifactStore({
    ...(warnings ? { onNote: (message: string, level: string) => level === 'warning' && warnings.push(message) } : {}),
    token: REST_TOKEN,
    repository: REPOSITORY,
    runId,
    apiUrl: rest.url,
    workDir: join(base, `work-${runId}`),
    env: jobEnv(server, base, { repository: REPOSITORY, runId, ref: 'refs/heads/main' }),
    echoLog: false,
    ...(auditDir ? { auditDir: () => auditDir } : {}),
  })
}

/** Uploads raw text as a new snapshot through the real `@actions/artifact`, as a foreign job would. */
async function plantSnapshot(loopId: string, text: string) {
  const runId = newRunId()
  const folder = join(base, `plant-${runId}`)
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, STATE_FILE), text)
  const { DefaultArtifactClient } = await import('@actions/artifact')
  const name = artifactJob().artifactName(loopId)
  await withActionsEnv(jobEnv(server, base, { repository: REPOSITORY, runId, ref: 'refs/heads/main' }), () =>
    new DefaultArtifactClient().uploadArtifact(name, [join(folder, STATE_FILE)], folder),
  )
}

runStoreContract('artifact', async () => ({
  store: async () => artifactJob(),
  plant: plantSnapshot,
  readQuarantined: (at) => readFile(join(at, STATE_FILE), 'utf8'),
}))

describe('artifact store: snapshots, expiry and runs', () => {
  it('uploads the audit trail with each snapshot and reads across runs', async () => {
    const audit = join(base, 'audit-trail')
    await mkdir(join(audit, 'iterations'), { recursive: true })
    await writeFile(join(audit, 'iterations', '1.md'), '# iteration 1\n')
    const loopId = freshLoopId('audit')
    const before = server.requests.length
    const version = await artifactJob(audit).save(loopId, makeState(loopId, 1), null)
    // What @actions/artifact really sends: staged blocks and a block list, then a finalize.
    const operations = server.requests.slice(before).map((r) => r.operation)
    expect(operations).toEqual(
      expect.arrayContaining(['CreateArtifact', 'PutBlock', 'PutBlockList', 'FinalizeArtifact']),
    )
    const record = server.artifacts.find((a) => String(a.id) === version)
    expect(record?.name).toBe(`loop-state-${loopId}`)
    expect(record?.size).toBeGreaterThan(0)
    expect((await artifactJob().load(loopId))?.version).toBe(version)
  })

  it('warns of a rollback when the newest snapshot expired, and when every one did; an old one expiring is a plain note', async () => {
    const loopId = freshLoopId('expiry')
    const store = artifactJob()
    const v0 = await store.save(loopId, makeState(loopId, 1), null)
    const v1 = await artifactJob().save(loopId, makeState(loopId, 1), v0)
    server.artifacts.find((a) => String(a.id) === v0)!.expired = true
    const quiet: string[] = []
    const current = artifactJob(undefined, undefined, quiet)
    expect((await current.load(loopId))?.version).toBe(v1)
    expect(current.notes.join('\n')).toMatch(/skipped 1 expired snapshot/)
    expect(quiet).toEqual([])

    const v2 = await artifactJob().save(loopId, makeState(loopId, 2), v1)
    server.artifacts.find((a) => String(a.id) === v2)!.expired = true
    const warned: string[] = []
    const reader = artifactJob(undefined, undefined, warned)
    const loaded = await reader.load(loopId)
    expect(loaded?.version).toBe(v1)
    expect(warned.join('\n')).toMatch(
      new RegExp(
        `the 1 newest snapshot\\(s\\) of loop-state-${loopId} expired \\(#${v2}\\): what is read is the older snapshot #${v1}, a rollback`,
      ),
    )
    server.expireArtifacts(`loop-state-${loopId}`)
    const lateWarnings: string[] = []
    const late = artifactJob(undefined, undefined, lateWarnings)
    expect(await late.load(loopId)).toBeNull()
    expect(lateWarnings.join('\n')).toMatch(/expired .*: no snapshot of it is left/)
    await expect(artifactJob().save(loopId, makeState(loopId, 3), v1)).rejects.toBeInstanceOf(StoreConflictError)
  })

  it('follows the pages of the artifact list: the readable snapshot behind 120 newer expired ones is found', async () => {
    const loopId = freshLoopId('paged')
    const v1 = await artifactJob().save(loopId, makeState(loopId, 1), null)
    const saved = server.artifacts.find((a) => String(a.id) === v1)!
    // GitHub keeps listing expired artifacts (expired: true), newest first, 100 a page at most.
    for (let index = 0; index < 120; index++) {
      server.artifacts.push({
        ...saved,
        // Ids and run ids far from those the server and newRunId() hand out to later tests.
        id: 8_000_000 + index,
        runId: 9_000_000 + index,
        createdAt: new Date(saved.createdAt.getTime() + 1000 * (index + 1)),
        expired: true,
      })
    }
    const listed = await fetch(
      `${rest.url}/repos/${REPOSITORY}/actions/artifacts?name=loop-state-${loopId}&per_page=100`,
      {
        headers: { authorization: `token ${REST_TOKEN}` },
      },
    )
    expect(listed.headers.get('link')).toMatch(/<http:\/\/127\.0\.0\.1:\d+\/repos\/[^>]*page=2>; rel="next"/)
    const reader = artifactJob()
    expect((await reader.load(loopId))?.version).toBe(v1)
    expect(reader.notes.join('\n')).toMatch(
      /the 120 newest snapshot\(s\) of \S+ expired \(#8000119, .* and 110 more\): what is read is the older snapshot #\d+, a rollback/,
    )
  })

  it('replaces its own earlier snapshot when it saves twice in one run', async () => {
    const loopId = freshLoopId('same-run')
    const store = artifactJob()
    const v1 = await store.save(loopId, makeState(loopId, 1), null)
    const v2 = await store.save(loopId, makeState(loopId, 2), v1)
    expect(server.artifacts.filter((a) => a.name === `loop-state-${loopId}`).map((a) => String(a.id))).toEqual([v2])
    expect((await artifactJob().load(loopId))?.state.iteration).toBe(2)
  })

  it('answers 401 to REST calls without the token', async () => {
    const response = await fetch(`${rest.url}/repos/${REPOSITORY}/actions/artifacts`)
    expect(response.status).toBe(401)
  })
})
