/**
 * What the loop refused to do for safety, said to the person who asked: why, and what to do instead.
 * Rendered once for the job summary and for a comment on the issue or pull request.
 */
import { Labels, loopBranch, refusalCommentMarker } from '../loop-names.js'
import { markdownText } from './escape.js'
import { ANOTHER_LOOP } from './view.js'

export interface Refusal {
  loopId: string
  /** One line: what the loop did not do. */
  title: string
  /** Why, naming the person and what they lack. */
  reason: string
  /** What a person can do to get what they asked for. */
  whatToDo: string
}

/** The start label was added by someone the loop may not take orders from. */
export function startRefusal(loopId: string, reason: string, via: 'label' | 'comment' = 'label'): Refusal {
  const what =
    via === 'label' ? `the \`${Labels.Start}\` label was not added` : 'the `/loop start` comment was not written'
  const how =
    via === 'label'
      ? `to add the \`${Labels.Start}\` label (remove it first)`
      : 'to comment `/loop start` (with what to do after it, if anything)'
  return {
    loopId,
    title: `loop-controller did not start the loop \`${loopId}\`: ${what} by someone with write access.`,
    reason,
    whatToDo: `Ask someone with write access to this repository ${how}, or to start the loop from the Actions tab.`,
  }
}

/**
 * A start (label, `/loop start`) of a loop that was aborted: an aborted loop does not run again, so the
 * start is refused, saying why it ended and what begins the work again. `reason`: its state's, anyone's text.
 */
export function abortedStartRefusal(loopId: string, reason: string): Refusal {
  return {
    loopId,
    title: `loop-controller did not start the loop \`${loopId}\`: it was aborted, and an aborted loop does not run again.`,
    reason: `${markdownText(reason.trim().replace(/[.\s]+$/, '') || 'it was aborted', 300)}.`,
    whatToDo: `To do the work, ${ANOTHER_LOOP}: a new loop starts from the default branch (this loop's commits, if any, stay on \`${loopBranch(loopId)}\`).`,
  }
}

/**
 * The single job cannot run the agent the loop config names (its CLI was not installed): refused before
 * a person's command or start is applied, so the loop stays as it was. `problem`: what to set.
 */
export function agentCliRefusal(loopId: string, problem: string): Refusal {
  return {
    loopId,
    title: `loop-controller did not run the loop \`${loopId}\`: the agent's CLI is not installed in this workflow's job.`,
    reason: problem,
    whatToDo:
      'Once the workflow installs the CLI, ask again (remove and add the label, comment again, or run the workflow again): nothing this job was asked for was applied.',
  }
}

/** The refusal as markdown; `redact` keeps secrets out of anything quoted. */
export function renderRefusal(refusal: Refusal, redact: (text: string) => string = (text) => text): string {
  return [
    `### ${redact(refusal.title)}`,
    '',
    `**Why:** ${redact(refusal.reason)}`,
    '',
    `**What to do:** ${redact(refusal.whatToDo)}`,
    '',
  ].join('\n')
}

/** The refusal as a comment, found again by its own marker so a repeat updates it instead of adding one. */
export function renderRefusalComment(refusal: Refusal, redact?: (text: string) => string): string {
  return `${refusalCommentMarker(refusal.loopId)}\n${renderRefusal(refusal, redact)}`
}

/**
 * A resume of a capped loop whose limit is still reached: it would only be capped again at once, so
 * nothing was applied. `problem`: the engine's words (the limit and what to raise); `whatToDo`: how.
 */
export function cappedResumeRefusal(loopId: string, problem: string, whatToDo: string): Refusal {
  return {
    loopId,
    title: `loop-controller did not resume the loop \`${loopId}\`: it is capped, and its limit is still reached.`,
    reason: problem,
    whatToDo,
  }
}
