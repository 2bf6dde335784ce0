/** The names a loop is known by on GitHub: its labels, its branch and its sticky comment's marker. */

/** Labels people put on an issue or pull request. */
export const Labels = {
  /** Starts a loop from an issue (used by the example workflow). */
  Start: 'loop',
  Stop: 'loop/stop',
  ApprovedPrefix: 'loop/approved:',
} as const

/** The hidden marker that finds a loop's sticky comment. */
export function stickyCommentMarker(loopId: string): string {
  return `<!-- loop-controller:${loopId} -->`
}

/** The hidden marker of the comment that says why the loop refused something (kept apart from the status). */
export function refusalCommentMarker(loopId: string): string {
  return `<!-- loop-controller-refusal:${loopId} -->`
}

/** The branch a loop commits its work to. */
export function loopBranch(loopId: string): string {
  return `loop/${loopId}`
}

/**
 * The loop a pull request's head branch belongs to (its raw id, unsanitised), or null. Only a branch of
 * this repository is a loop's: anyone can name a fork's branch `loop/<id>`, and that pull request must
 * not receive the loop's approvals and commands. An unknown head repository (a deleted fork) is a fork.
 */
export function loopOfPullRequestHead(
  head: { ref: string; repository: string | null | undefined },
  baseRepository: string | null | undefined,
): string | null {
  const sameRepository =
    typeof head.repository === 'string' &&
    typeof baseRepository === 'string' &&
    head.repository.toLowerCase() === baseRepository.toLowerCase()
  if (!sameRepository || !head.ref.startsWith('loop/')) return null
  return head.ref.slice('loop/'.length)
}

/** What `isStateBranchName` takes, as a message tells the person who gave another name. */
export const STATE_BRANCH_RULE =
  "letters, digits, '.', '_', '-' and '/', at most 200 characters, with no '..' and no trailing '/' or '.lock'"

/**
 * A branch name the `git` store can keep states on: letters, digits, dot, dash, underscore and slash,
 * at most 200 characters, with none of the forms git refuses (`..`, a trailing `/` or `.lock`).
 */
export function isStateBranchName(value: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/.test(value) &&
    !value.includes('..') &&
    !value.endsWith('/') &&
    !value.endsWith('.lock')
  )
}
