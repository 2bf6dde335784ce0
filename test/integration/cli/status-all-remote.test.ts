// `status --all --remote`: the loops the action keeps on the `git` store's branch of a real (bare, or
// served over HTTP with a token) remote, with the queue's places in line, read without writing anything
// to the remote; a remote it cannot read is said plainly, as the user's to fix.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { GitSlotStore } from '../../../src/adapters/stores/git-slot-store.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { GitServer } from '../../sandbox/git-server.js'
import { makeState } from '../stores/fixtures.js'
import { cli, tempRepo } from './helpers.js'

const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }

/** A repository whose `origin` is a bare repository, and a job's view of that remote's state branch. */
function repoWithRemote(branch = 'loop-state') {
  const repo = tempRepo()
  const base = mkdtempSync(join(tmpdir(), 'loop-cli-remote-'))
  const bare = join(base, 'remote.git')
  execFileSync('git', ['init', '--bare', '--quiet', bare])
  execFileSync('git', ['remote', 'add', 'origin', bare], { cwd: repo })
  const store = new GitStore({ repoDir: repo, remote: 'origin', branch, identity, workDir: join(base, 'w1') })
  const slots = new GitSlotStore({ repoDir: repo, remote: 'origin', branch, identity, workDir: join(base, 'w2') })
  const tip = () => execFileSync('git', ['--git-dir', bare, 'rev-parse', branch], { encoding: 'utf8' }).trim()
  return { repo, base, bare, store, slots, tip }
}

