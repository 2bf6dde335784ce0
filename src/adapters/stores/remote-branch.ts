/**
 * The git plumbing under the `git` store: one branch of a remote, read and written through a private
 * bare repository so the user's repository and work tree are never touched. Commits are built with
 * `hash-object`, a temporary index, `write-tree` and `commit-tree`, and pushed with
 * `--force-with-lease=refs/heads/<branch>:<tip it read>`, so a branch that moved meanwhile is reported,
 * never overwritten.
 */
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pushPermissionHint } from '../../domain/git-errors.js'
import type { Identity } from '../../ports/git.js'
import { controllerGitEnv, NEUTRALISED_CONFIG } from '../git-env.js'

/** Where the fetched branch tip is kept in the private repository. */
const TIP_REF = 'refs/loop-controller/tip'

/** Thrown for a push the remote declined for a reason other than a stale lease. */
export class GitPushRejectedError extends Error {
  override name = 'GitPushRejectedError'
}

/** `remote` is a name the user's repository has no remote by. */
export class UnknownRemoteError extends Error {
  override name = 'UnknownRemoteError'
  constructor(
    message: string,
    readonly remote: string,
  ) {
    super(message)
  }
}

/** A fetch git could not make (no such repository, a host not reached, access refused); not a missing branch. */
export class RemoteFetchError extends Error {
  override name = 'RemoteFetchError'
  constructor(
    message: string,
    /** The remote's URL, without credentials. */
    readonly url: string,
    /** What git said, first line, without its `fatal: `. */
    readonly reason: string,
  ) {
    super(message)
  }
}

export interface RemoteBranchOptions {
  /** The user's repository: only read, to resolve `remote` when it is a remote name. */
  repoDir: string
  /** A remote name of `repoDir` or a URL. */
  remote: string
  branch: string
  /** Who commits. */
  identity: Identity
  /** A token for HTTPS remotes, sent as basic auth `x-access-token:<token>` (as GitHub takes it). */
  token?: string | undefined
  /** The private bare repository to work in; created when missing. */
  workDir: string
}

/** The branch's tip as last fetched: null when the branch does not exist yet. */
export interface Tip {
  commit: string | null
}

/** The private repository's whole config: bare, and no automatic gc in the middle of a save. */
const STORE_REPOSITORY_CONFIG =
  '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n'

/** One branch of a remote, through a private bare repository (see the module comment). */
export class RemoteBranch {
  private ready: Promise<{ url: string }> | null = null
  private initialised = false

  constructor(private readonly options: RemoteBranchOptions) {}

  get name(): string {
    return this.options.branch
  }

  /** Fetches the branch; its tip, or null when the remote has no such branch. */
  async fetch(): Promise<Tip> {
    const { url } = await this.prepare()
    const result = await this.git(['fetch', '--quiet', '--no-tags', url, `+refs/heads/${this.name}:${TIP_REF}`])
    if (result.code !== 0) {
      if (/couldn't find remote ref|could not find remote ref/i.test(result.stderr)) {
        await this.git(['update-ref', '-d', TIP_REF])
        return { commit: null }
      }
      const lines = result.stderr.trim().split('\n')
      const said = lines.find((line) => line.startsWith('fatal: ')) ?? lines[0] ?? ''
      const reason = redact(said).replace(/^fatal: /, '')
      throw new RemoteFetchError(
        `git fetch of ${this.name} from ${redact(url)} failed: ${redact(result.stderr.trim())}`,
        redact(url),
        reason,
      )
    }
    return { commit: (await this.must(['rev-parse', TIP_REF])).trim() }
  }

  /** The remote's URL (a remote name resolved in the user's repository), without credentials. */
  async remoteUrl(): Promise<string> {
    return redact((await this.prepare()).url)
  }

  /** The text of `path` at `commit`, or null when it is not there. */
  async readFile(commit: string, path: string): Promise<string | null> {
    const result = await this.git(['cat-file', 'blob', `${commit}:${path}`])
    return result.code === 0 ? result.stdout : null
  }

  /** The files under the folder `prefix` (ending in /) at `commit`. */
  async filesUnder(commit: string, prefix: string): Promise<string[]> {
    const listing = await this.must(['ls-tree', '-r', '--name-only', commit, '--', prefix])
    return listing.split('\n').filter((path) => path.startsWith(prefix))
  }

  /** The names at the top of `commit`'s tree. */
  async topLevel(commit: string): Promise<string[]> {
    return (await this.must(['ls-tree', '--name-only', commit])).split('\n').filter(Boolean)
  }

  /** The last commit up to `commit` that changed something under the folder `prefix` (ending in /). */
  async lastChange(commit: string, prefix: string): Promise<string> {
    return (await this.must(['log', '-1', '--format=%H', commit, '--', prefix])).trim()
  }

