/** One git wrapper: non-interactive, identity per command, `try*` methods that return a boolean. */
import type { CommitCandidate } from '../domain/commit-policy.js'

export interface GitResult {
  exitCode: number
  stdout: string
  stderr: string
}

export interface Identity {
  name: string
  email: string
}

export interface PushResult {
  ok: boolean
  /** The remote has commits this push would drop (or the lease was stale): fetch, rebase, retry. */
  nonFastForward: boolean
  /** git's stderr, with the per-ref rejection lines in front. */
  stderr: string
}

export interface RebaseResult {
  ok: boolean
  conflict: boolean
  /** Files with conflicts. The rebase has been aborted, so the branch is as it was before. */
  conflictPaths: string[]
  stderr: string
}

/** A text file changed since a ref (for the verifier-gaming guard). */
export interface FileChange {
  path: string
  /** The text at the base ref, or null when the file did not exist there. */
  before: string | null
  /** The text in the work tree now, or null when the file was deleted. */
  after: string | null
  /** A side that is binary or too large to read (its text is then ''), with `changesSince`'s `withUnreadable`. */
  unreadable?: { before?: 'binary' | 'large'; after?: 'binary' | 'large' }
}

/** A commit and its tree. */
export interface CommitAndTree {
  commit: string
  tree: string
}

/** The work tree as `stageForCommit` staged it in the index: its tree, and HEAD then (null before a first commit). */
export interface StagedWorkTree {
  tree: string
  head: CommitAndTree | null
}

export interface Git {
  readonly cwd: string
  exec(args: readonly string[], options?: { allowFailure?: boolean; env?: Record<string, string> }): Promise<GitResult>
  isRepository(): Promise<boolean>
  head(): Promise<string | null>
  currentBranch(): Promise<string | null>
  /** Paths changed in the work tree since `ref` (committed or not), relative to the repository root. */
  changedPaths(since: string | null): Promise<string[]>
  /**
   * `git diff --stat` from `since` to the work tree, or to `tree` when given: a `snapshot` of the work
   * tree as it still is, which spares staging it again.
   */
  diffStat(since: string | null, tree?: string): Promise<string>
  diff(since: string | null, paths?: readonly string[]): Promise<string>
  /**
   * The work tree now, as a tree object id, for `changesSince` (what one step changed) or `commitTree`;
   * `exclude` left out as `commitAll` leaves it out.
   */
  snapshot(exclude?: readonly string[]): Promise<string>
  /** Stages everything but `exclude` and commits; returns the new commit or null when nothing changed. */
  commitAll(message: string, identity: Identity, exclude?: readonly string[]): Promise<string | null>
  /**
   * Stages the work tree in the index for a commit, everything but `exclude` (as `commitAll` stages it),
   * and returns its tree with HEAD as it was: what a commit screen judges and `commitStaged` commits.
   */
  stageForCommit(exclude?: readonly string[]): Promise<StagedWorkTree>
  /**
   * Commits the tree `staged` holds, with the `leaveOut` paths as its HEAD has them, on top of `parent`
   * (its HEAD, or a commit made on it since), and moves the branch from `parent`: throws
   * `ConcurrentCommitError` when HEAD moved meanwhile. The index ends as the commit (or, with nothing to
   * commit, HEAD) has it. Null when the tree is `parent`'s. A merge, cherry-pick or revert in progress is
   * committed by git's own commit, from the index, so that it keeps its second parent.
   */
  commitStaged(
    staged: StagedWorkTree,
    message: string,
    identity: Identity,
    options: { leaveOut: readonly string[]; parent: CommitAndTree | null },
  ): Promise<string | null>
  /**
   * Commits `tree` (a `snapshot`) on top of `parent` (HEAD when not given) and moves the branch there,
   * leaving the work tree as it is; null when the tree is the parent's. Throws `ConcurrentCommitError`
   * when HEAD moved meanwhile.
   */
  commitTree(tree: string, message: string, identity: Identity, parent?: CommitAndTree | null): Promise<string | null>
  /** Fetches `ref` from `remote` (no tags); never throws for a failed fetch. */
  fetch(remote: string, ref: string): Promise<GitResult & { ok: boolean }>
  /** Pushes `refspec`; with `forceWithLease` (the expected remote commit, '' for "must not exist") only if still there. */
  push(remote: string, refspec: string, options?: { forceWithLease?: string }): Promise<PushResult>
  /** Rebases the current branch onto `onto`; a conflict is aborted and reported with its paths. */
  rebase(onto: string, identity?: Identity): Promise<RebaseResult>
  /** Creates (or resets) branch `name` at `startPoint` and checks it out. */
  checkoutBranch(name: string, startPoint: string): Promise<void>
  /** The value of a config key, or null when unset. */
  tryGetConfig(key: string): Promise<string | null>
  /** The text of `path` at `ref`, or null when it does not exist there. */
  fileAt(ref: string, path: string): Promise<string | null>
  /**
   * Text files changed in the work tree since `ref` (untracked included), before and after; binary and
   * oversized left out, unless `withUnreadable` (then kept, named in `unreadable`, so that the changes
   * name every path `changedPaths(ref)` lists).
   */
  changesSince(ref: string, options?: { maxBytes?: number; withUnreadable?: boolean }): Promise<FileChange[]>
  /**
   * What committing each of `trees` (snapshots) on top of HEAD would add, change or delete, with the
   * contents up to `maxBytes`; an added path is ignored when the `.gitignore` files of HEAD or of
   * `ignoreRulesAt` (the work tree before the work) ignore it. `head`: HEAD when the caller has read it.
   */
  commitCandidates(
    trees: readonly string[],
    ignoreRulesAt: string | null,
    maxBytes: number,
    head?: string,
  ): Promise<CommitCandidate[]>
  /** `tree` with each of `paths` put back as HEAD has it (removed where HEAD lacks it). */
  treeWithPathsAsHead(tree: string, paths: readonly string[]): Promise<string>
  /** The untracked files the ignore rules hide under the `globs`, each with a fingerprint of its content. */
  ignoredFiles(globs: readonly string[]): Promise<Record<string, string>>
}

/** Thrown by `commitAll` when another process committed in the same work tree at the same time. */
export class ConcurrentCommitError extends Error {
  override name = 'ConcurrentCommitError'
}
