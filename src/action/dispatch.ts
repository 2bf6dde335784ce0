/**
 * Re-dispatch: while the loop continues, the job starts the next iteration by dispatching its own
 * workflow (`workflow_dispatch` with the loop id and the next iteration), so each iteration is a job.
 */
import { parseWorkflowRef } from '../domain/action-event.js'
import type { LoopState } from '../domain/state.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { RunContext } from './run-context.js'

export async function redispatch(
  run: Pick<RunContext, 'workflowRef'> & { event: Pick<RunContext['event'], 'defaultBranch'> },
  input: { loopId: string; state: LoopState },
  deps: { github: Pick<GitHubPort, 'dispatchWorkflow'>; logger: Logger },
): Promise<void> {
  const { loopId, state } = input
  const target = parseWorkflowRef(run.workflowRef ?? '')
  if (!target) {
    deps.logger.warning(`Cannot tell which workflow to re-dispatch from GITHUB_WORKFLOW_REF '${run.workflowRef}'.`)
    return
  }
  const next = state.iteration + 1
  const dispatched = await deps.github.dispatchWorkflow({
    workflow: target.file,
    ref: dispatchRef(target.ref, run.event.defaultBranch),
    inputs: { 'loop-id': loopId, iteration: String(next) },
  })
  deps.logger.info(
    `Dispatched iteration ${next} of loop ${loopId}${dispatched.htmlUrl ? `: ${dispatched.htmlUrl}` : ''}.`,
  )
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
