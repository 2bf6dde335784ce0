/**
 * What a job tells people when it is done: error annotations at the failing locations, the job
 * summary, the sticky status comment on the issue or pull request, and the step's outputs. A BLOCKED
 * loop's report carries the handoff: what a person should do.
 */
import type { IterationResult } from '../app/iteration.js'
import { loopBranch, Outputs, stickyCommentMarker } from '../constants.js'
import { failureAdvice } from '../domain/analysis/index.js'
import { issueOfLoop } from '../domain/depends-on.js'
import { legJobName } from '../domain/fan-out-jobs.js'
import { type IsolationReport, isolationLine } from '../domain/isolation.js'
import {
  buildReportModel,
  buildReportView,
  type Handoff,
  isStopped,
  locationsOf,
  MAX_ANNOTATIONS,
  overallVerdict,
  type PullRequestWaiting,
  type ReportOutcome,
  renderComment,
  renderSummary,
  type StoppedState,
  selectAnnotations,
} from '../domain/report/index.js'
import type { LoopState } from '../domain/state.js'
import { dispatchFailureNote } from '../domain/sweep.js'
import { GitHubPermissionError, type GitHubPort, GitHubRateLimitedError } from '../ports/github.js'
import type { ActionIO } from './actions-io.js'
import type { RunContext } from './run-context.js'
import { storeWarningsNote } from './store-warnings.js'

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
    /** The end states that fail the job (the `fail-on` input); none when unset. */
    failOn?: readonly StoppedState[]
    /** Reporting again after the re-dispatch failed: the comment anew, the summary only the note. */
    afterFailedDispatch?: boolean
    /** What the state store lost, rolled back or did not mirror in this job (`StoreWarnings`). */
    storeWarnings?: readonly string[]
    /** The dashboard issue, linked from the summary and the comment (`dashboard: true`, once it exists). */
    dashboard?: { number: number; url: string } | undefined
    /** Fan-out's decide: the verify legs whose check failed, by leg, with the id of the leg's own job. */
    failedLegs?: readonly { leg: string; jobId: number }[]
  },
  deps: {
    github: Pick<GitHubPort, 'upsertStickyComment'>
    io: Pick<ActionIO, 'annotateError' | 'writeSummary' | 'info' | 'warning' | 'setOutput' | 'setFailed'>
    redact: (text: string) => string
  },
): Promise<void> {
  const { loopId, state, outcome, result } = input
  const { github, io, redact } = deps
  const runUrl = `${run.serverUrl}/${run.repository}/actions/runs/${run.runId}`
  const branch = loopBranch(loopId)
  const issue = loopIssue(state)
  const model = buildReportModel(state, {
    // A baseline round ran no iteration: its report shows the checks at the base, said as such.
    checks: result.baselineRound?.checks ?? result.checks,
    ...(result.baselineRound ? { baselineRound: { iteration: result.baselineRound.iteration } } : {}),
    next: result.next,
    nextAction: result.nextAction,
    outcome,
    ...(outcome === 'blocked' ? { handoff: handoffOf(state) } : {}),
    ...(input.pullRequestWaiting && !state.pullRequest ? { pullRequestWaiting: input.pullRequestWaiting } : {}),
    links: {
      run: runUrl,
      auditTrail: `${runUrl}#artifacts`,
      // A loop that never ran an iteration (one aborted while queued) has no branch to link.
      ...(state.iteration > 0
        ? { branch: { name: branch, url: `${run.serverUrl}/${run.repository}/tree/${branch}` } }
        : {}),
      ...(state.pullRequest ? { pullRequest: { number: state.pullRequest.number, url: state.pullRequest.url } } : {}),
      ...(issue !== null
        ? { issue: { number: issue, url: `${run.serverUrl}/${run.repository}/issues/${issue}` } }
        : {}),
      ...(input.dashboard ? { dashboard: input.dashboard } : {}),
      ...(input.failedLegs && input.failedLegs.length > 0
        ? {
            failedLegs: input.failedLegs.map(({ leg, jobId }) => ({
              name: legJobName(leg),
              url: `${runUrl}/job/${jobId}`,
            })),
          }
        : {}),
    },
  })
  const view = buildReportView(model)
  // Nothing scheduled the next iteration: said wherever people look.
  const dispatchNote = redact(dispatchFailureNote(state))
  const storeNote = storeWarningsNote(input.storeWarnings ?? [], redact)
  // The end state's annotation comes first and counts against GitHub's 10 per step, so it is never
  // the one dropped.
  const failsJob = view.endState !== null && isStopped(view.state) && (input.failOn ?? []).includes(view.state)
  if (failsJob && view.endState && !input.afterFailedDispatch) {
    io.setFailed(redact(view.endState.message), redact(view.endState.title))
  }
  const { annotations, overflow } = selectAnnotations(
    locationsOf(result.checks),
    MAX_ANNOTATIONS - (failsJob ? 1 : 0),
    input.root,
  )
  if (!input.afterFailedDispatch) for (const a of annotations) io.annotateError(redact(a.message), a)
  if (!run.hasStepSummary) io.info('GITHUB_STEP_SUMMARY is not set (not on a runner): no job summary written.')
  else if (input.afterFailedDispatch) await io.writeSummary(`\n${dispatchNote}`)
  else {
    const summary = renderSummary(model, { redact, overflowLocations: overflow })
    const withStore = storeNote ? `${summary}\n${storeNote}` : summary
    await io.writeSummary(input.isolation ? `${withStore}\n${isolationLine(input.isolation)}\n` : withStore)
  }
  for (const issueNumber of commentTargets(run.event.subject.number, state)) {
    const rendered = renderComment(model, { redact, postedOn: issueNumber })
    const body = [rendered, storeNote, dispatchNote].filter(Boolean).join('\n')
    try {
      const comment = await github.upsertStickyComment({ issueNumber, marker: stickyCommentMarker(loopId), body })
      io.info(`Status comment ${comment.created ? 'posted' : 'updated'}: ${comment.url}`)
    } catch (error) {
      // The summary says it all too: the loop goes on without its comment rather than stop here
      // (and, past the rate limit, on to its re-dispatch, which records a failure the sweeper reads).
      if (!(error instanceof GitHubPermissionError) && !(error instanceof GitHubRateLimitedError)) throw error
      io.warning(redact(`${error.message} Until then the loop goes on without its status comment on #${issueNumber}.`))
    }
  }
  io.setOutput(Outputs.Iteration, state.iteration)
  io.setOutput(Outputs.Stage, state.stage)
  io.setOutput(Outputs.Verdict, overallVerdict(result.checks))
  io.setOutput(Outputs.Status, state.status)
  io.setOutput(Outputs.Pattern, result.checks.find((check) => check.pattern)?.pattern ?? '')
  // A running loop's next action is the loop's own; a stopped, waiting or finished one's is a person's.
  io.setOutput(Outputs.NextAction, redact(view.state === 'running' ? result.nextAction : view.nextStep))
  io.setOutput(Outputs.PrNumber, state.pullRequest?.number ?? '')
}

