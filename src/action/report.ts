/**
 * What a job tells people when it is done: error annotations at the failing locations, the job
 * summary, the sticky status comment on the issue or pull request, and the step's outputs. A BLOCKED
 * loop's report carries the handoff: what a person should do.
 */
import type { IterationResult } from '../app/iteration.js'
import { loopBranch, Outputs, stickyCommentMarker } from '../constants.js'
import { buildDeadLetter } from '../domain/analysis/index.js'
import { type IsolationReport, isolationLine } from '../domain/isolation.js'
import {
  buildReportModel,
  type Handoff,
  locationsOf,
  MAX_ANNOTATIONS,
  overallVerdict,
  type PullRequestWaiting,
  type ReportOutcome,
  renderComment,
  renderSummary,
  selectAnnotations,
} from '../domain/report/index.js'
import type { LoopState } from '../domain/state.js'
import { dispatchFailureNote } from '../domain/sweep.js'
import type { GitHubPort } from '../ports/github.js'
import type { ActionIO } from './actions-io.js'
import type { RunContext } from './run-context.js'

export async function report(
  run: Pick<RunContext, 'event' | 'serverUrl' | 'repository' | 'runId' | 'hasStepSummary'>,
  input: {
    loopId: string
    state: LoopState
    outcome: ReportOutcome
    result: IterationResult
    /** The workspace root, which annotation paths are made relative to. */
    root: string
    /** The isolation the commands ran under, said in the summary. */
    isolation?: IsolationReport
    /** The branch is pushed but the setting kept the token from opening the pull request. */
    pullRequestWaiting?: PullRequestWaiting | undefined
    /** Reporting again after the re-dispatch failed: the comment anew, the summary only the note. */
    afterFailedDispatch?: boolean
  },
  deps: {
    github: Pick<GitHubPort, 'upsertStickyComment'>
    io: Pick<ActionIO, 'annotateError' | 'writeSummary' | 'info' | 'setOutput'>
    redact: (text: string) => string
  },
): Promise<void> {
  const { loopId, state, outcome, result } = input
  const { github, io, redact } = deps
  const runUrl = `${run.serverUrl}/${run.repository}/actions/runs/${run.runId}`
  const branch = loopBranch(loopId)
  const model = buildReportModel(state, {
    checks: result.checks,
    next: result.next,
    nextAction: result.nextAction,
    outcome,
    ...(outcome === 'blocked' ? { handoff: handoffOf(state, loopId) } : {}),
    ...(input.pullRequestWaiting && !state.pullRequest ? { pullRequestWaiting: input.pullRequestWaiting } : {}),
    links: {
      run: runUrl,
      auditTrail: `${runUrl}#artifacts`,
      branch: { name: branch, url: `${run.serverUrl}/${run.repository}/tree/${branch}` },
      ...(state.pullRequest ? { pullRequest: { number: state.pullRequest.number, url: state.pullRequest.url } } : {}),
    },
  })
  // Nothing scheduled the next iteration: said wherever people look.
  const dispatchNote = redact(dispatchFailureNote(state))
  const { annotations, overflow } = selectAnnotations(locationsOf(result.checks), MAX_ANNOTATIONS, input.root)
  if (!input.afterFailedDispatch) for (const a of annotations) io.annotateError(redact(a.message), a)
  if (!run.hasStepSummary) io.info('GITHUB_STEP_SUMMARY is not set (not on a runner): no job summary written.')
  else if (input.afterFailedDispatch) await io.writeSummary(`\n${dispatchNote}`)
  else {
    const summary = renderSummary(model, { redact, overflowLocations: overflow })
    await io.writeSummary(input.isolation ? `${summary}\n${isolationLine(input.isolation)}\n` : summary)
  }
  const body = dispatchNote ? `${renderComment(model, { redact })}\n${dispatchNote}` : renderComment(model, { redact })
  for (const issueNumber of commentTargets(run.event.subject.number, state)) {
    const comment = await github.upsertStickyComment({ issueNumber, marker: stickyCommentMarker(loopId), body })
    io.info(`Status comment ${comment.created ? 'posted' : 'updated'}: ${comment.url}`)
  }
  io.setOutput(Outputs.Iteration, state.iteration)
  io.setOutput(Outputs.Stage, state.stage)
  io.setOutput(Outputs.Verdict, overallVerdict(result.checks))
  io.setOutput(Outputs.Status, state.status)
  io.setOutput(Outputs.Pattern, result.checks.find((check) => check.pattern)?.pattern ?? '')
  io.setOutput(Outputs.NextAction, redact(result.nextAction))
  io.setOutput(Outputs.PrNumber, state.pullRequest?.number ?? '')
}

/**
 * Where the sticky comment is kept current: the event's issue or pull request, the loop's pull request,
 * and the issue the loop started from, so a person watching the issue reads the same truth as the
 * pull request's reviewers (a dispatched job's event names neither).
 */
export function commentTargets(subject: number | null | undefined, state: LoopState): number[] {
  const targets = [subject, state.pullRequest?.number, state.task?.source === 'issue' ? state.task.number : undefined]
  return [...new Set(targets.filter((n): n is number => typeof n === 'number'))]
}

/**
 * The BLOCKED handoff's ask of a person, from the dead letter's suggestions (likely root cause, where to
 * look, an alternative approach) when a failure is open; otherwise the report's default for the reason.
 */
export function handoffOf(state: LoopState, loopId: string): Handoff | undefined {
  const failure = state.failures.current
  if (!failure) return undefined
  const { suggestions } = buildDeadLetter({
    loopId,
    failure,
    history: state.failures.history,
    tried: state.failures.tried,
  })
  return {
    reason: state.statusReason,
    humanAction: `${suggestions.rootCause} Fix the cause on \`${loopBranch(loopId)}\` or clarify the goal.`,
    suggestion: `${suggestions.whereToLook} ${suggestions.alternative}`.trim(),
  }
}
