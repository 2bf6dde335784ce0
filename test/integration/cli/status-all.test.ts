// `status --all`: every loop in the state directory on one line each, and as JSON.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

const config = (passes: boolean) =>
  [
    'goal: Make the file.',
    'max-iterations: 2',
    'work:',
    '  run: touch made',
    'checks:',
    '  - name: made',
    '    kind: test',
    `    run: ${passes ? 'test -f made' : '"false"'}`,
    '',
  ].join('\n')

describe('status --all', () => {
  it('lists every loop with its stage, status, iterations of its cap and last verdict', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': config(true), 'red.yml': config(false) } })
    expect((await cli(repo, 'run', '--loop-id', 'green', '--no-commit')).code).toBe(0)
    await cli(repo, 'run', '--loop-id', 'red', '--no-commit', '--config', 'red.yml')

    const all = await cli(repo, 'status', '--all')
    expect(all.code).toBe(0)
    const lines = all.stdout.trim().split('\n')
    // No loop is queued: no queue column. Each loop's last save as an age.
    expect(lines[0]).toMatch(
      /^loop\s+stage\s+status\s+iterations\s+spent\s+last verdict\s+issue\s+pull request\s+last run\s+updated$/,
    )
    expect(lines[1]).toMatch(
      /^green\s+COMPLETE\s+complete\s+1 of 2\s+(<1|\d+) s\s+pass \(all 1\)\s+-\s+-\s+-\s+(just now|\d+m ago)$/,
    )
    expect(lines[2]).toMatch(
      /^red\s+\w+\s+(blocked|capped)\s+\d of 2\s+(<1|\d+) s\s+fail: made \(1 of 1\)\s+-\s+-\s+-\s+(just now|\d+m ago)$/,
    )

    // A loop that started from an issue and ran on GitHub (its state from the git store's branch).
    const path = join(repo, '.loop', 'green', 'loop-state.json')
    const lastRun = { id: '77', url: 'https://github.com/acme/demo/actions/runs/77' }
    const task = { source: 'issue', number: 12, title: 'Make it', body: '', author: 'alice' }
    const pullRequest = { number: 57, url: 'https://github.com/acme/demo/pull/57', merged: false }
    const saved = JSON.parse(readFileSync(path, 'utf8'))
    writeFileSync(path, JSON.stringify({ ...saved, task, lastRun, pullRequest }))
    const json = JSON.parse((await cli(repo, 'status', '--all', '--json')).stdout) as Record<string, unknown>[]
    expect(json.map((loop) => [loop.loopId, loop.status, loop.issue, loop.lastRun])).toEqual([
      ['green', 'complete', 12, lastRun],
      ['red', expect.stringMatching(/^(blocked|capped)$/), null, null],
    ])
    // What the table shows, each as a script reads it: the pull request, the last verdict with every
    // failing check, and the last save as its time.
    expect(json.map((loop) => [loop.pullRequest, loop.lastVerdict, loop.failingChecks])).toEqual([
      [{ number: 57, url: pullRequest.url }, 'pass (all 1)', []],
      [null, 'fail: made (1 of 1)', ['made']],
    ])
    expect(json[0]?.updatedAt).toBe(saved.updatedAt)
    expect(Date.parse(String(json[1]?.updatedAt))).not.toBeNaN()
    // No remote to take the repository's address from: the run's own address as the state kept it.
    expect((await cli(repo, 'status', '--all')).stdout.split('\n')[1]).toMatch(
      /^green\s.*\s#12\s+#57\s+https:\/\/github\.com\/acme\/demo\/actions\/runs\/77\s+(just now|\d+m ago)$/,
    )
  }, 120_000)

  it('lists the loops by id with their numbers by value, as the dashboard does, in the table and in --json', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': config(true) } })
    expect((await cli(repo, 'run', '--loop-id', 'green', '--no-commit')).code).toBe(0)
    const green = JSON.parse(readFileSync(join(repo, '.loop', 'green', 'loop-state.json'), 'utf8'))
    for (const loopId of ['issue-100', 'issue-2', 'issue-10']) {
      mkdirSync(join(repo, '.loop', loopId), { recursive: true })
      writeFileSync(join(repo, '.loop', loopId, 'loop-state.json'), JSON.stringify({ ...green, loopId }))
    }
    const want = ['green', 'issue-2', 'issue-10', 'issue-100']
    const all = await cli(repo, 'status', '--all')
    expect(
      all.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
      all.stderr,
    ).toEqual(want)
    const json = JSON.parse((await cli(repo, 'status', '--all', '--json')).stdout) as { loopId: string }[]
    expect(json.map((loop) => loop.loopId)).toEqual(want)
  }, 120_000)

  it('lists a loop whose state cannot be read on every run: nothing is moved aside by a listing', async () => {
    const repo = tempRepo({ files: { '.github/loop.yml': config(true) } })
    expect((await cli(repo, 'run', '--loop-id', 'green', '--no-commit')).code).toBe(0)
    const broken = join(repo, '.loop', 'broken', 'loop-state.json')
    mkdirSync(join(repo, '.loop', 'broken'))
    writeFileSync(broken, '{ not json')
    const first = await cli(repo, 'status', '--all')
    const second = await cli(repo, 'status', '--all')
    // The same loops both times (the broken one first, by id); only green's age may have moved on.
    for (const listed of [first, second]) {
      expect(listed.code).toBe(0)
      expect(listed.stderr).toBe('warning: 1 loop(s) unreadable (--json shows each problem in full)\n')
      expect(listed.stdout.split('\n').map((line) => line.split(/\s+/)[0])).toEqual(['loop', 'broken', 'green', ''])
    }
    expect(second.stdout.split('\n')[1]).toBe(first.stdout.split('\n')[1])
    expect(first.stdout.split('\n')[1]).toMatch(
      /^broken\s+-\s+unreadable\s+-\s+-\s+not a valid loop state: it is not JSON \(.{10,}…\s/,
    )
    // The text cuts the problem short; --json has it whole.
    const json = JSON.parse((await cli(repo, 'status', '--all', '--json')).stdout) as { problem?: string }[]
    expect(json[0]?.problem).toMatch(/^not a valid loop state: it is not JSON \(.+\) \(.+loop-state\.json\)$/)
    expect(readFileSync(broken, 'utf8')).toBe('{ not json')
    expect(readdirSync(join(repo, '.loop', 'broken'))).toEqual(['loop-state.json'])
  }, 120_000)

  it('says so when there is no loop yet', async () => {
    const repo = tempRepo()
    const none = await cli(repo, 'status', '--all')
    expect([none.code, none.stdout]).toEqual([0, "No loops yet in .loop. Start one with 'loop-controller run'.\n"])
  })

  it('in a clone of a repository whose loops run on GitHub, points at the remote`s state branch', async () => {
    const remote = tempRepo()
    const commit = ['-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '--quiet', '--allow-empty', '-m', 'states']
    execFileSync('git', ['-C', remote, 'checkout', '--quiet', '--orphan', 'loop-state'])
    execFileSync('git', ['-C', remote, ...commit])
    execFileSync('git', ['-C', remote, 'checkout', '--quiet', 'main'])
    const clone = join(tempRepo(), 'clone')
    execFileSync('git', ['clone', '--quiet', remote, clone])
    const none = await cli(clone, 'status', '--all')
    expect([none.code, none.stdout]).toEqual([
      0,
      "No loops yet in .loop. Start one with 'loop-controller run'. The loops the action runs are on " +
        "origin/loop-state: 'loop-controller status --all --remote origin'.\n",
    ])
  })
})
