/**
 * A queued loop whose issue was closed while it waited: nothing reacts to `issues: closed`, so the job
 * that is about to start it asks GitHub first. Such a loop is not started: it leaves the line BLOCKED
 * (reopen the issue and `/loop resume` to run it after all), and its status comment says why.
 */
import { finish } from '../app/iteration/record.js'
import { messageOf } from '../config/errors.js'
import { type Decision, markBlocked } from '../domain/engine/index.js'
import type { LoopState } from '../domain/state.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import type { ActionIO } from './actions-io.js'
import { report } from './report.js'
import type { RunContext } from './run-context.js'
import { saveOnLatest } from './save-on-latest.js'

/**
 * The loop's issue when GitHub says it is closed; null for an open one, a loop not from an issue, or
 * an answer that did not come (then it starts: a token without `issues: read` must not strand it).
 */
export async function closedIssueOf(
  state: Pick<LoopState, 'task'>,
  deps: { github: Pick<GitHubPort, 'getIssueState'>; logger: Logger },
): Promise<number | null> {
  if (state.task?.source !== 'issue') return null
  try {
    return (await deps.github.getIssueState(state.task.number)) === 'closed' ? state.task.number : null
  } catch (error) {
    deps.logger.warning(
      `Whether issue #${state.task.number} is still open is unknown (${messageOf(error)}); its loop starts.`,
    )
    return null
  }
}

/** Why a closed issue's loop was not started, as its state and comment say it. */
export function closedIssueReason(issue: number): string {
  return `issue #${issue} was closed while the loop waited for a slot, so it was not started; reopen the issue and \`/loop resume\` to run it after all`
}

/**
 * Saves the loop BLOCKED (under compare-and-swap; a loop that moved meanwhile is left as it is) and
 * rewrites its status comment. Only the loop's comment: this job's summary and outputs are its own loop's.
 */
export async function blockClosed(
  input: { run: RunContext; root: string; loopId: string; issue: number },
  deps: {
    store: Store
    clock: Clock
    logger: Logger
    github: Pick<GitHubPort, 'upsertStickyComment'>
    io: Pick<ActionIO, 'info'>
    redact: (text: string) => string
  },
): Promise<void> {
  const reason = closedIssueReason(input.issue)
  const stored = await saveOnLatest(deps.store, input.loopId, (latest) =>
    latest.status === 'queued' || latest.status === 'running'
      ? markBlocked(latest, reason, deps.clock.now()).state
      : null,
  )
  if (!stored?.saved) return
  const { state } = stored
  deps.logger.info(`Loop ${input.loopId} was not started: ${reason}.`)
  await reportBlockedElsewhere(input, state, deps)
}

/**
 * The status comment of a loop another job saved BLOCKED (a closed issue's, or one whose job died,
 * found by the sweeper): only the loop's comment, as this job's summary and outputs are not its.
 * A failure only warns.
 */
export async function reportBlockedElsewhere(
  input: { run: RunContext; root: string; loopId: string },
  state: LoopState,
  deps: {
    logger: Logger
    github: Pick<GitHubPort, 'upsertStickyComment'>
    io: Pick<ActionIO, 'info'>
    redact: (text: string) => string
  },
): Promise<void> {
  const ended: Decision = { kind: 'ESCALATE', reason: state.statusReason }
  const result = finish('blocked', state, ended, ended, {}, null)
  const otherLoop = {
    ...input.run,
    hasStepSummary: false,
    event: { ...input.run.event, subject: { ...input.run.event.subject, number: null } },
  }
  const io = {
    info: (message: string) => deps.io.info(message),
    writeSummary: async () => {},
    setOutput: () => {},
    warning: (message: string) => deps.logger.warning(message),
    // `fail-on` is empty: this job is not the loop's, and stays as its own work makes it.
    annotateError: (message: string) => deps.logger.warning(message),
    setFailed: (message: string) => deps.logger.warning(message),
  }
  await report(
    otherLoop,
    { loopId: input.loopId, state, outcome: 'blocked', result, root: input.root, failOn: [] },
    { github: deps.github, io, redact: deps.redact },
  ).catch((error: unknown) =>
    deps.logger.warning(
      deps.redact(`Loop ${input.loopId}'s status comment does not say it is BLOCKED (${messageOf(error)}).`),
    ),
  )
}
