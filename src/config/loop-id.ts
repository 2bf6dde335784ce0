/**
 * The loop's id: the default one an event names (issue, pull request, or the run), and the one rule
 * that makes any text a safe id (it becomes a branch name and a folder).
 */
import { loopOfPullRequestHead } from '../domain/loop-names.js'
import type { ActionSettings, EventContext } from './action-inputs.js'

/** The longest loop id (it names a branch and a folder). */
export const LOOP_ID_MAX_LENGTH = 100

/** Keeps [A-Za-z0-9._-], turns anything else into '-', and trims to 100 characters. Never `.` or `..`. */
export function sanitiseLoopId(value: string): string {
  return value
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, LOOP_ID_MAX_LENGTH)
    .replace(/[.-]+$/, '')
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
}

function fullNameOf(repository: unknown): string | null {
  const name = record(repository)?.full_name
  return typeof name === 'string' ? name : null
}

/**
 * The default loop id: `issue-<n>` or `pr-<n>` from the event; a pull request on a loop's own branch
 * (`loop/<id>` in this repository, not a fork's) belongs to that loop; otherwise `run-<runId>`.
 */
export function deriveLoopId(event: EventContext): { loopId: string; source: ActionSettings['loopIdSource'] } {
  const payload = event.payload
  const pull = record(payload.pull_request)
  if (pull && typeof pull.number === 'number') {
    const head = record(pull.head)
    const headLoop =
      typeof head?.ref === 'string'
        ? loopOfPullRequestHead({ ref: head.ref, repository: fullNameOf(head.repo) }, fullNameOf(payload.repository))
        : null
    const fromBranch = headLoop === null ? '' : sanitiseLoopId(headLoop)
    if (fromBranch !== '') return { loopId: fromBranch, source: 'pull-request' }
    return { loopId: `pr-${pull.number}`, source: 'pull-request' }
  }
  const issue = record(payload.issue)
  if (issue && typeof issue.number === 'number') {
    if (record(issue.pull_request)) return { loopId: `pr-${issue.number}`, source: 'pull-request' }
    return { loopId: `issue-${issue.number}`, source: 'issue' }
  }
  return { loopId: `run-${event.runId}`, source: 'run' }
}
