/**
 * The sticky comment of a loop on its issue or pull request, found again by its hidden marker and
 * updated in place: a living progress report. Pure: returns Markdown.
 */
import { stickyCommentMarker } from '../loop-names.js'
import { abortedBeforeStart, isFailing, pullRequestWaitingSection, verdictLine } from './format.js'
import { COMMENT_MAX_CHARS, fitToLimit } from './limits.js'
import type { ReportModel } from './model.js'
import {
  auditTrailPointer,
  checkTable,
  failureLine,
  gatesLine,
  handoffSection,
  headingText,
  iterationChecklist,
  linksLine,
  refusedSection,
  spentLine,
  stageDiagram,
  updatedLine,
  whyAndNext,
} from './sections.js'
import type { RenderOptions } from './summary.js'
import { buildReportView, type ReportView } from './view.js'

/** Outside BLOCKED (whose handoff says it), the failure of this iteration in one line, if it failed. */
function failingNow(model: ReportModel, view: ReportView, redact: (text: string) => string): string {
  if (!model.checks.some(isFailing)) return ''
  const line = failureLine(view, redact)
  return line ? `**Failing:** ${line}` : ''
}

/**
 * The sticky comment: the hidden marker `<!-- loop-controller:<loopId> -->` first, the heading, why
 * and the next step for a person in one line, the handoff when BLOCKED, the stage diagram with where
 * the loop stands, the checklist of iterations, this iteration's checks (folded), gates, what was
 * spent, links and when it was updated. Always under `options.limit` characters (65,536).
 */
export function renderComment(model: ReportModel, options: RenderOptions = {}): string {
  const redact = options.redact ?? ((text: string) => text)
  const limit = options.limit ?? COMMENT_MAX_CHARS
  const view = buildReportView(model)
  const render = (outputBudget: number): string => {
    const table = checkTable(model, redact)
    const parts = [
      stickyCommentMarker(model.loopId),
      `### ${headingText(model, view)}`,
      whyAndNext(view, redact),
      view.state === 'blocked' ? handoffSection(model, view, redact, outputBudget) : failingNow(model, view, redact),
      pullRequestWaitingSection(model),
      stageDiagram(model, view),
      iterationChecklist(model, view, redact),
      model.checks.length > 0
        ? `<details><summary>${checksHeading(model)}: ${verdictLine(model.checks)}</summary>\n\n${table}\n\n</details>`
        : '',
      gatesLine(model, redact),
      refusedSection(model, redact),
      // Aborted while queued, nothing was spent: `0 ms` would only read as a measurement.
      [abortedBeforeStart(model) ? '' : spentLine(model), linksLine(model, options.postedOn)]
        .filter(Boolean)
        .join(' · '),
      updatedLine(view),
    ]
    return `${parts.filter(Boolean).join('\n\n')}\n`
  }
  return fitToLimit(render, (text) => text.length, limit, 6_000, auditTrailPointer(model))
}

/** Whose checks the comment folds away: this iteration's, or a baseline round's (before any work). */
function checksHeading(model: ReportModel): string {
  return model.baselineRound
    ? `Checks at the baseline, before iteration ${model.baselineRound.iteration}`
    : `Checks of iteration ${model.iteration}`
}
