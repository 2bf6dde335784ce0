/**
 * Re-dispatch: while the loop continues, the job starts the next iteration by dispatching its own
 * workflow (`workflow_dispatch` with the loop id and the next iteration), so each iteration is a job.
 */
import { recordedDispatch } from '../app/sweep.js'
import { parseWorkflowRef } from '../domain/action-event.js'
import type { DispatchRecord, LoopState } from '../domain/state.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import type { RunContext } from './run-context.js'

/**
 * Dispatches the next iteration, recorded in the loop's state first (what a sweeper reads). Returns
 * null when the dispatch went out (or there was nothing to dispatch), else the failure: its message and
 * the state that records it, for the status comment.
 */
export async function redispatch(
  run: Pick<RunContext, 'workflowRef' | 'runId'> & { event: Pick<RunContext['event'], 'defaultBranch'> },
  input: { loopId: string; state: LoopState },
  deps: { github: Pick<GitHubPort, 'dispatchWorkflow'>; logger: Logger; store: Store; clock: Clock },
): Promise<{ message: string; state: LoopState | null } | null> {
  const { loopId, state } = input
  const target = parseWorkflowRef(run.workflowRef ?? '')
  if (!target) {
    deps.logger.warning(`Cannot tell which workflow to re-dispatch from GITHUB_WORKFLOW_REF '${run.workflowRef}'.`)
    return null
  }
  const record: DispatchRecord = {
    iteration: state.iteration + 1,
    workflow: target.file,
    ref: dispatchRef(target.ref, run.event.defaultBranch),
    at: deps.clock.now().toISOString(),
    by: `run ${run.runId ?? 'local'}`,
  }
  const dispatched = await recordedDispatch(loopId, record, {
    store: deps.store,
    logger: deps.logger,
    dispatch: (id, what) => dispatchIteration(id, what, deps),
  })
  if (dispatched.error === undefined) return null
  return {
    message:
      `The re-dispatch of iteration ${record.iteration} of loop ${loopId} failed: ${dispatched.error}. ` +
      `Nothing is scheduled${dispatched.state?.dispatch?.failed ? ' (the failure is recorded in the state)' : ''}: a scheduled sweeper (\`command: sweep\`) dispatches it again; ` +
      `without one, run the workflow with \`loop-id: ${loopId}\` and \`iteration: ${record.iteration}\`.`,
    state: dispatched.state,
  }
}

/** One workflow dispatch of `record`'s iteration (the job's re-dispatch or a sweeper's); the run's id where GitHub said. */
export async function dispatchIteration(
  loopId: string,
  record: DispatchRecord,
  deps: { github: Pick<GitHubPort, 'dispatchWorkflow'>; logger: Logger },
): Promise<string | undefined> {
  const dispatched = await deps.github.dispatchWorkflow({
    workflow: record.workflow,
    ref: record.ref,
    inputs: { 'loop-id': loopId, iteration: String(record.iteration) },
  })
  deps.logger.info(
    `Dispatched iteration ${record.iteration} of loop ${loopId}${dispatched.htmlUrl ? `: ${dispatched.htmlUrl}` : ''}.`,
  )
  return dispatched.runId !== undefined ? String(dispatched.runId) : undefined
}

/**
 * The ref to dispatch on: the job's own, unless it ran on a pull request's `refs/pull/N/merge`
 * (reviews, labels and merges of the pull request), which GitHub does not dispatch to (422 "No ref
 * found"). Then the default branch: its workflow file is the reviewed one, unlike the loop's branch,
 * where the agent could have rewritten it.
 */
export function dispatchRef(jobRef: string, defaultBranch: string): string {
  return jobRef.startsWith('refs/pull/') ? `refs/heads/${defaultBranch}` : jobRef
}
