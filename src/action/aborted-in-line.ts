/**
 * A queued loop that a person aborted (`/loop abort`, the stop label, a dashboard tick): no job of it
 * runs again, so its status comment would go on saying it is queued. The job that applied the abort
 * reports it instead, with the report a running loop's own job gives its abort (aborted by whom), and
 * says where it stood in line.
 */
import { finish } from '../app/iteration/record.js'
import type { Decision } from '../domain/engine/index.js'
import type { QueueWait } from '../domain/slots.js'
import type { LoopState } from '../domain/state.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { ActionIO } from './actions-io.js'
import { report } from './report.js'
import type { RunContext } from './run-context.js'

export interface AbortedInLineDeps {
  github: Pick<GitHubPort, 'upsertStickyComment'>
  io: Pick<ActionIO, 'setOutput' | 'writeSummary' | 'info'>
  logger: Logger
  redact: (text: string) => string
}

/** Why the loop stopped, as its report says it: the person's abort, and the place in line it gave up. */
export function abortedInLineReason(state: Pick<LoopState, 'statusReason'>, wait: QueueWait): string {
  const reason = state.statusReason.replace(/[.\s]+$/, '') || 'aborted'
  return `${reason}, while queued (${wait.position} of ${wait.queued} in line); it never ran`
}

/**
 * The aborted loop's report: its status comment (the loop's issue and pull request), and, when this
 * job's event is about the loop (a `/loop abort` on its issue, a dispatch naming it), the job summary
 * and the step's outputs too. A dashboard tick's job is about the dashboard: only the loop's comment.
 * The job stays green whatever `fail-on` says: it did what the person asked.
 */
export async function reportAbortedInLine(
  run: RunContext,
  input: { loopId: string; state: LoopState; wait: QueueWait; root: string },
  deps: AbortedInLineDeps,
): Promise<void> {
  const { state } = input
  const subject = run.event.subject.number ?? null
  const aboutThisLoop =
    subject === null ||
    (state.task?.source === 'issue' && state.task.number === subject) ||
    state.pullRequest?.number === subject
  const told: LoopState = { ...state, statusReason: abortedInLineReason(state, input.wait) }
  const ended: Decision = { kind: 'ABORTED', reason: told.statusReason }
  const result = finish('aborted', told, ended, ended, {}, null)
  const ownRun = aboutThisLoop
    ? run
    : { ...run, hasStepSummary: false, event: { ...run.event, subject: { ...run.event.subject, number: null } } }
  const io = {
    info: (message: string) => deps.io.info(message),
    writeSummary: (markdown: string) => deps.io.writeSummary(markdown),
    setOutput: (name: string, value: string | number) => {
      if (aboutThisLoop) deps.io.setOutput(name, value)
    },
    warning: (message: string) => deps.logger.warning(message),
    // No check ran and `fail-on` is empty here: neither is reached, and neither would be lost if it were.
    annotateError: (message: string) => deps.logger.warning(message),
    setFailed: (message: string) => deps.logger.warning(message),
  }
  await report(
    ownRun,
    { loopId: input.loopId, state: told, outcome: 'aborted', result, root: input.root, failOn: [] },
    {
      github: deps.github,
      io,
      redact: deps.redact,
    },
  )
}
