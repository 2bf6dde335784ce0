// `status --all --remote`: the loops the action keeps on the `git` store's branch of a real (bare)
// remote, with the queue's places in line, read without writing anything to the remote.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GitSlotStore } from '../../../src/adapters/stores/git-slot-store.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
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
    expect(lines[0]).toMatch(/^loop\s+stage\s+status\s+iterations\s+spent\s+last verdict\s+issue\s+pull request/)
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/)[0])).toEqual(['issue-12', 'issue-15', 'issue-16'])
    expect(lines[1]).toMatch(/\srunning\s+3 of \d+\s.*\s-$/)
    expect(lines[2]).toMatch(/\squeued\s.*1 of 2 in line: all 1 slots are in use \(max-loops: 1\)$/)
    expect(lines[3]).toMatch(/\squeued\s.*2 of 2 in line: it waits for #12 to be COMPLETE$/)

    // The workflow's limit, when given, says a slot is free.
    const roomy = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', '2', '--json')
    const json = JSON.parse(roomy.stdout) as { loopId: string; status: string; queue: string }[]
    expect(json.map((loop) => [loop.loopId, loop.status, loop.queue])).toEqual([
      ['issue-12', 'running', '-'],
      ['issue-15', 'queued', '1 of 2 in line: a slot is free; it starts at the next change of the queue'],
      ['issue-16', 'queued', '2 of 2 in line: it waits for #12 to be COMPLETE'],
    ])
    expect(tip()).toBe(before)
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
    expect(all.code).toBe(0)
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
      'The branch loop-state of origin does not exist yet (no loop has saved its state there).\n',
    ])
    const noRemote = await cli(repo, 'status', '--all', '--state-branch', 'loops')
    expect(noRemote.code).not.toBe(0)
    expect(noRemote.stderr).toContain('--state-branch names the branch of a remote: give --remote too')
    const badBranch = await cli(repo, 'status', '--all', '--remote', 'origin', '--state-branch', '../up')
    expect(badBranch.stderr).toContain('--state-branch must be a plain branch name')
    expect(badBranch.stderr).toContain("got '../up'")
    const badLimit = await cli(repo, 'status', '--all', '--remote', 'origin', '--max-loops', 'two')
    expect(badLimit.stderr).toContain(
      "--max-loops must be a whole number from 1 to 1000 (the workflow's max-loops); got 'two'",
    )
    const unknownRemote = await cli(repo, 'status', '--all', '--remote', 'upstream')
    expect(unknownRemote.code).not.toBe(0)
    expect(unknownRemote.stderr).toContain('upstream')
  }, 60_000)
})
