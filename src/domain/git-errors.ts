/**
 * What git's output says happened, as data: shared by the git adapter (which runs git) and the loop
 * branch logic in app/ (which decides what to do next). Pure.
 */

/** Signs in git's output that a push was refused because the remote moved on. */
export const NON_FAST_FORWARD_SIGNS: readonly RegExp[] = [
  /\(non-fast-forward\)/,
  /\(fetch first\)/,
  /\(stale info\)/,
  /Updates were rejected because the (tip|remote)/,
]

/** Signs of a rebase stopped by conflicting changes. */
export const CONFLICT_SIGNS: readonly RegExp[] = [/^CONFLICT \(/m, /could not apply/]

/** Git's answer when another process moved HEAD between our read and our commit. */
export const CONCURRENT_UPDATE_SIGNS: readonly RegExp[] = [/cannot lock ref '[^']+': is at \S+ but expected/]

/**
 * Whether `git commit -m message` failed because another process committed in the same work tree at
 * the same time: HEAD moved under it, or the two commits shared `.git/COMMIT_EDITMSG` and git read the
 * other's half-written file, so it aborts ours as empty though the message given was not.
 */
export function isConcurrentCommit(stderr: string, message: string): boolean {
  if (CONCURRENT_UPDATE_SIGNS.some((sign) => sign.test(stderr))) return true
  return message.trim() !== '' && /Aborting commit due to empty commit message/.test(stderr)
}

/** Signs that the remote refused the token itself (GitHub: 403, "Permission to ... denied"). */
const PERMISSION_SIGNS: readonly RegExp[] = [/error: 403\b/, /Permission to \S+ denied/i, /permission denied/i]

/**
 * What to add to a failed push's message when the remote refused the token, naming the permission and
 * where to grant it; '' otherwise.
 */
export function pushPermissionHint(gitOutput: string): string {
  if (!PERMISSION_SIGNS.some((sign) => sign.test(gitOutput))) return ''
  return " The token needs 'contents: write' to push: add it under 'permissions:' of the job that runs loop-controller (or give push-token a token that has it)."
}
