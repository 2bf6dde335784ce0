import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitPushRejectedError, GitStore } from '../../../src/adapters/stores/git-store.js'
import { encodeLoopId } from '../../../src/adapters/stores/shared.js'
import { GitServer } from '../../sandbox/git-server.js'
import { makeState } from './fixtures.js'
import { freshLoopId, runStoreContract } from './store-contract.js'
import { addIteration, readTrail } from './trail.js'

const TOKEN = 'ghs_loopback_git_token'
const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }
let server: GitServer
let base: string
let url: string
let bare: string
let writers = 0
const run = promisify(execFile)

// Asynchronous on purpose: the git server runs in this process, so a synchronous git call would block it.
const git = async (cwd: string, ...args: string[]) =>
  (
    await run('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`,
      },
    })
  ).stdout

beforeAll(async () => {
  server = await GitServer.start({ token: TOKEN })
  base = mkdtempSync(join(tmpdir(), 'git-store-'))
  url = await server.createRepository('octo/loop.git')
  bare = server.repositoryPath('octo/loop.git')
})
afterAll(async () => {
  await server?.close()
  await rm(base, { recursive: true, force: true })
})

/** A git store acting as its own runner (own private repository), over the loopback remote. */
function gitJob(options: { token?: string; auditDir?: string } = {}) {
  writers++
  return new GitStore({
    repoDir: base,
    remote: url,
    identity,
    token: options.token ?? TOKEN,
    workDir: join(base, `store-${writers}`),
    ...(options.auditDir ? { auditDir: () => options.auditDir } : {}),
  })
}

