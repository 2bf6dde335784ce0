import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { GitCli, GitCommandError } from '../../../src/adapters/git-cli.js'
import { tempDir } from './helpers.js'

const root = tempDir('loop-git-')
const bot = { name: 'Loop Bot', email: 'loop-bot@example.invalid' }
let counter = 0

/** Plain git for setting scenes up (the wrapper under test is not used for that). */
const sh = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
const write = (dir: string, path: string, content: string | Buffer) => {
  mkdirSync(join(dir, path, '..'), { recursive: true })
  writeFileSync(join(dir, path), content)
}

function freshRepo(): { dir: string; git: GitCli } {
  const dir = join(root, `repo-${++counter}`)
  mkdirSync(dir)
  sh(dir, 'init', '-q')
  return { dir, git: new GitCli(dir) }
}

describe('GitCli in a local repository', () => {
  let dir: string
  let git: GitCli
  beforeEach(() => {
    ;({ dir, git } = freshRepo())
  })

  it('knows a repository, an unborn head and the branch', async () => {
    expect(await git.isRepository()).toBe(true)
    expect(await new GitCli(root).isRepository()).toBe(false)
    expect(await git.head()).toBeNull()
    expect(await git.currentBranch()).toBe('main')
  })

  it('commits everything but the state folder with the given identity, without changing config', async () => {
    write(dir, 'src/a.ts', 'export const a = 1\n')
    write(dir, '.loop/demo/loop-state.json', '{}')
    const commit = await git.commitAll('loop: iteration 1', bot)
    expect(commit).toMatch(/^[0-9a-f]{40}$/)
    expect(await git.head()).toBe(commit)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('src/a.ts')
    expect(sh(dir, 'log', '-1', '--format=%an <%ae>|%cn|%s')).toBe(
      'Loop Bot <loop-bot@example.invalid>|Loop Bot|loop: iteration 1',
    )
    expect(await git.tryGetConfig('user.name')).toBe('Loop Test')
    expect(sh(dir, 'config', '--local', '--list')).not.toContain('user.')
  })

  it('commits and diffs when the state folder is also ignored by git', async () => {
    // `:(exclude)` pathspecs make `git add` fail on a path that is ignored too; this is the CLI's setup.
    write(dir, '.git/info/exclude', '.loop/\n')
    write(dir, '.gitignore', 'dist/\n')
    write(dir, '.loop/demo/loop-state.json', '{}')
    write(dir, 'dist/out.js', 'built')
    write(dir, 'a.txt', 'a\n')
    expect(await git.changedPaths(null)).toEqual(['.gitignore', 'a.txt'])
    const first = await git.commitAll('first', bot)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('.gitignore\na.txt')
    write(dir, '.loop/demo/loop-state.json', '{"changed":true}')
    write(dir, 'a.txt', 'b\n')
    expect(await git.changedPaths(first)).toEqual(['a.txt'])
    expect(await git.commitAll('second', bot)).toMatch(/^[0-9a-f]{40}$/)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('.gitignore\na.txt')
  })

  it('returns null when nothing but excluded paths changed', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    expect(await git.commitAll('again', bot)).toBeNull()
    write(dir, '.loop/x.json', '{}')
    write(dir, 'scratch/tmp.txt', 'x')
    expect(await git.commitAll('only excluded', bot, ['scratch'])).toBeNull()
  })

  it('makes no commit while a merge is in progress with nothing staged (git would commit the merge)', async () => {
    write(dir, 'a.txt', 'a\n')
    const first = await git.commitAll('first', bot)
    sh(dir, 'checkout', '-q', '-b', 'other')
    write(dir, 'b.txt', 'b\n')
    await git.commitAll('on other', bot)
    sh(dir, 'checkout', '-q', 'main')
    // `-s ours`: the merge keeps main's tree, so nothing is staged, yet MERGE_HEAD is there.
    sh(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'merge', '-q', '-s', 'ours', '--no-commit', 'other')
    expect(await git.commitAll('during a merge', bot)).toBeNull()
    expect(await git.head()).toBe(first)
  })

  it('commits a snapshot on top of HEAD apart from what changed after it, leaving the work tree alone', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    write(dir, 'a.txt', 'agent\n')
    write(dir, 'scratch/tmp.txt', 'x')
    const agentTree = await git.snapshot(['scratch'])
    write(dir, 'a.txt', 'fixed\n')
    const agent = await git.commitTree(agentTree, 'agent', bot)
    expect(agent).toMatch(/^[0-9a-f]{40}$/)
    expect(await git.head()).toBe(agent)
    expect(sh(dir, 'show', 'HEAD:a.txt')).toBe('agent')
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt')
    expect(sh(dir, 'log', '-1', '--format=%an <%ae>|%s')).toBe('Loop Bot <loop-bot@example.invalid>|agent')
    expect(await git.commitTree(agentTree, 'the same tree again', bot)).toBeNull()
    const fix = await git.commitAll('fix', bot, ['scratch'])
    expect(sh(dir, 'diff', '--name-only', `${agent}`, `${fix}`)).toBe('a.txt')
    expect(sh(dir, 'show', 'HEAD:a.txt')).toBe('fixed')
    expect(sh(dir, 'status', '--porcelain')).toBe('?? scratch/')
  })

  it('commits a snapshot as the first commit of an unborn branch', async () => {
    write(dir, 'a.txt', 'a\n')
    const commit = await git.commitTree(await git.snapshot(), 'first', bot)
    expect(await git.head()).toBe(commit)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt')
  })

  it('refuses to move a branch another process moved meanwhile', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    write(dir, 'a.txt', 'b\n')
    const tree = await git.snapshot()
    // HEAD as the caller read it, before another process committed.
    const stale = { commit: sh(dir, 'rev-parse', 'HEAD'), tree: sh(dir, 'rev-parse', 'HEAD^{tree}') }
    sh(dir, '-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'other')
    await expect(git.commitTree(tree, 'late', bot, stale)).rejects.toThrow(/another process committed/)
    expect(sh(dir, 'log', '-1', '--format=%s')).toBe('other')
  })

  it('commits the tree it staged, less the paths left out, and leaves the index as the commit', async () => {
    write(dir, 'a.txt', 'a\n')
    write(dir, 'secret.txt', 'old\n')
    await git.commitAll('first', bot)
    write(dir, 'a.txt', 'agent\n')
    write(dir, 'secret.txt', 'token\n')
    write(dir, 'new-secret.txt', 'token\n')
    write(dir, 'scratch/tmp.txt', 'x')
    const staged = await git.stageForCommit(['scratch'])
    expect(staged.head?.commit).toBe(sh(dir, 'rev-parse', 'HEAD'))
    // Made after the staging: not in the commit.
    write(dir, 'late.txt', 'late\n')
    const leaveOut = ['secret.txt', 'new-secret.txt']
    const message = 'loop: work  \n\n\nLoop-Id: demo\n'
    const commit = await git.commitStaged(staged, message, bot, { leaveOut, parent: staged.head })
    expect(await git.head()).toBe(commit)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt\nsecret.txt')
    expect(sh(dir, 'show', 'HEAD:secret.txt')).toBe('old')
    // Recorded as `git commit -m` records a message (its whitespace cleanup is `git stripspace`).
    const recorded = execFileSync('git', ['cat-file', 'commit', 'HEAD'], { cwd: dir, encoding: 'utf8' })
    const cleaned = execFileSync('git', ['stripspace'], { input: message, encoding: 'utf8' })
    expect(recorded.slice(recorded.indexOf('\n\n') + 2)).toBe(cleaned)
    expect(cleaned).toBe('loop: work\n\nLoop-Id: demo\n')
    // The index is the commit's: what was left out or came later is unstaged, as after git's own commit.
    expect(sh(dir, 'diff', '--cached', '--name-only')).toBe('')
    expect(
      sh(dir, 'status', '--porcelain', '--untracked-files=normal')
        .split('\n')
        .map((line) => line.trim())
        .sort(),
    ).toEqual(['?? late.txt', '?? new-secret.txt', '?? scratch/', 'M secret.txt'])
    // Nothing new to commit: none is made, and the paths left out are unstaged again.
    const again = await git.stageForCommit(['scratch', 'late.txt'])
    const parent = { commit: commit as string, tree: sh(dir, 'rev-parse', 'HEAD^{tree}') }
    expect(await git.commitStaged(again, 'again', bot, { leaveOut, parent })).toBeNull()
    expect(sh(dir, 'diff', '--cached', '--name-only')).toBe('')
  })

  it('screens each new content by its size and reads the text of those up to the limit, large ones between small', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    const large = 'x'.repeat(300)
    write(dir, 'a.txt', 'changed\n')
    write(dir, 'b-large.txt', large)
    write(dir, 'c.txt', 'c\n')
    write(dir, 'd-large.txt', `${large}y`)
    write(dir, 'e.txt', 'e\n')
    const staged = await git.stageForCommit()
    const candidates = await git.commitCandidates([staged.tree], null, 100, staged.head?.commit)
    expect(candidates.map(({ path, change, bytes, text }) => ({ path, change, bytes, text }))).toEqual([
      { path: 'a.txt', change: 'modified', bytes: 8, text: 'changed\n' },
      { path: 'b-large.txt', change: 'added', bytes: 300, text: null },
      { path: 'c.txt', change: 'added', bytes: 2, text: 'c\n' },
      { path: 'd-large.txt', change: 'added', bytes: 301, text: null },
      { path: 'e.txt', change: 'added', bytes: 2, text: 'e\n' },
    ])
  })

  it('reports a commit made between the staging and the commit, and commits nothing over it', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    write(dir, 'a.txt', 'agent\n')
    const staged = await git.stageForCommit()
    sh(dir, '-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'other')
    await expect(git.commitStaged(staged, 'late', bot, { leaveOut: [], parent: staged.head })).rejects.toThrow(
      /another process committed/,
    )
    expect(sh(dir, 'log', '-1', '--format=%s')).toBe('other')
  })

  it('finishes a merge in progress with git’s own commit, which keeps its second parent', async () => {
    write(dir, 'a.txt', 'a\n')
    await git.commitAll('first', bot)
    sh(dir, 'checkout', '-q', '-b', 'other')
    write(dir, 'b.txt', 'b\n')
    await git.commitAll('on other', bot)
    sh(dir, 'checkout', '-q', 'main')
    sh(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'merge', '-q', '--no-ff', '--no-commit', 'other')
    write(dir, 'c.txt', 'c\n')
    const staged = await git.stageForCommit()
    const merge = await git.commitStaged(staged, 'merged', bot, { leaveOut: [], parent: staged.head })
    expect(sh(dir, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3)
    expect(await git.head()).toBe(merge)
    expect(sh(dir, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt\nb.txt\nc.txt')
  })

  it('lists changes since a ref, untracked included, without touching the real index', async () => {
    write(dir, 'keep.txt', 'keep\n')
    write(dir, 'edit.txt', 'one\n')
    write(dir, 'gone.txt', 'bye\n')
    const base = (await git.commitAll('base', bot))!
    write(dir, 'edit.txt', 'two\n')
    rmSync(join(dir, 'gone.txt'))
    write(dir, 'new dir/new file.txt', 'hello\n')
    write(dir, '.loop/state.json', '{}')
    expect((await git.changedPaths(base)).sort()).toEqual(['edit.txt', 'gone.txt', 'new dir/new file.txt'])
    expect((await git.changedPaths(null)).sort()).toEqual(['edit.txt', 'gone.txt', 'new dir/new file.txt'])
    const stat = await git.diffStat(base)
    expect(stat).toContain('new dir/new file.txt')
    expect(stat).toContain('3 files changed')
    // From a snapshot of the work tree as it still is: the same stat, without staging the tree again.
    expect(await git.diffStat(base, await git.snapshot())).toBe(stat)
    const diff = await git.diff(base, ['edit.txt'])
    expect(diff).toContain('-one\n+two')
    expect(diff).not.toContain('new file')
    expect(sh(dir, 'diff', '--cached', '--name-only')).toBe('')
    expect(sh(dir, 'status', '--porcelain')).toContain('?? "new dir/"')
  })

  it('sees changes in a repository with no commit yet', async () => {
    write(dir, 'first.txt', 'x\n')
    expect(await git.changedPaths(null)).toEqual(['first.txt'])
  })

  it('gives text contents before and after, leaving out binary and oversized files', async () => {
    write(dir, 'edit.txt', 'before\n')
    write(dir, 'gone.txt', 'was here\n')
    write(dir, 'bin.dat', Buffer.from([0, 1, 2, 3]))
    write(dir, 'big.txt', 'x'.repeat(2000))
    const base = (await git.commitAll('base', bot))!
    write(dir, 'edit.txt', 'after\n')
    rmSync(join(dir, 'gone.txt'))
    write(dir, 'added.txt', 'new\n')
    write(dir, 'bin.dat', Buffer.from([0, 9, 9]))
    write(dir, 'big.txt', 'y'.repeat(2000))
    await git.commitAll('some of it committed', bot)
    write(dir, 'edit.txt', 'after, uncommitted\n')
    const changes = await git.changesSince(base, { maxBytes: 1000 })
    expect(changes.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'added.txt', before: null, after: 'new\n' },
      { path: 'edit.txt', before: 'before\n', after: 'after, uncommitted\n' },
      { path: 'gone.txt', before: 'was here\n', after: null },
    ])
    expect((await git.changedPaths(base)).sort()).toEqual(['added.txt', 'big.txt', 'bin.dat', 'edit.txt', 'gone.txt'])
  })

  it('reads a file at a ref and config values', async () => {
    write(dir, 'a.txt', 'v1\n')
    const first = (await git.commitAll('one', bot))!
    write(dir, 'a.txt', 'v2\n')
    await git.commitAll('two', bot)
    expect(await git.fileAt(first, 'a.txt')).toBe('v1\n')
    expect(await git.fileAt('HEAD', 'a.txt')).toBe('v2\n')
    expect(await git.fileAt('HEAD', 'missing.txt')).toBeNull()
    expect(await git.tryGetConfig('loop.nothing')).toBeNull()
  })

  it('throws a GitCommandError that quotes the command and git, unless failure is allowed', async () => {
    await expect(git.exec(['rev-parse', 'no-such-ref'])).rejects.toThrow(GitCommandError)
    await expect(git.exec(['rev-parse', 'no-such-ref'])).rejects.toThrow(
      /git rev-parse no-such-ref failed with exit code 128/,
    )
    const result = await git.exec(['rev-parse', 'no-such-ref'], { allowFailure: true })
    expect(result.exitCode).toBe(128)
    expect(result.stderr).toMatch(/unknown revision/)
  })

  it('checks out a new branch at a start point', async () => {
    write(dir, 'a.txt', 'a\n')
    const first = (await git.commitAll('one', bot))!
    write(dir, 'a.txt', 'b\n')
    await git.commitAll('two', bot)
    await git.checkoutBranch('loop/demo', first)
    expect(await git.currentBranch()).toBe('loop/demo')
    expect(await git.head()).toBe(first)
  })
})

