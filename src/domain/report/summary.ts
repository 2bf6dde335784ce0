/** The job summary of one iteration (a sample: docs/samples/demo-summary-iteration-1.md). Pure: returns Markdown. */
import type { CheckResult } from '../state.js'
import type { Annotation } from './annotations.js'
import { code, codeBlock, escapeHtml, inlineText, link } from './escape.js'
import {
  checkVerdictLabel,
  formatDuration,
  formatLocation,
  formatUsd,
  isFailing,
  pullRequestWaitingSection,
  verdictLabel,
  verdictLine,
} from './format.js'
import { fitToLimit, REPORT_CAPS, SUMMARY_MAX_BYTES, trimOutput, utf8Length } from './limits.js'
import { renderStageDiagram } from './mermaid.js'
import type { ReportModel } from './model.js'

export interface RenderOptions {
  /** Applied to every piece of untrusted text before it is escaped (the secret redactor). */
  redact?: (text: string) => string
  /** Locations that did not fit in the step's annotations (see `selectAnnotations`). */
  overflowLocations?: readonly Annotation[]
  /** Size limit; defaults to GitHub's (1 MiB for the summary, 65,536 characters for a comment). */
  limit?: number
}

const STATUS_ICONS: Record<ReportModel['status'], string> = {
  running: '🔁',
  waiting: '⏸️',
  blocked: '🚫',
  complete: '✅',
  capped: '🛑',
  aborted: '⏹️',
}

/** The status icon of a loop. */
export function statusIcon(status: ReportModel['status']): string {
  return STATUS_ICONS[status]
}

/** Where a reader finds what a report leaves out. */
export function auditTrailPointer(model: ReportModel): string {
  return model.links.auditTrail ? `the [audit trail](${model.links.auditTrail})` : 'the audit trail artifact'
}

/** The stage with the capability it works on, e.g. `VERIFY (capability 2 of 3: \`retry\`)`. */
export function stageLine(model: ReportModel): string {
  const { capabilities } = model
  if (capabilities.total === 0 || capabilities.current === null) return model.stage
  return `${model.stage} (capability ${Math.min(capabilities.completed + 1, capabilities.total)} of ${capabilities.total}: ${code(capabilities.current)})`
}

/** The iteration table: check, kind, verdict, time, pattern, confidence, strategy. */
export function renderCheckTable(checks: readonly CheckResult[], redact: (text: string) => string): string {
  if (checks.length === 0) return '_No checks ran in this iteration._'
  const rows = checks.slice(0, REPORT_CAPS.tableRows).map((check) => {
    const verdict =
      check.verdict === 'skipped' && check.skippedReason
        ? `${verdictLabel(check.verdict)} (${inlineText(redact(check.skippedReason), 120)})`
        : checkVerdictLabel(check)
    return [
      code(check.name),
      check.kind,
      verdict,
      check.verdict === 'skipped' ? '' : formatDuration(check.durationMs),
      check.pattern ? code(check.pattern) : '',
      check.confidence === null ? '' : check.confidence.toFixed(2),
      check.strategy ? code(check.strategy) : '',
    ]
  })
  const lines = [
    '| check | kind | verdict | time | pattern | confidence | strategy |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ]
  if (checks.length > rows.length) {
    lines.push('', `_… and ${checks.length - rows.length} more checks; every one is in the audit trail._`)
  }
  return lines.join('\n')
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
    sections.push(`_… and ${failing.length - shown.length} more failing checks; their output is in ${where}._`)
  }
  return sections.join('\n\n')
}

/** Budget: iterations, minutes, cost and tokens used, each of its limit where one is set. */
export function budgetLine(model: ReportModel): string {
  const { budget } = model
  const parts = [`${model.iteration} of ${model.maxIterations} iterations`]
  const minutes = Math.round(budget.minutesUsed)
  parts.push(budget.minutesLimit !== undefined ? `${minutes} of ${budget.minutesLimit} minutes` : `${minutes} minutes`)
  if (budget.costUsd > 0 || budget.costLimit !== undefined) {
    parts.push(
      budget.costLimit !== undefined
        ? `${formatUsd(budget.costUsd)} of ${formatUsd(budget.costLimit)}`
        : formatUsd(budget.costUsd),
    )
  }
  if (budget.tokens > 0 || budget.tokensLimit !== undefined) {
    parts.push(
      budget.tokensLimit !== undefined ? `${budget.tokens} of ${budget.tokensLimit} tokens` : `${budget.tokens} tokens`,
    )
  }
  return parts.join(' · ')
}

