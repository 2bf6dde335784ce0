/** The job summary of one iteration (every end state: test/golden/*-summary.md). Pure: returns Markdown. */
import type { Annotation } from './annotations.js'
import { code, codeBlock, escapeHtml, inlineText, markdownText } from './escape.js'
import {
  abortedBeforeStart,
  formatLocation,
  isFailing,
  plural,
  pullRequestWaitingSection,
  verdictLine,
} from './format.js'
import { fitToLimit, REPORT_CAPS, SUMMARY_MAX_BYTES, trimOutput, utf8Length } from './limits.js'
import type { ReportModel } from './model.js'
import {
  auditTrailPointer,
  checkTable,
  gatesLine,
  handoffSection,
  headingText,
  linksLine,
  refusedSection,
  spentLine,
  stageDiagram,
  stageLine,
  updatedLine,
  whyAndNext,
} from './sections.js'
import { buildReportView } from './view.js'

export interface RenderOptions {
  /** Applied to every piece of untrusted text before it is escaped (the secret redactor). */
  redact?: (text: string) => string
  /** Locations that did not fit in the step's annotations (see `selectAnnotations`). */
  overflowLocations?: readonly Annotation[]
  /** Size limit; defaults to GitHub's (1 MiB for the summary, 65,536 characters for a comment). */
  limit?: number
  /** The issue or pull request the comment is posted on: it does not link to itself. */
  postedOn?: number
}

/** One collapsible section per failing check with its trimmed output. */
export function renderFailureOutputs(
  model: ReportModel,
  outputBudget: number,
  redact: (text: string) => string,
): string {
  const failing = model.checks.filter(isFailing)
  if (failing.length === 0) return ''
  const where = auditTrailPointer(model)
  const shown = failing.slice(0, REPORT_CAPS.outputSections)
  const sections = shown.map((check) => {
    const locations = check.locations.slice(0, 3).map((l) => formatLocation(l))
    const more = check.locations.length > 3 ? `, +${check.locations.length - 3} more` : ''
    const regression = check.regression ? ', a regression (passed at the baseline)' : ''
    const summary = `${check.name}: ${check.verdict}${regression}${locations.length > 0 ? ` (${locations.join(', ')}${more})` : ''}`
    const raw = model.outputs[check.name] ?? check.excerpt
    const body =
      outputBudget === 0
        ? `_Output left out to fit the size limit; it is in ${where}._`
        : codeBlock(trimOutput(redact(raw), outputBudget, 'the audit trail') || '(no output)')
    return `<details><summary>${escapeHtml(redact(summary).slice(0, 500))}</summary>\n\n${body}\n\n</details>`
  })
  if (failing.length > shown.length) {
    const rest = failing.length - shown.length
    sections.push(
      `_… and ${plural(rest, 'more failing check')}; ${rest === 1 ? 'its' : 'their'} output is in ${where}._`,
    )
  }
  return sections.join('\n\n')
}

function renderOverflow(overflow: readonly Annotation[], redact: (text: string) => string): string {
  if (overflow.length === 0) return ''
  const shown = overflow.slice(0, REPORT_CAPS.overflowLocations)
  const items = shown.map(
    (a) => `- ${code(formatLocation(a))} ${inlineText(redact(a.title), 80)}: ${inlineText(redact(a.message), 200)}`,
  )
  if (overflow.length > shown.length) items.push(`- … and ${overflow.length - shown.length} more`)
  return `<details><summary>${plural(overflow.length, 'more location')} (GitHub shows 10 annotations per step)</summary>\n\n${items.join('\n')}\n\n</details>`
}

/**
 * The job summary: the heading (state, loop id, iteration N of M), why and next, the BLOCKED handoff,
 * the stage diagram, the verdict and stage, the check table, a collapsible trimmed output per failing
 * check, locations past the annotation limit, metrics, what was spent, links and when. Always under
 * `options.limit` bytes (1 MiB).
 */
export function renderSummary(model: ReportModel, options: RenderOptions = {}): string {
  const redact = options.redact ?? ((text: string) => text)
  const limit = options.limit ?? SUMMARY_MAX_BYTES
  const view = buildReportView(model)
  const head = [`## ${headingText(model, view)}`, whyAndNext(view, redact)]
  // Aborted while queued: no iteration ran, so no verdict, no checks and no metrics to show.
  const notStarted = abortedBeforeStart(model)
  const body = notStarted
    ? [stageDiagram(model, view), NOT_STARTED_LINE, gatesLine(model, redact), refusedSection(model, redact)]
    : [
        stageDiagram(model, view),
        `${verdictLabel(model)} ${verdictLine(model.checks)}${model.checksRanEarlier ? ' (in an earlier job of this iteration)' : ''} · **Stage:** ${stageLine(model)}${
          view.state === 'running' && model.nextAction
            ? ` · **The loop next:** ${markdownText(redact(model.nextAction), 600)}`
            : ''
        }`,
        checkTable(model, redact),
        gatesLine(model, redact),
        pullRequestWaitingSection(model),
        refusedSection(model, redact),
      ]
  const footer = [
    renderOverflow(options.overflowLocations ?? [], redact),
    notStarted ? '' : metricsLine(model),
    [notStarted ? '' : spentLine(model), linksLine(model)].filter(Boolean).join(' · '),
    updatedLine(view),
  ]
  // The handoff's output is the failure outputs' own: the summary shows it once, there.
  const render = (outputBudget: number): string =>
    `${[
      ...head,
      view.state === 'blocked' ? handoffSection(model, view, redact, 0) : '',
      ...body,
      renderFailureOutputs(model, outputBudget, redact),
      ...footer,
    ]
      .filter(Boolean)
      .join('\n\n')}\n`
  return fitToLimit(render, utf8Length, limit, 60_000, auditTrailPointer(model))
}

/** Said instead of the verdict, the check table and the metrics of a loop aborted before its first iteration. */
const NOT_STARTED_LINE = '**Aborted before it started:** no iteration ran, so no check ran and no agent was called.'

/** What the verdict is of: this iteration's checks, or (a baseline round) the checks before any work. */
function verdictLabel(model: ReportModel): string {
  return model.baselineRound ? '**Baseline** (the checks at the base, before any work):' : '**Verdict:**'
}

/** Metrics: what the loop spent and spared, and how each pattern's attempts went. */
export function metricsLine(model: ReportModel): string {
  const m = model.metrics
  if (!m) return ''
  const counts = [
    plural(m.workCalls, 'agent call'),
    plural(m.autoFixes, 'auto-fix', 'auto-fixes'),
    plural(m.flakes, 'flake'),
    plural(m.regressions, 'regression'),
    `escalation rate ${Math.round(m.aggregate.escalationRate * 100)}%`,
  ]
  const patterns = Object.entries(m.aggregate.successRateByPattern)
    .slice(0, 8)
    .map(
      ([id, rate]) =>
        `${code(id)} ${Math.round(rate * 100)}% in ${(m.aggregate.averageAttemptsByPattern[id] ?? 0).toFixed(1)} attempts`,
    )
  return `**Metrics:** ${counts.join(' · ')}${patterns.length > 0 ? ` · success by pattern: ${patterns.join(', ')}` : ''}`
}