describe('GitCli with a bare remote', () => {
  /** A bare remote and two clones of it with one shared commit. */
  function scene() {
    const base = join(root, `remote-${++counter}`)
    const remote = join(base, 'remote.git')
    mkdirSync(base)
    sh(base, 'init', '-q', '--bare', remote)
    const ours = join(base, 'ours')
    const theirs = join(base, 'theirs')
    sh(base, 'clone', '-q', remote, ours)
    write(ours, 'shared.txt', 'line 1\n')
    sh(ours, 'add', '.')
    sh(ours, 'commit', '-q', '-m', 'shared')
    sh(ours, 'push', '-q', 'origin', 'main')
    sh(base, 'clone', '-q', remote, theirs)
    return { remote, ours, theirs, git: new GitCli(ours), other: new GitCli(theirs) }
  }

  it('pushes, sees a non-fast-forward, fetches, rebases and pushes again', async () => {
    const { git, other } = scene()
    write(other.cwd, 'theirs.txt', 'theirs\n')
    await other.commitAll('their work', bot)
    expect(await other.push('origin', 'HEAD:refs/heads/main')).toMatchObject({ ok: true, nonFastForward: false })

    write(git.cwd, 'ours.txt', 'ours\n')
    await git.commitAll('our work', bot)
    const rejected = await git.push('origin', 'HEAD:refs/heads/main')
    expect(rejected.ok).toBe(false)
    expect(rejected.nonFastForward).toBe(true)

    expect((await git.fetch('origin', 'main')).ok).toBe(true)
    const rebased = await git.rebase('origin/main', bot)
    expect(rebased).toMatchObject({ ok: true, conflict: false, conflictPaths: [] })
    expect(await git.push('origin', 'HEAD:refs/heads/main')).toMatchObject({ ok: true, nonFastForward: false })
    expect(sh(git.cwd, 'log', '--format=%s', 'origin/main')).toBe('our work\ntheir work\nshared')
  })

  it('rebases with a change left out of the commit still in the work tree, and keeps it there', async () => {
    const { git, other } = scene()
    write(other.cwd, 'theirs.txt', 'theirs\n')
    await other.commitAll('their work', bot)
    await other.push('origin', 'HEAD:refs/heads/main')
    write(git.cwd, 'ours.txt', 'ours\n')
    await git.commitAll('our work', bot)
    // A path the checkpoint refused (a tracked file's change it did not commit).
    write(git.cwd, 'shared.txt', 'a refused change\n')
    await git.fetch('origin', 'main')
    expect(await git.rebase('origin/main', bot)).toMatchObject({ ok: true, conflict: false })
    expect(sh(git.cwd, 'log', '--format=%s')).toBe('our work\ntheir work\nshared')
    expect(readFileSync(join(git.cwd, 'shared.txt'), 'utf8')).toBe('a refused change\n')
  })

  it('reports a rebase conflict with its paths and leaves the branch as it was', async () => {
    const { git, other } = scene()
    write(other.cwd, 'shared.txt', 'their line\n')
    await other.commitAll('theirs', bot)
    await other.push('origin', 'HEAD:refs/heads/main')
    write(git.cwd, 'shared.txt', 'our line\n')
    const ours = await git.commitAll('ours', bot)
    await git.fetch('origin', 'main')
    const result = await git.rebase('origin/main', bot)
    expect(result.ok).toBe(false)
    expect(result.conflict).toBe(true)
    expect(result.conflictPaths).toEqual(['shared.txt'])
    expect(await git.head()).toBe(ours)
    expect(await git.currentBranch()).toBe('main')
    expect(sh(git.cwd, 'status', '--porcelain')).toBe('')
  })

  it('force-pushes with a lease only while the remote is where we expect it', async () => {
    const { git, other } = scene()
    const start = (await git.head())!
    await git.checkoutBranch('loop/demo', start)
    expect((await git.push('origin', 'loop/demo:refs/heads/loop/demo', { forceWithLease: '' })).ok).toBe(true)
    // A second "must not exist yet" push is refused: the branch exists now.
    write(git.cwd, 'x.txt', 'x\n')
    await git.commitAll('x', bot)
    const stale = await git.push('origin', 'loop/demo:refs/heads/loop/demo', { forceWithLease: '' })
    expect(stale).toMatchObject({ ok: false, nonFastForward: true })

    await other.fetch('origin', 'loop/demo')
    await other.checkoutBranch('loop/demo', 'FETCH_HEAD')
    write(other.cwd, 'y.txt', 'y\n')
    await other.commitAll('y', bot)
    await other.push('origin', 'loop/demo:refs/heads/loop/demo')
    const lease = await git.push('origin', '+loop/demo:refs/heads/loop/demo', { forceWithLease: start })
    expect(lease).toMatchObject({ ok: false, nonFastForward: true })
    expect(lease.stderr).toMatch(/stale info|rejected/)
  })
})

