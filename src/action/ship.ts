/**
 * SHIP asks a person to merge the loop's pull request, and GitHub merges no draft: before it asks, the
 * loop marks its draft ready for review. A refusal (a token without `pull-requests: write`, an older
 * server) is a warning, not a failure: the person can press "Ready for review" themselves.
 */
import { messageOf } from '../config/errors.js'
import type { LoopState } from '../domain/state.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'

/** Whether the loop now waits for a person to merge its (open, unmerged) pull request. */
export function waitsForMerge(state: LoopState): boolean {
  return (
    state.stage === 'SHIP' && state.status === 'waiting' && state.pullRequest !== undefined && !state.pullRequest.merged
  )
}

export async function readyForMerge(
  state: LoopState,
  deps: { github: Pick<GitHubPort, 'markReadyForReview'>; logger: Logger },
): Promise<void> {
  if (!waitsForMerge(state) || !state.pullRequest) return
  const { number } = state.pullRequest
  try {
    if (await deps.github.markReadyForReview(number)) {
      deps.logger.info(`Pull request #${number} is marked ready for review: it waits for a person to merge it.`)
    }
  } catch (error) {
    deps.logger.warning(
      `Could not mark pull request #${number} ready for review (${messageOf(error)}); press "Ready for review" on it before merging.`,
    )
  }
}