/**
 * Where the sticky comment is kept current: the event's issue or pull request, the loop's pull request,
 * and the issue the loop started from, so a person watching the issue reads the same truth as the
 * pull request's reviewers (a dispatched job's event names neither).
 */
export function commentTargets(subject: number | null | undefined, state: LoopState): number[] {
  const targets = [subject, state.pullRequest?.number, loopIssue(state) ?? undefined]
  return [...new Set(targets.filter((n): n is number => typeof n === 'number'))]
}

/**
 * The issue the loop started from: its task's, or, for a state without a task (one started afresh
 * after the store lost the loop's state), the issue its loop id names (`issue-N`, the id a loop started
 * from issue N gets). Any other loop id names no issue, and none is guessed.
 */
export function loopIssue(state: LoopState): number | null {
  if (state.task) return state.task.source === 'issue' ? state.task.number : null
  return issueOfLoop(state.loopId)
}

/**
 * The BLOCKED handoff's ask of a person, from the failure pattern's advice (likely root cause, where
 * to look, an alternative approach) when a failure is open; otherwise the report's default for the
 * reason. Counts and the error's text are not repeated here: the report says them once.
 */
export function handoffOf(state: LoopState): Handoff | undefined {
  const failure = state.failures.current
  if (!failure) return undefined
  const advice = failureAdvice(failure.pattern)
  const cause = advice.rootCause.replace(/\.$/, '')
  return {
    reason: state.statusReason,
    humanAction: `find and fix the likely cause (${cause.charAt(0).toLowerCase()}${cause.slice(1)}), or clarify the goal.`,
    suggestion: `${advice.whereToLook} ${advice.alternative}`.trim(),
  }
}
