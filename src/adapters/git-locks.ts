/**
 * Recovery from a git killed mid-write (a runner that died, a SIGKILL): it leaves `index.lock`,
 * `HEAD.lock` or a branch's ref lock behind, and every later git command that writes them refuses to
 * run. A live git holds such a lock briefly; one unchanged for a while is taken to be left by a dead
 * process and removed, with a warning, so a resumed loop can go on.
 */
import { rm, stat } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import type { GitProcess } from './git-process.js'

/** Removes the index, HEAD and `branch` locks of `git`'s repository that stay unchanged for `staleMs`. */
export async function clearStaleLocks(git: GitProcess, branch: string | null, staleMs: number): Promise<void> {
  const names = ['index.lock', 'HEAD.lock', ...(branch ? [`refs/heads/${branch}.lock`] : [])]
  for (const name of names) {
    const gitPath = (await git.exec(['rev-parse', '--git-path', name])).stdout.trim()
    await removeIfStale(isAbsolute(gitPath) ? gitPath : join(git.cwd, gitPath), staleMs)
  }
}

/** Watches `path` until it is gone or has stayed unchanged for `staleMs`, then removes it. */
async function removeIfStale(path: string, staleMs: number): Promise<void> {
  let seen = await mtimeOf(path)
  let unchangedSince = Date.now()
  while (seen !== null) {
    if (Date.now() - unchangedSince >= staleMs) {
      await rm(path, { force: true })
      process.emitWarning(`loop-controller removed ${path}, left by a git process that was killed`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    const now = await mtimeOf(path)
    if (now !== seen) unchangedSince = Date.now()
    seen = now
  }
}

async function mtimeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs
  } catch {
    return null
  }
}
