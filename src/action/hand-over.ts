/**
 * A comment on a pull request cannot name its loop in the workflow's concurrency group (the event
 * carries the pull request's number, not its branch), so its job runs outside the loop's group. It
 * records the person's command (under the store's compare-and-swap, as every job does) and hands the
 * iteration to a dispatch, which runs in the loop's group behind any iteration already running there.
 */
import type { LoopState } from '../domain/state.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import { redispatch } from './dispatch.js'
import type { RunContext } from './run-context.js'

/** Whether this job runs outside its loop's concurrency group and must not iterate itself. */
export function outsideLoopGroup(run: Pick<RunContext, 'event' | 'settings'>): boolean {
  return run.settings.dispatch && run.event.name === 'issue_comment' && run.event.subject.isPullRequest
}

/**
 * Dispatches the loop's next iteration instead of running it here. Returns the state it dispatched for
 * (and why the dispatch failed, if it did), or null when there is no loop yet (a `/loop start` on a pull
 * request: nothing else of it can run, so its first iteration runs in this job).
 */
export async function handOverIteration(
  run: Pick<RunContext, 'workflowRef' | 'event' | 'runId'>,
  loopId: string,
  deps: { store: Store; github: Pick<GitHubPort, 'dispatchWorkflow'>; logger: Logger; clock: Clock },
): Promise<{ state: LoopState; failed: string | null } | null> {
  const state = (await deps.store.load(loopId))?.state
  if (!state) return null
  if (state.status !== 'running') return { state, failed: null }
  deps.logger.info(
    `A comment on a pull request runs outside loop ${loopId}'s concurrency group: its iteration is dispatched to run there.`,
  )
  const failed = await redispatch(run, { loopId, state }, deps)
  return { state: failed?.state ?? state, failed: failed?.message ?? null }
}
