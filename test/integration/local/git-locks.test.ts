// Git's lock files: one a live git holds is never removed, however old; one no git holds is removed at
// once, not after it has aged; a command refused by a lock a live git holds waits for it and runs.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { settleLock } from '../../../src/adapters/git-locks.js'

const run = promisify(execFile)
const identity = { name: 't', email: 't@example.invalid' }
const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

async function repo(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'git-locks-'))
  dirs.push(dir)
  const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: dir })
  await git('init', '-q', '-b', 'main')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  await git('add', 'a.txt')
  await git('commit', '-q', '-m', 'first')
  return dir
}

/** A live `git commit -a` that holds index.lock while its editor runs for `ms`; resolves with its exit code. */
async function holdIndexLock(dir: string, ms: number): Promise<{ exited: Promise<number> }> {
  writeFileSync(join(dir, 'a.txt'), 'a\nheld\n')
  const child = spawn(
    'git',
    [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@e',
      '-c',
      `core.editor=sleep ${ms / 1000}; echo held >`,
      'commit',
      '-a',
      '-q',
    ],
    { cwd: dir, stdio: 'ignore' },
  )
  children.push(child)
  const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)))
  const lock = join(dir, '.git', 'index.lock')
  const until = Date.now() + 5000
  while (!existsSync(lock)) {
    if (Date.now() > until) throw new Error('git commit did not take index.lock')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // Old, as a lock left by a killed git would be: age says nothing about who holds it.
  const old = new Date(Date.now() - 3_600_000)
  utimesSync(lock, old, old)
  return { exited }
}

describe.skipIf(process.platform !== 'linux')('git locks', () => {
  it('never removes an old lock that a live git holds: waits for it to be released', async () => {
    const dir = await repo()
    const warnings: string[] = []
    const onWarning = (warning: Error) => warnings.push(warning.message)
    process.on('warning', onWarning)
    try {
      const holder = await holdIndexLock(dir, 1500)
      const lock = join(dir, '.git', 'index.lock')
      await settleLock(lock, [dir], 10_000)
      expect(existsSync(lock)).toBe(false)
      // The holder released it itself and committed.
      expect(await holder.exited).toBe(0)
      expect((await run('git', ['log', '-1', '--format=%s'], { cwd: dir })).stdout.trim()).toBe('held')
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((w) => w.includes('index.lock'))).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('removes a lock no git holds at once, however fresh, not after it has aged', async () => {
    const dir = await repo()
    const lock = join(dir, '.git', 'index.lock')
    writeFileSync(lock, '')
    const started = Date.now()
    await settleLock(lock, [dir], 60_000)
    expect(existsSync(lock)).toBe(false)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('a commit refused by the lock a live git holds waits for it and commits (no "File exists" error)', async () => {
    const dir = await repo()
    const holder = await holdIndexLock(dir, 1500)
    writeFileSync(join(dir, 'b.txt'), 'b\n')
    const git = new GitCli(dir, { staleIndexLockMs: 10_000 })
    // Past the stale-lock check the controller runs before staging: the holder still has the lock.
    const commit = await git.exec(['add', 'b.txt'])
    expect(commit.exitCode).toBe(0)
    expect(await holder.exited).toBe(0)
    const sha = await git.commitAll('second', identity)
    expect(sha).toMatch(/^[0-9a-f]{40}$/)
  })
})