describe('a git killed mid-write', () => {
  it('leaves index.lock and HEAD.lock behind; the next commit waits, takes them as stale, removes them and commits', async () => {
    const { mkdtempSync, writeFileSync, existsSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { execFileSync } = await import('node:child_process')
    const { GitCli } = await import('../../../src/adapters/git-cli.js')
    const dir = mkdtempSync(join(tmpdir(), 'git-lock-'))
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir })
    writeFileSync(join(dir, 'a.txt'), 'a\n')
    writeFileSync(join(dir, '.git', 'index.lock'), '')
    writeFileSync(join(dir, '.git', 'HEAD.lock'), '')
    const git = new GitCli(dir, { staleIndexLockMs: 300 })
    const commit = await git.commitAll('first', { name: 't', email: 't@example.invalid' })
    expect(commit).toMatch(/^[0-9a-f]{40}$/)
    expect(existsSync(join(dir, '.git', 'index.lock'))).toBe(false)
    expect(existsSync(join(dir, '.git', 'HEAD.lock'))).toBe(false)
  })

  it('leaves index.lock, HEAD.lock and the branch lock behind; a checkpoint commit of a staged tree settles them', async () => {
    const { mkdtempSync, writeFileSync, existsSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { execFileSync } = await import('node:child_process')
    const { GitCli } = await import('../../../src/adapters/git-cli.js')
    const dir = mkdtempSync(join(tmpdir(), 'git-lock-'))
    const locks = ['index.lock', 'HEAD.lock', 'refs/heads/main.lock'].map((name) => join(dir, '.git', name))
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir })
    writeFileSync(join(dir, 'a.txt'), 'a\n')
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'start'], {
      cwd: dir,
    })
    for (const lock of locks) writeFileSync(lock, '')
    const git = new GitCli(dir, { staleIndexLockMs: 300 })
    const staged = await git.stageForCommit()
    const identity = { name: 't', email: 't@example.invalid' }
    const commit = await git.commitStaged(staged, 'second', identity, { leaveOut: [], parent: staged.head })
    expect(commit).toMatch(/^[0-9a-f]{40}$/)
    expect(await git.head()).toBe(commit)
    for (const lock of locks) expect(existsSync(lock)).toBe(false)
  })
})

