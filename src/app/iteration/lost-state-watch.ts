/**
 * Where people watch a loop whose state the store lost: the fresh state knows neither the loop's pull
 * request nor its task, so the BLOCKED report would reach only the job summary. The pull request is
 * found again by the loop's branch, once, in this case only; the issue a loop started from is named by
 * its loop id (`issue-N`, see `commentTargets`), needing no request.
 */
import { messageOf } from '../../config/errors.js'
import { loopBranch } from '../../domain/loop-names.js'
import { event, type LoopRecord, withEvents } from './record.js'
import type { IterationDeps } from './types.js'

/**
 * The record with the loop's open pull request, when its state does not hold one and the lookup finds
 * it, so the BLOCKED comment is posted there and `/loop resume` goes on with it known. The task is not
 * rebuilt from the issue: its text then is not what a writer started the loop on (an edit since could
 * add instructions), and the loop asks no one for it.
 */
export async function withWatchedPullRequest(
  record: LoopRecord,
  deps: Pick<IterationDeps, 'openPullRequestOf' | 'logger'>,
  now: Date,
): Promise<LoopRecord> {
  const { state } = record
  if (state.pullRequest || !deps.openPullRequestOf) return record
  const branch = loopBranch(state.loopId)
  let pull: Awaited<ReturnType<NonNullable<IterationDeps['openPullRequestOf']>>>
  try {
    pull = await deps.openPullRequestOf(branch)
  } catch (error) {
    // Any failure (a missing permission, the rate limit, an outage) costs only where the comment goes:
    // the BLOCKED state is saved and the job summary says why, as without the lookup.
    deps.logger.warning(
      `Loop ${state.loopId}: the open pull request of ${branch} was not looked up (${messageOf(error)}); the BLOCKED status is said in the job summary and wherever else the loop is known.`,
    )
    return record
  }
  if (pull === null) return record
  const message = `pull request #${pull.number} found by the loop's branch ${branch}: ${pull.url}`
  deps.logger.info(`Loop ${state.loopId}: ${message}.`)
  const pullRequest = { number: pull.number, url: pull.url, merged: false }
  return withEvents(
    { ...record, state: { ...state, pullRequest, updatedAt: now.toISOString() } },
    event(now, state.iteration, 'pull-request', message, { number: pull.number }),
  )
}
