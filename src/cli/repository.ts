/** Where the CLI works: the repository's root, the loop id from the branch, and keeping state out of git. */
import { existsSync } from 'node:fs'
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { GitCli } from '../adapters/git-cli.js'

export async function defaultLoopId(root: string): Promise<string> {
  const git = new GitCli(root)
  const branch = (await isGitRepository(root)) ? await git.currentBranch() : null
  const id = (branch ?? 'default')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100)
  return id || 'default'
}

export async function repositoryRoot(cwd: string): Promise<string> {
  const git = new GitCli(cwd)
  const result = await git.exec(['rev-parse', '--show-toplevel'], { allowFailure: true })
  return result.exitCode === 0 ? result.stdout.trim() : cwd
}

export async function isGitRepository(root: string): Promise<boolean> {
  return new GitCli(root).isRepository()
}

/** `.loop/` never reaches a commit: it is added to `.git/info/exclude` (local, not a tracked file). */
export async function keepStateOutOfGit(root: string, stateDir: string): Promise<void> {
  const rel = relative(root, stateDir)
  if (rel.startsWith('..') || !existsSync(join(root, '.git'))) return
  const exclude = join(root, '.git', 'info', 'exclude')
  const current = existsSync(exclude) ? await readFile(exclude, 'utf8') : ''
  const line = `/${rel.replace(/\\/g, '/')}/`
  if (current.split('\n').includes(line)) return
  await mkdir(join(root, '.git', 'info'), { recursive: true })
  await appendFile(exclude, `${current && !current.endsWith('\n') ? '\n' : ''}# loop-controller state\n${line}\n`)
}
