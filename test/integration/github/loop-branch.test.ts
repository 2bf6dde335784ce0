// The loop's branch against real git: a bare remote and two clones in a temporary folder.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { checkoutLoopBranch, pushAuthEnv, pushLoopBranch } from '../../../src/app/loop-branch.js'

const identity = { name: 'loop-controller', email: 'loop@example.invalid' }
let root = ''

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

function commitFile(cwd: string, file: string, text: string, message: string): void {
  writeFileSync(join(cwd, file), text)
  git(cwd, 'add', file)
  git(cwd, 'commit', '-q', '-m', message)
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-branch-'))
  git(root, 'init', '-q', '--bare', 'remote.git')
  git(root, 'clone', '-q', 'remote.git', 'seed')
  const seed = join(root, 'seed')
  commitFile(seed, 'a.txt', 'one\ntwo\nthree\n', 'initial')
  git(seed, 'push', '-q', 'origin', 'HEAD:refs/heads/main')
  git(root, 'clone', '-q', '-b', 'main', 'remote.git', 'runner')
  git(root, 'clone', '-q', '-b', 'main', 'remote.git', 'other')
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('checkoutLoopBranch', () => {
  it('starts the branch here when the remote has none, and continues it when it has', async () => {
    const runner = new GitCli(join(root, 'runner'))
    expect(await checkoutLoopBranch(runner, 'loop/issue-1')).toMatchObject({ created: true })
    expect(await runner.currentBranch()).toBe('loop/issue-1')
    commitFile(join(root, 'runner'), 'b.txt', 'work\n', 'loop: work')
    expect((await pushLoopBranch(runner, { branch: 'loop/issue-1', identity })).kind).toBe('pushed')

    const other = new GitCli(join(root, 'other'))
    const checkout = await checkoutLoopBranch(other, 'loop/issue-1')
    expect(checkout.created).toBe(false)
    expect(checkout.head).toBe(git(join(root, 'runner'), 'rev-parse', 'HEAD'))
  })
})

describe('pushLoopBranch', () => {
  it('fetches, rebases and retries when the remote moved on', async () => {
    const runner = new GitCli(join(root, 'runner'))
    const other = new GitCli(join(root, 'other'))
    await checkoutLoopBranch(other, 'loop/x')
    commitFile(join(root, 'other'), 'c.txt', 'theirs\n', 'someone else')
    await pushLoopBranch(other, { branch: 'loop/x', identity })

    await checkoutLoopBranch(runner, 'loop/x')
    git(join(root, 'runner'), 'reset', '-q', '--hard', 'origin/main')
    commitFile(join(root, 'runner'), 'd.txt', 'ours\n', 'loop: ours')
    const outcome = await pushLoopBranch(runner, { branch: 'loop/x', identity })
    expect(outcome).toMatchObject({ kind: 'pushed', attempts: 2 })
    const log = git(join(root, 'remote.git'), 'log', '--format=%s', 'loop/x')
    expect(log.split('\n')).toEqual(['loop: ours', 'someone else', 'initial'])
  })

  it('reports a conflict as merge-conflict text and never overwrites the remote', async () => {
    const runner = new GitCli(join(root, 'runner'))
    const other = new GitCli(join(root, 'other'))
    await checkoutLoopBranch(other, 'loop/y')
    commitFile(join(root, 'other'), 'a.txt', 'one\nTHEIRS\nthree\n', 'theirs')
    await pushLoopBranch(other, { branch: 'loop/y', identity })
    const theirs = git(join(root, 'remote.git'), 'rev-parse', 'loop/y')

    await checkoutLoopBranch(runner, 'loop/y')
    git(join(root, 'runner'), 'reset', '-q', '--hard', 'origin/main')
    commitFile(join(root, 'runner'), 'a.txt', 'one\nOURS\nthree\n', 'ours')
    const before = git(join(root, 'runner'), 'rev-parse', 'HEAD')
    const outcome = await pushLoopBranch(runner, { branch: 'loop/y', identity })
    expect(outcome.kind).toBe('conflict')
    if (outcome.kind !== 'conflict') return
    expect(outcome.paths).toEqual(['a.txt'])
    expect(outcome.message).toContain('CONFLICT (content): Merge conflict in a.txt')
    expect(outcome.message).toContain('Automatic merge failed')
    expect(git(join(root, 'remote.git'), 'rev-parse', 'loop/y')).toBe(theirs)
    expect(git(join(root, 'runner'), 'rev-parse', 'HEAD')).toBe(before)
  })

  it('fails plainly on a push that is refused for another reason', async () => {
    const runner = new GitCli(join(root, 'runner'))
    await checkoutLoopBranch(runner, 'loop/z')
    const outcome = await pushLoopBranch(runner, { branch: 'loop/z', identity, remote: 'nowhere' })
    expect(outcome.kind).toBe('failed')
  })
})

describe('pushAuthEnv', () => {
  it('clears the persisted header and sends only the push token', () => {
    const env = pushAuthEnv('https://github.com/', 'tok')
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${Buffer.from('x-access-token:tok').toString('base64')}`,
    })
  })
})
