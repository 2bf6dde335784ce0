/**
 * A queued loop's status, said: saved under compare-and-swap (a loop that ended meanwhile is left as it
 * is) and told in its status comment and the job summary.
 */

import { messageOf } from '../config/errors.js'
import { stickyCommentMarker } from '../constants.js'
import { nameOfLoop } from '../domain/depends-on.js'
import { renderAdmitted } from '../domain/report/admitted.js'
import { renderQueued } from '../domain/report/queued.js'
import type { QueueWait } from '../domain/slots.js'
import type { LoopState } from '../domain/state.js'
import { GitHubPermissionError } from '../ports/github.js'
import { commentTargets } from './report.js'
import type { RunContext } from './run-context.js'
import { saveOnLatest } from './save-on-latest.js'
import type { ReleaseDeps, SlotJobDeps } from './slots.js'

/** Saves the loop's status on its latest state (`saveOnLatest`). */
export async function saveStatus(
  loopId: string,
  status: 'queued' | 'running',
  statusReason: string,
  deps: Pick<SlotJobDeps, 'store' | 'clock'>,
  fromRunning = false,
): Promise<{ state: LoopState; version: string }> {
  const stored = await saveOnLatest(deps.store, loopId, (latest) => {
    // A queued loop, one in `status` already, or a resumed (`running`) one that queues changes; one that
    // ended meanwhile is left as it is.
    const from = latest.status
    if (from !== 'queued' && from !== status && !(fromRunning && from === 'running')) return null
    return { ...latest, status, statusReason, updatedAt: deps.clock.now().toISOString() }
  })
  if (!stored) throw new Error(`loop ${loopId} has no state to mark ${status}`)
  return stored
}

export async function reportQueued(
  run: RunContext,
  /** `releasedBy`: the loop whose job tells this one its new place (it ended). */
  input: { loopId: string; state: LoopState; wait: QueueWait; summary?: boolean; releasedBy?: string },
  deps: ReleaseDeps,
): Promise<void> {
  const runId = String(run.runId ?? 'local')
  const writer = {
    runId,
    runUrl: `${run.serverUrl}/${run.repository}/actions/runs/${runId}`,
    at: deps.clock.now().toISOString(),
    ...(input.releasedBy !== undefined ? { releasedBy: input.releasedBy } : {}),
  }
  const dashboard = await deps.dashboard?.()
  const body = deps.redact(
    renderQueued({ loopId: input.loopId, wait: input.wait, writer, ...(dashboard ? { dashboard } : {}) }, nameOfLoop),
  )
  if (input.summary !== false && run.hasStepSummary) await deps.io.writeSummary(body)
  const subject = input.summary !== false ? run.event.subject.number : null
  await writeStatusComments(commentTargets(subject, input.state), input.loopId, body, deps, (issueNumber, error) =>
    error instanceof GitHubPermissionError
      ? `${error.message} The queued loop has no status comment on #${issueNumber}.`
      : undefined,
  )
}

/**
 * A loop admitted from the line, when the job that admitted it dispatched its run and again at the start
 * of its own job: its comment, which said queued, says which run starts its iteration (the iteration's
 * report replaces it). A comment that cannot be written only warns.
 */
export async function reportAdmitted(
  run: RunContext,
  /** `runId`: the run dispatched to start it, when another job admitted it (default: this job's run). */
  input: { loopId: string; state: LoopState; runId?: string },
  deps: Pick<ReleaseDeps, 'github' | 'io' | 'logger' | 'redact'>,
): Promise<void> {
  const runId = input.runId ?? (run.runId === undefined ? undefined : String(run.runId))
  const runUrl = runId === undefined ? undefined : `${run.serverUrl}/${run.repository}/actions/runs/${runId}`
  const iteration = input.state.iteration + 1
  const body = deps.redact(
    renderAdmitted({ loopId: input.loopId, iteration, ...(runId ? { runId } : {}), ...(runUrl ? { runUrl } : {}) }),
  )
  // Another loop's job (its event about that loop) tells only the admitted loop's own issues.
  const subject = input.runId === undefined ? run.event.subject.number : null
  await writeStatusComments(
    commentTargets(subject, input.state),
    input.loopId,
    body,
    deps,
    (issueNumber, error) =>
      `The status comment of loop ${input.loopId} on #${issueNumber} still says queued (${messageOf(error)}).`,
  )
}

/**
 * Writes the loop's sticky comment on each of `issueNumbers`. A comment that cannot be written is warned
 * about in the words `warningOf` gives, or, where it gives none, fails the job.
 */
async function writeStatusComments(
  issueNumbers: readonly number[],
  loopId: string,
  body: string,
  deps: Pick<ReleaseDeps, 'github' | 'io' | 'logger' | 'redact'>,
  warningOf: (issueNumber: number, error: unknown) => string | undefined,
): Promise<void> {
  for (const issueNumber of issueNumbers) {
    try {
      const comment = await deps.github.upsertStickyComment({ issueNumber, marker: stickyCommentMarker(loopId), body })
      deps.io.info(`Status comment ${comment.created ? 'posted' : 'updated'}: ${comment.url}`)
    } catch (error) {
      const warning = warningOf(issueNumber, error)
      if (warning === undefined) throw error
      deps.logger.warning(deps.redact(warning))
    }
  }
}
