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
