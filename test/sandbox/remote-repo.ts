// The sandbox's repository on the git server: seeding it, and changing it as someone else would.
import { execFile, execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import type { GitRemote } from './workflow-engine.js'

const run = promisify(execFile)

/** The sandbox's git remote, with the means to change it as someone else would. */
export interface SandboxGit extends GitRemote {
  /** Commits files on a branch of the remote as `author` (a push from someone else); returns the sha. */
  commit(branch: string, files: Record<string, string>, message: string, author?: string): Promise<string>
  /** The sha a ref points at, or undefined. */
  resolveRef(ref: string): string | undefined
  /** A file's content at a ref of the remote, or undefined. */
  show(ref: string, path: string): Promise<string | undefined>
}

const gitEnv = (author: string) => ({
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: author,
  GIT_AUTHOR_EMAIL: `${author}@users.noreply.example.invalid`,
  GIT_COMMITTER_NAME: author,
  GIT_COMMITTER_EMAIL: `${author}@users.noreply.example.invalid`,
})

export async function git(cwd: string, args: string[], author = 'sandbox'): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: gitEnv(author), maxBuffer: 64 * 1024 * 1024 })
  return stdout.trim()
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    if (path.startsWith('/') || path.split('/').includes('..')) {
      throw new Error(`sandbox: repository file paths must be relative and stay inside; got '${path}'`)
    }
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
}

/** The commit `ref` points at in the bare repository `bareDir`, or undefined. */
export function commitOf(bareDir: string, ref: string): string | undefined {
  try {
    return execFileSync('git', ['--git-dir', bareDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return undefined
  }
}

/** The repository's first commit, of `repoDir` (without .git and node_modules) and `repoFiles`, pushed to `bareDir`. */
export async function seedRepository(options: {
  bareDir: string
  seed: string
  owner: string
  defaultBranch: string
  repoDir?: string
  repoFiles?: Record<string, string>
}): Promise<void> {
  const { bareDir, seed, owner, defaultBranch, repoDir } = options
  await git(bareDir, ['symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`])
  mkdirSync(seed, { recursive: true })
  await git(seed, ['init', '--quiet', `--initial-branch=${defaultBranch}`])
  if (repoDir) {
    cpSync(repoDir, seed, {
      recursive: true,
      filter: (source) => !/(^|\/)(\.git|node_modules)(\/|$)/.test(source.slice(repoDir.length)),
    })
  }
  writeFiles(seed, options.repoFiles ?? {})
  await git(seed, ['add', '-A'])
  await git(seed, ['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], owner)
  await git(seed, ['push', '--quiet', bareDir, `HEAD:refs/heads/${defaultBranch}`])
}

/** The remote as a test changes it; `resolveRef` is the engine's (it sees refs as the runs do). */
export function sandboxGit(options: {
  cloneUrl: string
  bareDir: string
  root: string
  owner: string
  defaultBranch: string
  resolveRef(ref: string): string | undefined
}): SandboxGit {
  const { bareDir, root, owner, defaultBranch } = options
  const remoteGit: SandboxGit = {
    cloneUrl: options.cloneUrl,
    bareDir,
    resolveRef: (ref) => options.resolveRef(ref),
    async commit(branch, files, message, author = owner) {
      const work = mkdtempSync(join(root, 'push-'))
      try {
        await git(work, ['init', '--quiet'])
        const exists = remoteGit.resolveRef(`refs/heads/${branch}`) !== undefined
        await git(work, ['fetch', '--quiet', bareDir, exists ? `refs/heads/${branch}` : `refs/heads/${defaultBranch}`])
        await git(work, ['checkout', '--quiet', '-B', branch, 'FETCH_HEAD'])
        writeFiles(work, files)
        await git(work, ['add', '-A'])
        await git(work, ['commit', '--quiet', '-m', message], author)
        await git(work, ['push', '--quiet', bareDir, `HEAD:refs/heads/${branch}`])
        return await git(work, ['rev-parse', 'HEAD'])
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    },
    async show(ref, path) {
      try {
        return (await run('git', ['--git-dir', bareDir, 'show', `${ref}:${path}`], { maxBuffer: 64 * 1024 * 1024 }))
          .stdout
      } catch {
        return undefined
      }
    },
  }
  return remoteGit
}
