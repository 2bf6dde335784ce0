/**
 * The controller's git reads only the configuration the controller trusts. The work command (the
 * agent) can write `.git/config`, a file it includes, `$HOME/.gitconfig`, `$XDG_CONFIG_HOME/git/config`
 * and `/etc/gitconfig`, and replace `.git` itself; any of them could name a program (a filter, a diff or
 * merge driver, a signing program, an askpass, an ssh command, an `ext::` remote) or move the remote the
 * push token goes to. So:
 *
 * - the repository's config is sealed: read once, before the work can have touched it, and put back
 *   before every command of the controller's; what the controller itself writes (a branch's upstream, a
 *   `git config` of its own) is taken into the seal after its command;
 * - `.git` must still be the folder (or gitdir file) it was when sealed: a replaced one is refused;
 * - the person's global config (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`) is read once, when the
 *   seal is made, into a private copy that is put back before every command too; the system config is
 *   not read; git variables the controller inherited are dropped.
 */
import { spawnSync } from 'node:child_process'
import { lstatSync, mkdtempSync, readFileSync, renameSync, type Stats, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { controllerGitEnv } from './git-env.js'

/** `.git` in the work tree as it was sealed: a folder (by inode) or a gitdir file (by its text). */
interface DotGit {
  path: string
  dev: number
  ino: number
  isDirectory: boolean
  text: string | null
}

/** Raised instead of running git when `.git` is no longer the repository the controller sealed. */
export class GitSealBrokenError extends Error {
  override name = 'GitSealBrokenError'
}

/** The global config as git would read it now: `$GIT_CONFIG_GLOBAL`, else the XDG file, then `~/.gitconfig`. */
function globalConfigText(env: NodeJS.ProcessEnv): string {
  if (env.GIT_CONFIG_GLOBAL !== undefined) return readOrNull(env.GIT_CONFIG_GLOBAL) ?? ''
  const home = env.HOME ?? homedir()
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config')
  return [readOrNull(join(xdg, 'git', 'config')), readOrNull(join(home, '.gitconfig'))]
    .filter((text) => text !== null)
    .join('\n')
}

/** One private copy per distinct global config for the whole process (many adapters share one). */
const globalCopies = new Map<string, string>()

function globalCopyOf(text: string): string {
  if (text.trim() === '') return '/dev/null'
  let path = globalCopies.get(text)
  if (!path) {
    path = join(mkdtempSync(join(tmpdir(), 'loop-git-global-')), 'config')
    writeFileSync(path, text, { mode: 0o600 })
    globalCopies.set(text, path)
  }
  return path
}

export class GitConfigSeal {
  private configPath: string | null = null
  private dotGit: DotGit | null = null
  private trusted: string | null = null
  private readonly globalText: string
  private readonly globalPath: string

  constructor(
    private readonly cwd: string,
    private readonly gitPath: string,
  ) {
    this.globalText = globalConfigText(process.env)
    this.globalPath = globalCopyOf(this.globalText)
    this.trySeal()
  }

  /** The private copy of the person's global config that git reads as its global one. */
  get globalConfig(): string {
    return this.globalPath
  }

  /** Whether the repository's config is held (false until a repository exists in the folder). */
  get sealed(): boolean {
    return this.configPath !== null
  }

  /** Before a command: `.git` is the sealed one and its config is the trusted text again. */
  before(): void {
    if (this.globalPath !== '/dev/null') putBack(this.globalPath, this.globalText)
    if (!this.sealed) return
    this.checkDotGit()
    if (this.trusted !== null) putBack(this.configPath as string, this.trusted)
  }

  /** After a command: what the controller's own command wrote is trusted from now on. */
  after(): void {
    if (!this.sealed) {
      this.trySeal()
      return
    }
    this.trusted = readOrNull(this.configPath as string)
  }

  private trySeal(): void {
    const asked = spawnSync(this.gitPath, ['rev-parse', '--show-toplevel', '--git-common-dir'], {
      cwd: this.cwd,
      env: { ...controllerGitEnv(this.globalPath), LC_ALL: 'C' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    if (asked.status !== 0 || typeof asked.stdout !== 'string') return
    const [top, common] = asked.stdout.trim().split('\n')
    if (!top || !common) return
    const dotGitPath = join(top, '.git')
    const stats = statOrNull(dotGitPath)
    if (!stats) return
    this.dotGit = {
      path: dotGitPath,
      dev: stats.dev,
      ino: stats.ino,
      isDirectory: stats.isDirectory(),
      text: stats.isFile() ? readOrNull(dotGitPath) : null,
    }
    this.configPath = join(isAbsolute(common) ? common : join(this.cwd, common), 'config')
    this.trusted = readOrNull(this.configPath)
  }

  private checkDotGit(): void {
    const sealed = this.dotGit as DotGit
    const stats = statOrNull(sealed.path)
    const same =
      stats !== null &&
      stats.isDirectory() === sealed.isDirectory &&
      (sealed.isDirectory
        ? stats.dev === sealed.dev && stats.ino === sealed.ino
        : stats.isFile() && readOrNull(sealed.path) === sealed.text)
    if (!same) {
      throw new GitSealBrokenError(
        `${sealed.path} is no longer the repository the controller started with (the work replaced or removed it); ` +
          'the controller runs no git command in it. Restore .git, or start the loop again from a fresh checkout.',
      )
    }
  }
}

/** Writes `text` to `path` (atomically) unless it already holds exactly that. */
function putBack(path: string, text: string): void {
  if (readOrNull(path) === text) return
  const temporary = `${path}.loop-controller-seal`
  writeFileSync(temporary, text, { mode: 0o600 })
  renameSync(temporary, path)
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}