describe('status --all --remote', () => {
  it('lists the loops on the state branch, with the places in line, and writes nothing', async () => {
    const { repo, store, slots, tip } = repoWithRemote()
    await store.save('issue-12', { ...makeState('issue-12', 3), status: 'running' }, null)
    await store.save('issue-15', { ...makeState('issue-15', 0), status: 'queued' }, null)
    await store.save('issue-16', { ...makeState('issue-16', 0), status: 'queued' }, null)
    await slots.update(['issue-12', 'issue-15', 'issue-16'], (record) => ({
      record: {
        running: [{ loopId: 'issue-12', since: '2026-11-26T10:00:00.000Z' }],
        queued: [
          {
            loopId: 'issue-15',
            dependsOn: [],
            workflow: 'loop.yml',
            ref: 'refs/heads/main',
            since: '2026-11-26T10:01:00.000Z',
          },
          {
            loopId: 'issue-16',
            dependsOn: ['issue-12'],
            workflow: 'loop.yml',
            ref: 'refs/heads/main',
            since: '2026-11-26T10:02:00.000Z',
          },
        ],
      },
      result: record,
    }))
    const before = tip()

    const all = await cli(repo, 'status', '--all', '--remote', 'origin')
    expect([all.code, all.stderr]).toEqual([0, ''])
    const lines = all.stdout.trim().split('\n')
    expect(lines[0]).toMatch(
      /^loop\s+stage\s+status\s+iterations\s+spent\s+last verdict\s+issue\s+pull request\s+last run\s+queue\s+updated$/,
    )
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/)[0])).toEqual(['issue-12', 'issue-15', 'issue-16'])
    expect(lines[1]).toMatch(/\srunning\s+3 of \d+\s.*\s-\s+\d+d \d+h ago$/)
    // The workflow's limit is not on the branch: none is invented, the place in line is still said.
    expect(lines[2]).toMatch(
      /\squeued\s.*1 of 2 in line: it waits for a slot: 1 running, limit unknown \(give --max-loops\)\s+\d+d \d+h ago$/,
    )
    expect(lines[3]).toMatch(/\squeued\s.*2 of 2 in line: it waits for #12 to be COMPLETE\s+\d+d \d+h ago$/)

    // The workflow's limit, when given, says a slot would be free under it: the queue recorded none.
    const roomy = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', '2', '--json')
    const json = JSON.parse(roomy.stdout) as { loopId: string; status: string; queue: string }[]
    expect(json.map((loop) => [loop.loopId, loop.status, loop.queue])).toEqual([
      ['issue-12', 'running', '-'],
      ['issue-15', 'queued', '1 of 2 in line: under max-loops 2 a slot would be free (the queue records no limit)'],
      ['issue-16', 'queued', '2 of 2 in line: it waits for #12 to be COMPLETE'],
    ])
    expect(tip()).toBe(before)

    // A queue changed by this version records the limit it was made under: that one is said.
    await slots.update([], (record) => ({ record: { ...record, limit: 1 }, result: record }))
    const recorded = await cli(repo, 'status', '--all', '--remote', 'origin')
    expect(recorded.stdout.trim().split('\n')[2]).toMatch(
      /\squeued\s.*1 of 2 in line: its one slot is in use \(max-loops: 1\)\s+\d+d \d+h ago$/,
    )
    // Another limit than the recorded one is the reader's supposition, said as one.
    const supposed = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', '3')
    expect(supposed.stdout.trim().split('\n')[2]).toMatch(
      /1 of 2 in line: under max-loops 3 a slot would be free \(the queue was last changed under max-loops 1\)/,
    )
    const same = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', '1')
    expect(same.stdout.trim().split('\n')[2]).toMatch(/1 of 2 in line: its one slot is in use \(max-loops: 1\)/)
  }, 60_000)

  it('names a state it cannot read instead of quarantining it, and pushes nothing', async () => {
    const { repo, base, bare, store, tip } = repoWithRemote('loops')
    await store.save('good', makeState('good', 1), null)
    // A state another tool broke: the listing names it; only a loop job may set it aside.
    const work = join(base, 'breaker')
    execFileSync('git', ['clone', '--quiet', '--branch', 'loops', bare, work])
    execFileSync('git', ['-C', work, 'rm', '--quiet', '-r', 'good'])
    execFileSync('mkdir', ['-p', join(work, 'broken')])
    execFileSync('sh', ['-c', `printf '{"loopId":"broken","stage":42}' > ${join(work, 'broken', 'loop-state.json')}`])
    execFileSync('git', ['-C', work, 'add', '-A'])
    execFileSync('git', ['-C', work, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '--quiet', '-m', 'break'])
    execFileSync('git', ['-C', work, 'push', '--quiet', 'origin', 'loops'])
    const before = tip()

    const all = await cli(repo, 'status', '--all', '--remote', 'origin', '--state-branch', 'loops')
    expect([all.code, all.stderr]).toEqual([0, 'warning: 1 loop(s) unreadable (--json shows each problem in full)\n'])
    expect(all.stdout).toMatch(
      /^broken\s+-\s+unreadable\s+-\s+-\s+loops:broken\/loop-state\.json is not a valid loop state/m,
    )
    expect(tip()).toBe(before)
  }, 60_000)

  it('says when the branch is not there yet, and refuses what it cannot use', async () => {
    const { repo } = repoWithRemote()
    const none = await cli(repo, 'status', '--all', '--remote', 'origin')
    expect([none.code, none.stdout]).toEqual([
      0,
      'The branch loop-state of origin does not exist yet: no loop has saved its state there ' +
        '(a workflow whose state-branch input names another branch: give --state-branch).\n',
    ])
    const noRemote = await cli(repo, 'status', '--all', '--state-branch', 'loops')
    expect(noRemote.code).not.toBe(0)
    expect(noRemote.stderr).toContain('--state-branch names the branch of a remote: give --remote too')
    const badBranch = await cli(repo, 'status', '--all', '--remote', 'origin', '--state-branch', '../up')
    expect(badBranch.stderr).toContain('--state-branch must be a plain branch name')
    expect(badBranch.stderr).toContain("got '../up'")
    // An option the command would ignore is refused, naming it and what it needs.
    const noAll = await cli(repo, 'status', '--remote', 'origin')
    expect([noAll.code, noAll.stdout]).toEqual([2, ''])
    expect(noAll.stderr).toContain(
      "--remote is read only with --all: 'status --all --remote NAME' lists the loops on that remote's state branch.",
    )
    // --max-loops says the places in line of a remote's listing: --all alone ignored it.
    const limitNeeds =
      "--max-loops is read only with --all --remote: 'status --all --remote NAME --max-loops N' says the places in line under that limit."
    for (const args of [
      ['--max-loops', '3'],
      ['--all', '--max-loops', '3'],
    ]) {
      const limitWithoutRemote = await cli(repo, 'status', ...args)
      expect([limitWithoutRemote.code, limitWithoutRemote.stdout, limitWithoutRemote.stderr]).toEqual([
        2,
        '',
        expect.stringContaining(limitNeeds),
      ])
    }
    const oneAndAll = await cli(repo, 'status', '--all', '--loop-id', 'issue-12')
    expect([oneAndAll.code, oneAndAll.stderr]).toEqual([
      2,
      expect.stringContaining('--loop-id names one loop, and --all lists every loop: give one of them'),
    ])
    const historyAll = await cli(repo, 'history', '--all')
    expect([historyAll.code, historyAll.stderr]).toEqual([2, expect.stringContaining("--all is read by 'status' only")])
    const badLimit = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', 'two')
    expect(badLimit.stderr).toContain(
      "--max-loops must be a whole number from 1 to 1000 (the workflow's max-loops); got 'two'",
    )
  }, 60_000)

  it('says a remote it cannot read as the user`s to fix: exit 2, no stack trace', async () => {
    const { repo, base } = repoWithRemote()
    const unknownRemote = await cli(repo, 'status', '--all', '--remote', 'upstream')
    expect([unknownRemote.code, unknownRemote.stderr, unknownRemote.stdout]).toEqual([
      2,
      "loop-controller: no remote 'upstream' in this clone; `git remote -v` lists them, or give a URL.\n",
      '',
    ])
    const missing = join(base, 'nowhere.git')
    const noRepository = await cli(repo, 'status', '--all', '--remote', missing)
    expect(noRepository.code).toBe(2)
    expect(noRepository.stderr).toBe(
      `loop-controller: cannot read the remote '${missing}': '${missing}' does not appear to be a git repository. ` +
        'Check the name or URL; a private repository needs GH_TOKEN or GITHUB_TOKEN.\n',
    )
    // Nothing listens on port 1: git's own words for it, said once, on one line.
    const closed = await cli(repo, 'status', '--all', '--remote', 'http://127.0.0.1:1/acme/demo.git')
    expect(closed.code).toBe(2)
    expect(closed.stderr).toMatch(
      /^loop-controller: cannot read the remote 'http:\/\/127\.0\.0\.1:1\/acme\/demo\.git': unable to access '[^']+': .*\. Check the name or URL; a private repository needs GH_TOKEN or GITHUB_TOKEN\.\n$/,
    )
  }, 60_000)
})