/** Links to the audit trail, the pull request, the issue, the branch and the run. */
export function linksLine(model: ReportModel): string {
  const { links } = model
  const parts: string[] = []
  if (links.auditTrail) parts.push(link('audit trail', links.auditTrail))
  if (links.pullRequest) parts.push(link(`pull request #${links.pullRequest.number}`, links.pullRequest.url))
  if (links.issue) parts.push(link(`issue #${links.issue.number}`, links.issue.url))
  if (links.branch) parts.push(links.branch.url ? link(links.branch.name, links.branch.url) : code(links.branch.name))
  if (links.run) parts.push(link('this run', links.run))
  return parts.join(' · ')
}

/** The paths the last checkpoint did not commit, each with why and what to do. */
export function refusedSection(model: ReportModel, redact: (text: string) => string): string {
  const refused = model.refusedFromCommit
  if (refused.length === 0) return ''
  const shown = refused
    .slice(0, 10)
    .map((r) => `- ${code(redact(r.path))}: ${inlineText(redact(r.reason), 200)}; ${inlineText(redact(r.remedy), 200)}`)
  if (refused.length > shown.length) shown.push(`- … and ${refused.length - shown.length} more (see the audit trail)`)
  return [`**Not committed** (still in the work tree, never pushed):`, ...shown].join('\n')
}

/** Gates and their states, e.g. `security ✅ approved by @alice · deploy ⏳ pending`. */
export function gatesLine(model: ReportModel, redact: (text: string) => string): string {
  const entries = Object.entries(model.gates).slice(0, REPORT_CAPS.gates)
  if (entries.length === 0) return ''
  return entries
    .map(([name, gate]) => {
      const icon = gate.status === 'approved' ? '✅' : gate.status === 'rejected' ? '⛔' : '⏳'
      const by = gate.decidedBy ? ` by ${inlineText(redact(gate.decidedBy), 60)}` : ''
      return `${code(name)} ${icon} ${gate.status}${by}`
    })
    .join(' · ')
}

function renderOverflow(overflow: readonly Annotation[], redact: (text: string) => string): string {
  if (overflow.length === 0) return ''
  const shown = overflow.slice(0, REPORT_CAPS.overflowLocations)
  const items = shown.map(
    (a) => `- ${code(formatLocation(a))} ${inlineText(redact(a.title), 80)}: ${inlineText(redact(a.message), 200)}`,
  )
  if (overflow.length > shown.length) items.push(`- … and ${overflow.length - shown.length} more`)
  return `<details><summary>${overflow.length} more location${overflow.length === 1 ? '' : 's'} (GitHub shows 10 annotations per step)</summary>\n\n${items.join('\n')}\n\n</details>`
}

/**
 * The job summary: header with loop id and iteration N of M, stage, verdict, next action, the Mermaid
 * stage diagram, the iteration table, a collapsible trimmed output per failing check, locations past
 * the annotation limit, the budget line and links. Always under `options.limit` bytes (1 MiB).
 */
export function renderSummary(model: ReportModel, options: RenderOptions = {}): string {
  const redact = options.redact ?? ((text: string) => text)
  const limit = options.limit ?? SUMMARY_MAX_BYTES
  const header = [
    `## ${statusIcon(model.status)} loop-controller · ${code(model.loopId)} · iteration ${model.iteration} of ${model.maxIterations}`,
    '',
    `**Stage:** ${stageLine(model)} · **Status:** ${model.status} · **Verdict:** ${verdictLine(model.checks)} ·`,
    `**Next:** ${inlineText(redact(model.nextAction), 1000)}`,
  ]
  if (model.statusReason && model.status !== 'running') {
    header.push('', `**Why:** ${inlineText(redact(model.statusReason), 1000)}`)
  }
  const gates = gatesLine(model, redact)
  const fixed = [
    header.join('\n'),
    renderStageDiagram(model.pipeline, model.stage, model.status),
    renderCheckTable(model.checks, redact),
    gates ? `**Gates:** ${gates}` : '',
    pullRequestWaitingSection(model),
    refusedSection(model, redact),
  ]
  const footer = [
    renderOverflow(options.overflowLocations ?? [], redact),
    metricsLine(model),
    [`Budget: ${budgetLine(model)}`, linksLine(model)].filter(Boolean).join(' · '),
  ]
  const render = (outputBudget: number): string =>
    `${[...fixed, renderFailureOutputs(model, outputBudget, redact), ...footer].filter(Boolean).join('\n\n')}\n`
  return fitToLimit(render, utf8Length, limit, 60_000, auditTrailPointer(model))
}

/** Metrics: what the loop spent and spared, and how each pattern's attempts went. */
export function metricsLine(model: ReportModel): string {
  const m = model.metrics
  if (!m) return ''
  const counts = [
    `${m.workCalls} agent call${m.workCalls === 1 ? '' : 's'}`,
    `${m.autoFixes} auto-fix${m.autoFixes === 1 ? '' : 'es'}`,
    `${m.flakes} flak${m.flakes === 1 ? 'e' : 'es'}`,
    `${m.regressions} regression${m.regressions === 1 ? '' : 's'}`,
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