describe('the git boundary: what the agent plants in .git/ never runs in the controller’s git', () => {
  const SECRET = 'ghs_controllerSecretToken0123456789'
  it.each([
    ['a post-commit hook', (dir: string) => write(dir, '.git/hooks/post-commit', '#!/bin/sh\nenv > "$LEAK"\n')],
    ['a pre-commit hook', (dir: string) => write(dir, '.git/hooks/pre-commit', '#!/bin/sh\nenv > "$LEAK"\n')],
    [
      'a hooks path of its own',
      (dir: string) => {
        write(dir, 'planted/post-commit', '#!/bin/sh\nenv > "$LEAK"\n')
        sh(dir, 'config', 'core.hooksPath', join(dir, 'planted'))
      },
    ],
    ['an fsmonitor', (dir: string) => sh(dir, 'config', 'core.fsmonitor', `sh -c 'env > "$LEAK"'`)],
  ])('%s: does not run, and git never sees the controller’s tokens', async (_name, plant) => {
    const { dir, git } = freshRepo()
    const leak = join(dir, '..', `leak-${counter}.txt`)
    plant(dir)
    for (const hook of ['.git/hooks/post-commit', '.git/hooks/pre-commit', 'planted/post-commit']) {
      try {
        execFileSync('chmod', ['+x', join(dir, hook)])
      } catch {}
    }
    write(dir, 'a.txt', 'work\n')
    const saved = { ...process.env }
    Object.assign(process.env, { ACTIONS_RUNTIME_TOKEN: SECRET, 'INPUT_GITHUB-TOKEN': SECRET, LEAK: leak })
    try {
      await git.commitAll('loop: checkpoint', bot)
      await git.changedPaths(null)
    } finally {
      for (const name of ['ACTIONS_RUNTIME_TOKEN', 'INPUT_GITHUB-TOKEN', 'LEAK']) {
        if (saved[name] === undefined) delete process.env[name]
        else process.env[name] = saved[name]
      }
    }
    expect(sh(dir, 'log', '-1', '--format=%s')).toBe('loop: checkpoint')
    let leaked = ''
    try {
      leaked = execFileSync('cat', [leak], { encoding: 'utf8' })
    } catch {}
    expect(leaked).not.toContain(SECRET)
    expect(leaked).toBe('')
  })
})