/** Commits raw text as the loop's state on the branch through a clone, as another tool would. */
async function plantCommit(loopId: string, text: string) {
  const clone = join(base, `plant-${++writers}`)
  await git(base, 'clone', '--quiet', url, clone)
  const hasBranch = (await git(clone, 'ls-remote', '--heads', 'origin', 'loop-state')).trim() !== ''
  if (hasBranch) await git(clone, 'checkout', '--quiet', 'loop-state')
  else await git(clone, 'checkout', '--quiet', '--orphan', 'loop-state')
  await mkdir(join(clone, encodeLoopId(loopId)), { recursive: true })
  await writeFile(join(clone, encodeLoopId(loopId), 'loop-state.json'), text)
  await git(clone, 'add', '-A')
  await git(clone, 'commit', '--quiet', '-m', 'plant')
  await git(clone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/loop-state')
}

runStoreContract('git', async () => ({
  store: async () => gitJob(),
  plant: plantCommit,
  readQuarantined: async (at) =>
    execFileSync('git', ['--git-dir', bare, 'show', at.replace(/^loop-state:/, 'refs/heads/loop-state:')], {
      encoding: 'utf8',
    }),
}))

describe('git store: branch, lease and remote', () => {
  it('keeps one folder per loop on the branch and commits the audit trail', async () => {
    const audit = join(base, 'audit')
    await mkdir(join(audit, 'iterations'), { recursive: true })
    await writeFile(join(audit, 'iterations', '1.md'), '# iteration 1\n')
    const loopId = freshLoopId('folder')
    await gitJob({ auditDir: audit }).save(loopId, makeState(loopId, 1), null)
    const tree = execFileSync('git', ['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'refs/heads/loop-state'], {
      encoding: 'utf8',
    })
    expect(tree).toContain(`${loopId}/loop-state.json`)
    expect(tree).toContain(`${loopId}/audit/iterations/1.md`)
  })

  it('lists the loops on the branch by their ids (what the sweeper walks), not a stray folder or a bad file', async () => {
    const [plain, odd] = [freshLoopId('listed'), `${freshLoopId('listed')}/issue #7`]
    await gitJob().save(plain, makeState(plain, 1), null)
    await gitJob().save(odd, makeState(odd, 2), null)
    await plantCommit(freshLoopId('not-json'), '{ not json')
    const listed = await gitJob().listLoops()
    expect(listed).toContain(plain)
    expect(listed).toContain(odd)
    expect(listed.every((loopId) => !loopId.startsWith('not-json'))).toBe(true)
  })

  it('shows every loop read only: a damaged state and a quarantined one stay rows, listed twice alike, no commit made', async () => {
    const [good, damaged, quarantined] = [freshLoopId('shown'), freshLoopId('damaged'), freshLoopId('quarantined')]
    await gitJob().save(good, makeState(good, 1), null)
    await plantCommit(damaged, '{ not json')
    await plantCommit(quarantined, JSON.stringify({ loopId: quarantined, iteration: 'three' }))
    await expect(gitJob().load(quarantined)).rejects.toThrow(/moved to loop-state:/)
    const tip = () => execFileSync('git', ['--git-dir', bare, 'rev-parse', 'loop-state'], { encoding: 'utf8' }).trim()
    const before = tip()
    const reader = gitJob()
    const first = await reader.readLoops()
    const second = await gitJob().readLoops()
    expect(second).toEqual(first)
    expect(tip()).toBe(before)
    const rowOf = (loopId: string) => first.find((loop) => loop.loopId === loopId)
    expect(rowOf(good)?.state?.iteration).toBe(1)
    expect(rowOf(damaged)).toEqual({
      loopId: damaged,
      state: null,
      problem: expect.stringMatching(new RegExp(`^loop-state:${damaged}/loop-state.json is not JSON`)),
    })
    expect(rowOf(quarantined)).toEqual({
      loopId: quarantined,
      state: null,
      problem: expect.stringMatching(
        new RegExp(
          `^quarantined \\(.*not a valid loop state.*\\); kept at loop-state:${quarantined}/loop-state\\.invalid-`,
        ),
      ),
    })
    // The sweeper's listing still names only loops it can load.
    expect(await gitJob().listLoops()).not.toContain(damaged)
  })

  it('retries on the new tip when another loop moved the branch, without a conflict', async () => {
    const [a, b] = [freshLoopId('neighbour-a'), freshLoopId('neighbour-b')]
    const alice = gitJob()
    const va = await alice.save(a, makeState(a, 1), null)
    await gitJob().save(b, makeState(b, 1), null)
    // Alice's private copy of the branch is stale now, but her own loop is untouched.
    const next = await alice.save(a, makeState(a, 2), va)
    expect((await gitJob().load(a))?.version).toBe(next)
    expect((await gitJob().load(b))?.state.iteration).toBe(1)
  })

  it('reports a push the remote declines, and loses nothing', async () => {
    const loopId = freshLoopId('declined')
    const store = gitJob()
    const v1 = await store.save(loopId, makeState(loopId, 1), null)
    await server.rejectPushes('octo/loop.git', 'branch is protected')
    try {
      await expect(store.save(loopId, makeState(loopId, 2), v1)).rejects.toThrow(GitPushRejectedError)
      await expect(store.save(loopId, makeState(loopId, 2), v1)).rejects.toThrow(/branch is protected/)
    } finally {
      await server.rejectPushes('octo/loop.git', null)
    }
    const loaded = await gitJob().load(loopId)
    expect(loaded?.version).toBe(v1)
    expect(await store.save(loopId, makeState(loopId, 2), v1)).not.toBe(v1)
  })

  it('is refused with 401 without the token, and says so', async () => {
    const store = gitJob({ token: 'wrong' })
    await expect(store.load(freshLoopId('denied'))).rejects.toThrow(/Authentication failed|401|could not read Username/)
    expect(server.requests.some((r) => r.status === 401)).toBe(true)
  })

  it('never touches the user repository or its work tree', async () => {
    const user = join(base, 'user-repo')
    await git(base, 'clone', '--quiet', url, user)
    await writeFile(join(user, 'work.txt'), 'uncommitted work\n')
    const before = (await git(user, 'status', '--porcelain')) + (await git(user, 'for-each-ref'))
    const store = new GitStore({ repoDir: user, identity, token: TOKEN, workDir: join(base, 'store-user') })
    const loopId = freshLoopId('untouched')
    await store.save(loopId, makeState(loopId, 1), null)
    expect((await store.load(loopId))?.state.iteration).toBe(1)
    expect((await git(user, 'status', '--porcelain')) + (await git(user, 'for-each-ref'))).toBe(before)
  })

  it('runs no hook and honours no config the agent plants in its private repository (it sits in RUNNER_TEMP, writable by the agent)', async () => {
    const workDir = join(base, 'store-planted')
    const store = new GitStore({ repoDir: base, remote: url, identity, token: TOKEN, workDir })
    const loopId = freshLoopId('planted')
    const version = await store.save(loopId, makeState(loopId, 1), null)
    // The agent's hand, between two saves: a hook that dumps its environment (the token rides in it)
    // and a proxy for the remote.
    const dumped = join(base, 'planted-env')
    for (const hook of ['reference-transaction', 'pre-push', 'post-commit']) {
      await writeFile(join(workDir, 'hooks', hook), `#!/bin/sh\nenv >> "${dumped}"\n`, { mode: 0o755 })
    }
    await writeFile(join(workDir, 'config'), '[core]\n\tbare = true\n[http]\n\tproxy = http://127.0.0.1:9\n', {
      flag: 'a',
    })
    await store.save(loopId, makeState(loopId, 2), version)
    expect((await store.load(loopId))?.state.iteration).toBe(2)
    expect(existsSync(dumped), 'a planted hook ran with the token in its environment').toBe(false)
  })

  it(
    'pushes about one iteration per save, not the whole trail: 30 jobs, each on a fresh runner',
    async () => {
      const loopId = freshLoopId('growth')
      const expected = join(base, `expected-${loopId}`)
      const pushed: number[] = []
      let version: string | null = null
      for (let n = 1; n <= 30; n++) {
        const auditDir = join(base, `trail-${loopId}-${n}`)
        const store = gitJob({ auditDir })
        await store.restoreAudit(loopId, auditDir)
        await addIteration(auditDir, n)
        await addIteration(expected, n)
        const before = server.requests.length
        version = await store.save(loopId, makeState(loopId, n), version)
        const pushes = server.requests
          .slice(before)
          .filter((r) => r.method === 'POST' && r.path.endsWith('/git-receive-pack'))
        pushed.push(pushes.reduce((sum, r) => sum + r.bytesIn, 0))
      }
      const restoredTo = join(base, `trail-${loopId}-fresh`)
      await gitJob().restoreAudit(loopId, restoredTo)
      expect(await readTrail(restoredTo)).toEqual(await readTrail(expected))
      // Git sends only the objects the remote lacks (a thin pack): the journey log's new version as a delta.
      console.log(`git store bytes pushed per save (1..30): ${pushed.join(' ')}`)
      for (const [index, bytes] of pushed.entries()) {
        expect(bytes, `save ${index + 1} pushed ${bytes} bytes; the first, ${pushed[0]}`).toBeLessThan(2 * pushed[0]!)
      }
    },
    5 * 60_000,
  )
})
