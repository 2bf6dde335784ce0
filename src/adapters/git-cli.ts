/**
 * The one git wrapper: the git command line, non-interactive, with identity passed per command
 * (`-c user.name=...`) so the user's config is never changed. Failing commands throw `GitCommandError`
 * unless asked not to; only the named, known-benign messages (`git-commit.ts`) are tolerated. Running a
 * command is `git-process.ts`, recovering from a killed git is `git-locks.ts`, reading changed files is
 * `git-file-changes.ts`, making a commit `git-commit.ts`; this file is the operations the loop asks of a
 * work tree.
 */
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { CONFLICT_SIGNS, NON_FAST_FORWARD_SIGNS } from '../domain/git-errors.js'
import type {
  CommitAndTree,
  FileChange,
  Git,
  GitResult,
  Identity,
  PushResult,
  RebaseResult,
  StagedWorkTree,
} from '../ports/git.js'
import { BENIGN_GIT_MESSAGES, commitIndex, commitTreeOnto, FINISHED_BY_GIT_COMMIT, identityArgs } from './git-commit.js'
import { commitCandidates, ignoredFiles, treeWithPathsFrom } from './git-commit-screen.js'
import { DEFAULT_CHANGE_MAX_BYTES, textChanges } from './git-file-changes.js'
import { clearStaleLocks } from './git-locks.js'
import { GitCommandError, GitProcess, splitZ } from './git-process.js'

export type { FileChange, PushResult, RebaseResult }
export { BENIGN_GIT_MESSAGES, DEFAULT_CHANGE_MAX_BYTES, GitCommandError }

export interface GitCliOptions {
  /** Paths never committed nor counted as changes (the state folder). Default `['.loop']`. */
  exclude?: readonly string[]
  /** The git executable. Default `git` on the PATH. */
  gitPath?: string
  /**
   * How long a git lock file (index, HEAD, branch) held while a git works in the repository is waited
   * for; a lock no git holds is removed at once (where /proc cannot tell, one unchanged this long). Default 10 s.
   */
  staleIndexLockMs?: number
  /**
   * Credentials for the commands that talk to a remote (fetch, push, ls-remote), as environment (see
   * `pushAuthEnv`): the token reaches git at that moment from the controller's process alone, never
   * through `.git/config`, which the agent can read.
   */
  networkEnv?: Record<string, string>
}

/**
 * Where the repository's parts are, asked once: they cannot move under a GitCli, because every command
 * first checks that `.git` is still the folder it sealed (git-seal.ts) and runs with git's own
 * variables (GIT_DIR, GIT_INDEX_FILE) dropped.
 */
interface RepositoryPaths {
  top: string
  /** This work tree's git folder (HEAD, the index). */
  gitDir: string
  /** The folder of the refs every work tree of the repository shares. */
  commonDir: string
  index: string
}

/** Paths given to one git command, well under the system's limit on a command line. */
const PATHS_PER_COMMAND = 500

/** Git subcommands that reach a remote. */
const NETWORK_COMMANDS = new Set(['fetch', 'push', 'ls-remote', 'pull', 'clone'])

/** The `Git` port over the git command line. */
export class GitCli implements Git {
  readonly exclude: readonly string[]
  private readonly git: GitProcess
  private emptyTree: string | undefined
  private repositoryPaths: RepositoryPaths | undefined
  private readonly staleIndexLockMs: number
  private readonly networkEnv: Record<string, string> | undefined

  constructor(
    readonly cwd: string,
    options: GitCliOptions = {},
  ) {
    this.exclude = options.exclude ?? ['.loop']
    this.staleIndexLockMs = options.staleIndexLockMs ?? 10_000
    this.git = new GitProcess(cwd, options.gitPath ?? 'git', this.staleIndexLockMs)
    this.networkEnv = options.networkEnv
  }

