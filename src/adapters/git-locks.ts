/**
 * Git's lock files: `index.lock`, `HEAD.lock` or a branch's ref lock. A live git holds one briefly; a
 * git killed mid-write (a runner that died, a SIGKILL) leaves it behind, and every later git command
 * that writes it refuses to run.
 *
 * A lock is removed only when no git process works in the repository: on Linux, /proc says which
 * processes are git and where they run (the controller's own, the agent's, another controller's on the
 * same working tree). While one does, the lock is its to release, however old it is: the controller
 * waits for it (bounded) and then leaves it to git's own message. Only where /proc cannot tell (not
 * Linux) is a lock that stays unchanged for a while taken to be left by a dead process.
 */
import { existsSync } from 'node:fs'
import { readdir, readFile, readlink, rm, stat } from 'node:fs/promises'
import { dirname, sep } from 'node:path'

/** How often a held lock is looked at again. */
const POLL_MS = 100

/** Settles each of `lockPaths` (absolute) of the repository in `cwd` (see {@link settleLock}). */
export async function clearStaleLocks(lockPaths: readonly string[], cwd: string, waitMs: number): Promise<void> {
  for (const lockPath of lockPaths) await settleLock(lockPath, [cwd], waitMs)
}

/**
 * Returns once `lockPath` is gone: released by the git that holds it, or removed (with a warning)
 * because no git process works in `roots` or the lock's repository. Returns with the lock still there
 * when a git kept working there for `waitMs`. Where /proc cannot tell, a lock unchanged for `waitMs` is
 * removed.
 */
export async function settleLock(lockPath: string, roots: readonly string[], waitMs: number): Promise<void> {
  const where = [...roots, repositoryOf(lockPath)]
  const deadline = Date.now() + waitMs
  let seen = await identityOf(lockPath)
  let unchangedSince = Date.now()
  while (seen !== null) {
    const live = await liveGitIn(where)
    // A git that started while /proc was read made a new lock (another inode): look again.
    const stale = live === false || (live === null && Date.now() - unchangedSince >= waitMs)
    if (stale && (await identityOf(lockPath)) === seen) {
      await rm(lockPath, { force: true })
      process.emitWarning(`loop-controller removed ${lockPath}, left by a git process that is no longer running`)
      return
    }
    if (live === true && Date.now() >= deadline) return
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    const now = await identityOf(lockPath)
    if (now !== seen) unchangedSince = Date.now()
    seen = now
  }
}

/**
 * Whether a live git process (`git`, `git-*`) runs with its current directory in one of `roots`, from
 * /proc; null where /proc does not tell.
 */
export async function liveGitIn(roots: readonly string[]): Promise<boolean | null> {
  if (!existsSync('/proc/self/cwd')) return null
  let pids: string[]
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name))
  } catch {
    return null
  }
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`))
  for (const pid of pids) {
    try {
      const comm = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim()
      if (comm !== 'git' && !comm.startsWith('git-')) continue
      if (inside(await readlink(`/proc/${pid}/cwd`))) return true
    } catch {
      // Gone meanwhile, or another user's: not a git of this job.
    }
  }
  return false
}

/** The repository a lock belongs to: the folder holding `.git` when the lock is under one, else the git dir. */
function repositoryOf(lockPath: string): string {
  const marker = `${sep}.git${sep}`
  const at = lockPath.indexOf(marker)
  return at >= 0 ? lockPath.slice(0, at) : dirname(lockPath)
}

/** The file's inode and modification time, which change when the lock is released and taken again. */
async function identityOf(path: string): Promise<string | null> {
  try {
    const info = await stat(path)
    return `${info.ino}:${info.mtimeMs}`
  } catch {
    return null
  }
}