describe('status --all --remote over HTTP', () => {
  let server: GitServer | undefined
  afterEach(async () => {
    vi.unstubAllEnvs()
    await server?.close()
  })

  it('links each last run from the remote`s address, with the token from GH_TOKEN; without it, says why', async () => {
    server = await GitServer.start({ token: 'ghs_loopback' })
    const url = `${await server.createRepository('acme/demo.git')}`
    const repo = tempRepo()
    const base = mkdtempSync(join(tmpdir(), 'loop-cli-http-'))
    const store = new GitStore({
      repoDir: repo,
      remote: url,
      identity,
      token: 'ghs_loopback',
      workDir: join(base, 'w'),
    })
    const lastRun = { id: '4242', url: 'https://elsewhere.example/runs/1' }
    await store.save('issue-3', { ...makeState('issue-3', 2), status: 'running', lastRun }, null)
    execFileSync('git', ['remote', 'add', 'origin', url], { cwd: repo })

    vi.stubEnv('GH_TOKEN', '')
    vi.stubEnv('GITHUB_TOKEN', '')
    const refused = await cli(repo, 'status', '--all', '--remote', 'origin')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      new RegExp(
        `^loop-controller: cannot read the remote 'origin' \\(${url.replace(/[.]/g, '\\.')}\\): .+\\. Check the name or URL; a private repository needs GH_TOKEN or GITHUB_TOKEN\\.\\n$`,
      ),
    )

    vi.stubEnv('GH_TOKEN', 'ghs_loopback')
    const all = await cli(repo, 'status', '--all', '--remote', 'origin')
    expect([all.code, all.stderr]).toEqual([0, ''])
    const web = url.replace(/\.git$/, '')
    expect(all.stdout.trim().split('\n')[1]).toMatch(
      new RegExp(`^issue-3\\s+.*\\s${web}/actions/runs/4242\\s+\\d+d \\d+h ago$`),
    )
    const json = JSON.parse((await cli(repo, 'status', '--all', '--remote', 'origin', '--json')).stdout)
    expect(json[0].lastRun).toEqual({ id: '4242', url: `${web}/actions/runs/4242` })
  }, 60_000)
})
