/**
 * Making a commit, for `GitCli`: git's own `commit` of the index (no hooks, no signing), or a given tree
 * committed with `commit-tree` and the branch moved with `update-ref` from the parent the caller expects,
 * so that a commit another process made meanwhile is reported rather than lost.
 */
import { CONCURRENT_UPDATE_SIGNS, isConcurrentCommit } from '../domain/git-errors.js'
import { type CommitAndTree, ConcurrentCommitError, type Identity } from '../ports/git.js'
import { GitCommandError, type GitProcess } from './git-process.js'

/** Git messages that look like trouble but are not, with what they mean. Matched on `LC_ALL=C` output. */
export const BENIGN_GIT_MESSAGES = {
  nothingToCommit: /nothing to commit|no changes added to commit/,
  everythingUpToDate: /Everything up-to-date/,
  currentBranchUpToDate: /Current branch \S+ is up to date/,
  alreadyOnBranch: /Already on '[^']+'/,
  switchedToNewBranch: /Switched to (a new )?branch/,
  resetBranch: /Switched to and reset branch/,
} as const

/** Files of an operation that git's own commit finishes (a merge's second parent, a pick's author). */
export const FINISHED_BY_GIT_COMMIT = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'] as const

/**
 * Commits the index as it is, without hooks or signing; the new commit, or null when nothing is staged.
 * `merging`: a merge is in progress, which git would commit even with nothing staged.
 */
export async function commitIndex(
  git: GitProcess,
  message: string,
  identity: Identity,
  merging: boolean,
): Promise<string | null> {
  if (merging && !(await hasStagedChanges(git))) return null
  // The loop's checkpoints must not be vetoed or prompted by local hooks or signing: the matrix is the judge.
  const args = [...identityArgs(identity), '-c', 'commit.gpgsign=false', 'commit', '--no-verify', '-q', '-m', message]
  const result = await git.exec(args, { allowFailure: true })
  if (result.exitCode !== 0) {
    // Another process in the same work tree (a second controller) committed these changes between our
    // staging and our commit: nothing is left for us to commit.
    if (BENIGN_GIT_MESSAGES.nothingToCommit.test(result.stdout + result.stderr)) return null
    if (isConcurrentCommit(result.stderr, message)) {
      throw new ConcurrentCommitError(
        `another process committed in ${git.cwd} at the same time: ${result.stderr.trim()}`,
      )
    }
    // Nothing staged: git refuses an empty commit. Asked only now, which spares a git per checkpoint.
    if (!(await hasStagedChanges(git))) return null
    throw new GitCommandError(args, result)
  }
  return (await git.exec(['rev-parse', '--verify', '-q', 'HEAD^{commit}'])).stdout.trim()
}

/**
 * Commits `tree` on top of `parent` (none: a first commit) and moves HEAD from `parent` to it. A lock a
 * killed git left on HEAD or the branch is settled by the command's own retry (git-process.ts).
 */
export async function commitTreeOnto(
  git: GitProcess,
  tree: string,
  message: string,
  identity: Identity,
  parent: CommitAndTree | null,
): Promise<string> {
  const args = [...identityArgs(identity), '-c', 'commit.gpgsign=false', 'commit-tree', tree, '-m']
  const made = [...args, cleanedMessage(message), ...(parent ? ['-p', parent.commit] : [])]
  const commit = (await git.exec(made)).stdout.trim()
  const update = ['update-ref', '-m', 'loop: checkpoint', 'HEAD', commit, parent?.commit ?? '']
  const moved = await git.exec(update, { allowFailure: true })
  if (moved.exitCode !== 0) {
    if (CONCURRENT_UPDATE_SIGNS.some((sign) => sign.test(moved.stderr))) {
      throw new ConcurrentCommitError(
        `another process committed in ${git.cwd} at the same time: ${moved.stderr.trim()}`,
      )
    }
    throw new GitCommandError(update, moved)
  }
  return commit
}

async function hasStagedChanges(git: GitProcess): Promise<boolean> {
  const staged = await git.exec(['diff', '--cached', '--quiet'], { allowFailure: true })
  if (staged.exitCode !== 0 && staged.exitCode !== 1) throw new GitCommandError(['diff', '--cached', '--quiet'], staged)
  return staged.exitCode === 1
}

/**
 * The message as `git commit -m` records it (`commit-tree` takes it as given): each line without its
 * trailing spaces, blank lines in a row made one, none at the start or the end.
 */
export function cleanedMessage(message: string): string {
  const lines = message.split('\n').map((line) => line.replace(/[ \t\v\f\r]+$/, ''))
  const kept = lines.filter((line, i) => line !== '' || (i > 0 && lines[i - 1] !== ''))
  while (kept[0] === '') kept.shift()
  while (kept[kept.length - 1] === '') kept.pop()
  return kept.join('\n')
}

export function identityArgs(identity: Identity): string[] {
  return ['-c', `user.name=${identity.name}`, '-c', `user.email=${identity.email}`]
}