  exec(
    args: readonly string[],
    options: { allowFailure?: boolean; env?: Record<string, string> } = {},
  ): Promise<GitResult> {
    if (this.networkEnv && NETWORK_COMMANDS.has(args[0] ?? '')) {
      return this.git.exec(args, { ...options, env: { ...this.networkEnv, ...options.env } })
    }
    return this.git.exec(args, options)
  }

  async isRepository(): Promise<boolean> {
    try {
      const result = await this.exec(['rev-parse', '--is-inside-work-tree'], { allowFailure: true })
      return result.exitCode === 0 && result.stdout.trim() === 'true'
    } catch {
      return false
    }
  }

  async head(): Promise<string | null> {
    const result = await this.exec(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFailure: true })
    return result.exitCode === 0 ? result.stdout.trim() : null
  }

  async currentBranch(): Promise<string | null> {
    const result = await this.exec(['symbolic-ref', '--short', '-q', 'HEAD'], { allowFailure: true })
    return result.exitCode === 0 ? result.stdout.trim() : null
  }

  /** The repository's top folder (absolute). */
  async topLevel(): Promise<string> {
    return (await this.paths()).top
  }

  private async paths(): Promise<RepositoryPaths> {
    if (!this.repositoryPaths) {
      const asked = await this.exec([
        'rev-parse',
        '--show-toplevel',
        '--absolute-git-dir',
        '--git-common-dir',
        '--git-path',
        'index',
      ])
      const [top = '', gitDir = '', commonDir = '', index = ''] = asked.stdout.split('\n')
      const absolute = (path: string) => (isAbsolute(path) ? path : join(this.cwd, path))
      this.repositoryPaths = { top, gitDir, commonDir: absolute(commonDir), index: absolute(index) }
    }
    return this.repositoryPaths
  }

  async changedPaths(since: string | null): Promise<string[]> {
    const base = await this.baseOf(since)
    return this.withWorkTreeIndex(async (env) => {
      const result = await this.git.raw(['diff', '--cached', '--name-only', '--no-renames', '-z', base], { env })
      this.git.check(['diff', '--cached', '--name-only', base], result)
      return splitZ(result.stdout)
    })
  }

  async diffStat(since: string | null, tree?: string): Promise<string> {
    const base = await this.baseOf(since)
    if (tree) return (await this.exec(['diff', '--stat', base, tree])).stdout
    return this.withWorkTreeIndex(
      async (env) => (await this.exec(['diff', '--cached', '--stat', base], { env })).stdout,
    )
  }

  async diff(since: string | null, paths: readonly string[] = []): Promise<string> {
    const base = await this.baseOf(since)
    const pathArgs = paths.length > 0 ? ['--', ...paths] : []
    return this.withWorkTreeIndex(
      async (env) =>
        (await this.exec(['--literal-pathspecs', 'diff', '--cached', '--no-color', base, ...pathArgs], { env })).stdout,
    )
  }

  async commitAll(message: string, identity: Identity, exclude: readonly string[] = []): Promise<string | null> {
    await this.clearCommitLocks()
    await this.stageAllExcept(exclude)
    const merging = existsSync(join((await this.paths()).gitDir, 'MERGE_HEAD'))
    return commitIndex(this.git, message, identity, merging)
  }

  async stageForCommit(exclude: readonly string[] = []): Promise<StagedWorkTree> {
    const head = await this.headAndTree()
    await this.stageAllExcept(exclude, undefined, head?.commit ?? null)
    return { tree: (await this.exec(['write-tree'])).stdout.trim(), head }
  }

  async commitStaged(
    staged: StagedWorkTree,
    message: string,
    identity: Identity,
    { leaveOut, parent }: { leaveOut: readonly string[]; parent: CommitAndTree | null },
  ): Promise<string | null> {
    const { gitDir } = await this.paths()
    if (FINISHED_BY_GIT_COMMIT.some((name) => existsSync(join(gitDir, name)))) {
      if (leaveOut.length > 0) await this.resetPaths(staged.head?.commit ?? null, leaveOut)
      return commitIndex(this.git, message, identity, existsSync(join(gitDir, 'MERGE_HEAD')))
    }
    const base = staged.head?.commit ?? (await this.emptyTreeId())
    const tree = await treeWithPathsFrom(this.git, staged.tree, base, leaveOut)
    const commit = await this.commitTree(tree, message, identity, parent)
    // The index holds the tree staged: the paths left out go back to what HEAD has now.
    if (leaveOut.length > 0) await this.resetPaths(commit ?? parent?.commit ?? null, leaveOut)
    return commit
  }

  /** The index entries of `paths` as `commit` has them (removed where it lacks them, or with no commit). */
  private async resetPaths(commit: string | null, paths: readonly string[]): Promise<void> {
    for (let start = 0; start < paths.length; start += PATHS_PER_COMMAND) {
      const batch = paths.slice(start, start + PATHS_PER_COMMAND)
      await this.exec(
        commit
          ? ['--literal-pathspecs', 'reset', '-q', commit, '--', ...batch]
          : ['--literal-pathspecs', 'rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...batch],
      )
    }
  }

  /** Fetches `ref` from `remote` (no tags). Returns the result rather than throwing: the caller decides. */
  async fetch(remote: string, ref: string): Promise<GitResult & { ok: boolean }> {
    const result = await this.exec(['fetch', '--no-tags', remote, ref], { allowFailure: true })
    return { ...result, ok: result.exitCode === 0 }
  }

  /**
   * Pushes `refspec`; with `forceWithLease` (the commit the remote ref is expected at, or '' for "must
   * not exist yet") only when the remote is still there. Never a plain force push.
   */
  async push(remote: string, refspec: string, options: { forceWithLease?: string } = {}): Promise<PushResult> {
    const args = ['push', '--porcelain', remote, refspec]
    if (options.forceWithLease !== undefined) {
      // A `+` on the refspec would force past the lease (git documents this), so the lease alone decides.
      const spec = refspec.replace(/^\+/, '')
      const destination = spec.includes(':') ? spec.slice(spec.indexOf(':') + 1) : spec
      args.splice(2, 2, `--force-with-lease=${destination}:${options.forceWithLease}`, remote, spec)
    }
    const result = await this.exec(args, { allowFailure: true })
    const text = `${result.stdout}\n${result.stderr}`
    const nonFastForward = result.exitCode !== 0 && NON_FAST_FORWARD_SIGNS.some((sign) => sign.test(text))
    // Porcelain puts the per-ref reason (`!  ... [rejected] (stale info)`) on stdout; keep it with stderr.
    const rejections = result.stdout.split('\n').filter((line) => line.startsWith('!'))
    return { ok: result.exitCode === 0, nonFastForward, stderr: [...rejections, result.stderr].join('\n').trim() }
  }

  /**
   * Rebases the current branch onto `onto`. A conflict aborts the rebase (the branch is left as it was)
   * and reports the conflicting paths. Identity is needed because rebased commits get a new committer.
   * `--autostash`: a change the checkpoint left out of its commit (a refused path) stays in the work
   * tree, and a dirty tree would otherwise stop the rebase before it starts.
   */
  async rebase(onto: string, identity?: Identity): Promise<RebaseResult> {
    const result = await this.exec([...(identity ? identityArgs(identity) : []), 'rebase', '--autostash', onto], {
      allowFailure: true,
    })
    if (result.exitCode === 0) return { ok: true, conflict: false, conflictPaths: [], stderr: result.stderr }
    const unmerged = await this.git.raw(['diff', '--name-only', '--diff-filter=U', '-z'])
    const conflictPaths = unmerged.exitCode === 0 ? splitZ(unmerged.stdout) : []
    const text = `${result.stdout}\n${result.stderr}`
    const conflict = conflictPaths.length > 0 || CONFLICT_SIGNS.some((sign) => sign.test(text))
    const inProgress = await this.exec(['rev-parse', '--verify', '-q', 'REBASE_HEAD'], { allowFailure: true })
    if (inProgress.exitCode === 0 || conflict) await this.exec(['rebase', '--abort'], { allowFailure: true })
    return { ok: false, conflict, conflictPaths, stderr: result.stderr }
  }

  /** Creates (or resets) branch `name` at `startPoint` and checks it out. */
  async checkoutBranch(name: string, startPoint: string): Promise<void> {
    await this.exec(['checkout', '-q', '-B', name, startPoint])
  }

  /** The value of a config key, or null when it is not set. */
  async tryGetConfig(key: string): Promise<string | null> {
    const result = await this.exec(['config', '--get', key], { allowFailure: true })
    return result.exitCode === 0 ? result.stdout.replace(/\n$/, '') : null
  }

  /**
   * The work tree as it is now (untracked files included, excluded paths left out), written as a git
   * tree object. Compare against it later with `changesSince(tree)` to see what one step changed,
   * whatever was already uncommitted before it.
   */
  async snapshot(exclude: readonly string[] = []): Promise<string> {
    return this.withWorkTreeIndex(async (env) => (await this.exec(['write-tree'], { env })).stdout.trim(), exclude)
  }

  /**
   * Commits a tree made by `snapshot` on top of `parent` (HEAD when not given; no hooks, no signing, as
   * `commitAll`), then moves the branch with the parent as the expected old value, so a concurrent
   * commit is detected, not lost. The message is recorded as `git commit -m` records it.
   */
  async commitTree(
    tree: string,
    message: string,
    identity: Identity,
    parent?: CommitAndTree | null,
  ): Promise<string | null> {
    const head = parent === undefined ? await this.headAndTree() : parent
    if ((head?.tree ?? (await this.emptyTreeId())) === tree) return null
    return commitTreeOnto(this.git, tree, message, identity, head)
  }

  /** The text of `path` (relative to the repository root) at `ref`, or null when it does not exist there. */
  async fileAt(ref: string, path: string): Promise<string | null> {
    const result = await this.git.raw(['cat-file', 'blob', `${ref}:${path}`])
    return result.exitCode === 0 ? result.stdout.toString('utf8') : null
  }

  /**
   * Text files changed in the work tree since `ref` (committed or not, untracked included), with their
   * contents before and after. Binary files and files over `maxBytes` on either side are left out:
   * `changedPaths` lists every changed path.
   */
  async changesSince(
    ref: string,
    options: { maxBytes?: number; withUnreadable?: boolean } = {},
  ): Promise<FileChange[]> {
    const maxBytes = options.maxBytes ?? DEFAULT_CHANGE_MAX_BYTES
    const paths = await this.changedPaths(ref)
    if (paths.length === 0) return []
    return textChanges(this.git, ref, paths, await this.topLevel(), maxBytes, options.withUnreadable)
  }

  async commitCandidates(trees: readonly string[], ignoreRulesAt: string | null, maxBytes: number, head?: string) {
    // HEAD's rules too: a .gitignore edit the work made earlier and left in the work tree does not count.
    const base = head ?? (await this.baseOf(null))
    const rules = [base, ...(ignoreRulesAt ? [ignoreRulesAt] : [])]
    return commitCandidates(this.git, (await this.paths()).gitDir, base, trees, rules, maxBytes)
  }

  async treeWithPathsAsHead(tree: string, paths: readonly string[]): Promise<string> {
    return treeWithPathsFrom(this.git, tree, await this.baseOf(null), paths)
  }

  async ignoredFiles(globs: readonly string[]): Promise<Record<string, string>> {
    const files = await ignoredFiles(this.git, await this.topLevel(), globs)
    const excluded = (path: string) => this.exclude.some((e) => path === e || path.startsWith(`${e}/`))
    return Object.fromEntries(Object.entries(files).filter(([path]) => !excluded(path)))
  }

  /**
   * Stages every change but the excluded paths. Excluding with `:(exclude)` pathspecs is not enough:
   * git refuses (exit 1) when such a pathspec names a path that is also ignored, which is exactly the
   * case for `.loop/` once it is in `.git/info/exclude`. So stage everything, then put the excluded
   * paths back as they are in HEAD (or drop them from a first commit's index).
   */
  private async stageAllExcept(
    extra: readonly string[],
    env?: Record<string, string>,
    /** HEAD's commit when the caller has just read it, null when there is none. */
    head?: string | null,
  ): Promise<void> {
    const options = env ? { env } : undefined
    await this.exec(['add', '-A', '--', ':/'], options)
    const excluded = [...new Set([...this.exclude, ...extra])].map((path) => `:(top)${path}`)
    if (excluded.length === 0) return
    const remove = ['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...excluded]
    if (head === null) {
      await this.exec(remove, options)
      return
    }
    // HEAD nearly always exists: try the reset, and ask whether HEAD exists only when it fails.
    const reset = ['reset', '-q', head ?? 'HEAD', '--', ...excluded]
    const resetResult = await this.exec(reset, { allowFailure: true, ...options })
    if (resetResult.exitCode === 0) return
    const hasHead =
      (await this.exec(['rev-parse', '--verify', '-q', 'HEAD'], { allowFailure: true, ...options })).exitCode === 0
    if (hasHead) throw new GitCommandError(reset, resetResult)
    await this.exec(remove, options)
  }

  /**
   * Settles the locks `git commit` takes: the index's, HEAD's and the branch's. Asking the branch runs
   * git, which first checks that `.git` is still the sealed one: no lock is removed in a repository put
   * in its place.
   */
  private async clearCommitLocks(): Promise<void> {
    const { gitDir, commonDir, index } = await this.paths()
    const branch = await this.currentBranch()
    const locks = [`${index}.lock`, join(gitDir, 'HEAD.lock')]
    if (branch) locks.push(join(commonDir, 'refs', 'heads', `${branch}.lock`))
    await clearStaleLocks(locks, this.cwd, this.staleIndexLockMs)
  }

  /** HEAD's commit and tree, in one git; null before a first commit. */
  private async headAndTree(): Promise<CommitAndTree | null> {
    const asked = await this.exec(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}', '--'], { allowFailure: true })
    const [commit = '', tree = ''] = asked.stdout.split('\n')
    return asked.exitCode === 0 && commit && tree ? { commit, tree } : null
  }

  private async emptyTreeId(): Promise<string> {
    this.emptyTree ??= (await this.exec(['hash-object', '-t', 'tree', '/dev/null'])).stdout.trim()
    return this.emptyTree
  }

  /** `since`, else HEAD, else the empty tree (a repository with no commit yet). */
  private async baseOf(since: string | null): Promise<string> {
    if (since) return since
    return (await this.head()) ?? (await this.emptyTreeId())
  }

  /**
   * Runs `body` with a throw-away copy of the index that has every work-tree change staged, so diffs
   * include untracked files without touching the user's real index.
   */
  private async withWorkTreeIndex<T>(
    body: (env: Record<string, string>) => Promise<T>,
    exclude: readonly string[] = [],
  ): Promise<T> {
    const folder = await mkdtemp(join(tmpdir(), 'loop-git-index-'))
    try {
      const temporary = join(folder, 'index')
      const source = (await this.paths()).index
      await copyFile(source, temporary).then(
        // The copy keeps the index's own time: git trusts an entry's stat data only when the file is
        // older than the index, so a newer copy would hide a same-size edit made right after staging.
        async () => {
          const { atime, mtime } = await stat(source)
          await utimes(temporary, atime, mtime)
        },
        () => {},
      )
      const env = { GIT_INDEX_FILE: temporary }
      await this.stageAllExcept(exclude, env)
      return await body(env)
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  }
}