  /** A commit on top of `parent` with `files` written and `remove` (paths, or folders ending in /) gone. */
  async commit(
    parent: string | null,
    files: Map<string, string | Buffer>,
    remove: string[],
    message: string,
  ): Promise<string> {
    const index = join(this.options.workDir, `index-${randomUUID()}`)
    const env = { GIT_INDEX_FILE: index }
    try {
      if (parent) await this.must(['read-tree', parent], { env })
      else await this.must(['read-tree', '--empty'], { env })
      // `update-index --index-info` works without a work tree (the store's repository is bare): mode 0
      // removes an entry.
      const entries: string[] = []
      for (const path of remove) {
        const listed = (await this.must(['ls-files', '-z', '--', path], { env })).split('\0').filter(Boolean)
        for (const file of listed) entries.push(`0 ${'0'.repeat(40)}\t${file}`)
      }
      const blobs = await this.writeBlobs([...files.values()])
      for (const [index, path] of [...files.keys()].entries()) entries.push(`100644 ${blobs[index]}\t${path}`)
      if (entries.length > 0) {
        await this.must(['update-index', '-z', '--index-info'], { env, input: `${entries.join('\0')}\0` })
      }
      const tree = (await this.must(['write-tree'], { env })).trim()
      const { name, email } = this.options.identity
      return (
        await this.must(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], {
          env: {
            GIT_AUTHOR_NAME: name,
            GIT_AUTHOR_EMAIL: email,
            GIT_COMMITTER_NAME: name,
            GIT_COMMITTER_EMAIL: email,
          },
        })
      ).trim()
    } finally {
      await rm(index, { force: true })
    }
  }

  /**
   * The blob ids of `contents`, written into the repository when it lacks them. A save passes the whole
   * audit trail, most of it unchanged since the last save: its ids are computed here and checked in one
   * `cat-file --batch-check`, so only new content costs a `hash-object` (one process per trail file on
   * every save would make a save's time grow with the loop's iterations).
   */
  private async writeBlobs(contents: Array<string | Buffer>): Promise<string[]> {
    const ids = contents.map((content) => {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content
      return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
    })
    const present = new Set<string>()
    if (ids.length > 0) {
      const answer = await this.must(['cat-file', '--batch-check'], { input: `${ids.join('\n')}\n` })
      for (const line of answer.split('\n')) {
        const [id, kind] = line.split(' ')
        if (id && kind === 'blob') present.add(id)
      }
    }
    // A repository of another hash format names no blob by these ids: each is then written, by its real id.
    const blobs: string[] = []
    for (const [index, content] of contents.entries()) {
      const id = ids[index]!
      blobs.push(present.has(id) ? id : (await this.must(['hash-object', '-w', '--stdin'], { input: content })).trim())
    }
    return blobs
  }

  /** Pushes `commit` to the branch if it still points at `expected`; false when the lease failed. */
  async push(commit: string, expected: string | null): Promise<boolean> {
    const { url } = await this.prepare()
    const ref = `refs/heads/${this.name}`
    const result = await this.git([
      'push',
      '--porcelain',
      `--force-with-lease=${ref}:${expected ?? ''}`,
      url,
      `${commit}:${ref}`,
    ])
    if (result.code === 0) return true
    const said = `${result.stdout}\n${result.stderr}`
    // A lease the client saw fail (`stale info`), or one the remote refused while updating the ref
    // because another push moved it in between (`failed to update ref`, `cannot lock ref`).
    if (
      /stale info|fetch first|non-fast-forward|failed to update ref|cannot lock ref|incorrect old value|already exists/i.test(
        said,
      )
    ) {
      return false
    }
    throw new GitPushRejectedError(
      `git push to ${this.name} of ${redact(url)} was declined; nothing was saved: ${result.stderr.trim() || result.stdout.trim()}.${pushPermissionHint(said)}`,
    )
  }

  private async git(args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}) {
    const auth: Record<string, string> = this.options.token
      ? {
          GIT_CONFIG_COUNT: '1',
          GIT_CONFIG_KEY_0: 'http.extraHeader',
          GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${this.options.token}`).toString('base64')}`,
        }
      : {}
    // The private repository lives where the agent (same user) could write: its config is the store's
    // own, written before each command, and hooks, global and system config never apply.
    if (this.initialised) await writeFile(join(this.options.workDir, 'config'), STORE_REPOSITORY_CONFIG)
    return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = execFile(
        'git',
        [...NEUTRALISED_CONFIG, '--git-dir', this.options.workDir, ...args],
        {
          env: { ...controllerGitEnv(), GIT_TERMINAL_PROMPT: '0', ...auth, ...options.env },
          maxBuffer: 64 * 1024 * 1024,
          encoding: 'utf8',
        },
        (error, stdout, stderr) => {
          if (error && typeof (error as { code?: unknown }).code !== 'number') reject(error)
          else resolve({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr })
        },
      )
      if (options.input !== undefined) child.stdin?.end(options.input)
      else child.stdin?.end()
    })
  }

  private async must(args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}) {
    const result = await this.git(args, options)
    if (result.code !== 0) {
      throw new Error(`git ${args[0]} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`)
    }
    return result.stdout
  }

  /** Creates the private repository once and resolves the remote's URL; a failure is retried next time. */
  private async prepare(): Promise<{ url: string }> {
    const { workDir, remote, repoDir } = this.options
    this.ready ??= (async () => {
      await mkdir(workDir, { recursive: true })
      const initialised = await stat(join(workDir, 'HEAD')).then(
        () => true,
        () => false,
      )
      if (!initialised) await this.must(['init', '--bare', '--quiet'])
      this.initialised = true
      let url = remote
      if (!/[/:\\]/.test(remote)) {
        const resolved = await new Promise<string>((resolve, reject) =>
          execFile('git', ['-C', repoDir, 'remote', 'get-url', remote], (error, stdout, stderr) =>
            error
              ? reject(
                  new UnknownRemoteError(
                    `GitStore: remote ${remote} of ${repoDir} is unknown: ${stderr.trim()}`,
                    remote,
                  ),
                )
              : resolve(stdout.trim()),
          ),
        )
        url = resolved
      }
      return { url }
    })()
    try {
      return await this.ready
    } catch (error) {
      this.ready = null
      throw error
    }
  }
}

/** A URL without the credentials it may carry, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@')
}
