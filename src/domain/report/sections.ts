/**
 * The parts the job summary and the sticky comment share, each rendered from the report view so both
 * say a fact the same way: the heading, why and next, the BLOCKED handoff, the check table, the
 * iteration checklist, gates, refused paths, what was spent, links and when. Pure: returns Markdown.
 */
import { strategyTaken } from '../attempt-strategy.js'
import { loopBranch } from '../loop-names.js'
import type { Strategy } from '../stages.js'
import type { CheckResult } from '../state.js'
import { code, codeBlock, escapeHtml, inlineText, link, markdownText } from './escape.js'
import {
  checkVerdictLabel,
  formatCount,
  formatDuration,
  formatLocation,
  formatUsd,
  plural,
  verdictLabel,
} from './format.js'
import { REPORT_CAPS, trimOutput } from './limits.js'
import { renderStageDiagram } from './mermaid.js'
import type { ReportModel } from './model.js'
import { iterationLine, pendingGate, type ReportView } from './view.js'

export type Redact = (text: string) => string

/** `🚫 BLOCKED: needs a person · \`stuck\` · iteration 3 of 8`; COMPLETE says how many iterations it took. */
export function headingText(model: ReportModel, view: ReportView): string {
  const progress = view.state === 'complete' ? `after ${plural(model.iteration, 'iteration')}` : view.progress
  return `${view.icon} ${markdownText(view.title)} · ${code(model.loopId)} · ${progress}`
}

/** **Why** (when stopped or waiting) and **Next** (always): each said once. */
export function whyAndNext(view: ReportView, redact: Redact): string {
  const lines: string[] = []
  if (view.why) lines.push(`**Why:** ${markdownText(redact(view.why), 1000)}.`)
  lines.push(`**Next:** ${markdownText(capitalise(redact(view.nextStep)), 1000)}`)
  return lines.join('  \n')
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
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

/** The diagram of where the loop stands. */
export function stageDiagram(model: ReportModel, view: ReportView): string {
  return renderStageDiagram({
    pipeline: model.pipeline,
    stage: model.stage,
    status: model.status,
    iteration: model.iteration,
    maxIterations: model.maxIterations,
    verdict: view.iterations.find((i) => i.iteration === model.iteration)?.verdict ?? 'none',
    gate: view.state === 'waiting' ? pendingGate(model) : null,
  })
}

/** The default ask of a person when the handoff names none, by the failure's pattern. */
function defaultHumanAction(model: ReportModel): string {
  const pattern = model.failures.current?.pattern
  if (pattern === 'merge-conflict') return `resolve the merge conflict on \`${loopBranch(model.loopId)}\`.`
  if (pattern === 'permission-error') return 'grant the missing permission named in the failure.'
  if (pattern === 'security-finding') return 'review the security finding and decide whether the change may proceed.'
  if (pattern === 'dependency-conflict') return 'settle the dependency versions the loop could not reconcile.'
  return 'read the failure and what was tried, then fix the cause or clarify the goal.'
}

/** `\`types\` · \`src/retry.ts:41:7\` · \`type-error\` · Type 'string' is not assignable…` */
export function failureLine(view: ReportView, redact: Redact): string | null {
  const failure = view.failure
  if (!failure) return null
  const parts = [code(failure.check)]
  if (failure.location) parts.push(code(redact(formatLocation(failure.location))))
  if (failure.pattern) parts.push(code(failure.pattern))
  if (failure.firstLine) parts.push(inlineText(redact(failure.firstLine), 300))
  return parts.join(' · ')
}

/**
 * The BLOCKED handoff: the ask of a person, the failure once, its attempts (one count, with the fixes
 * that followed the first attempt listed under it), where to look, and (when `outputBudget` > 0) the
 * failing check's output.
 */
export function handoffSection(model: ReportModel, view: ReportView, redact: Redact, outputBudget: number): string {
  const ask = model.handoff?.humanAction || defaultHumanAction(model)
  const head = [`**Human action needed:** ${markdownText(redact(ask), 600)}`]
  const failing = failureLine(view, redact)
  if (failing) head.push(`**Failing:** ${failing}`)
  const blocks = [head.join('  \n')]
  const failure = view.failure
  if (failure) {
    const { failures } = model
    const fixes = failure.tried.length
    const after = fixes > 0 ? `: the first, then ${plural(fixes, 'fix', 'fixes')}` : ''
    const tried = [
      `**What was tried** · ${failure.attempts} of ${failure.attemptsLimit} attempts on this failure${after} · ${failures.total} of ${failures.totalLimit} failures allowed in the loop`,
    ]
    const shown = failure.tried.slice(-REPORT_CAPS.triedEntries)
    if (shown.length < failure.tried.length) {
      const earlier = failure.tried.length - shown.length
      tried.push(`_(${plural(earlier, 'earlier attempt')} ${earlier === 1 ? 'is' : 'are'} in the audit trail)_`)
    }
    blocks.push(tried.join('  \n'))
    if (shown.length > 0) {
      blocks.push(
        shown
          .map(
            (entry, index) =>
              `${index + 1}. iteration ${entry.iteration} · ${code(entry.strategy)} · ${inlineText(redact(entry.outcome), 300)}`,
          )
          .join('\n'),
      )
    }
  }
  if (model.handoff?.suggestion)
    blocks.push(`**Where to look:** ${markdownText(redact(model.handoff.suggestion), 800)}`)
  const check = failure && outputBudget > 0 ? model.checks.find((c) => c.name === failure.check) : undefined
  if (check) {
    const output = trimOutput(redact(model.outputs[check.name] ?? check.excerpt), outputBudget)
    if (output.trim() !== '') {
      blocks.push(
        `<details><summary>Output of ${escapeHtml(redact(check.name))}</summary>\n\n${codeBlock(output)}\n\n</details>`,
      )
    }
  }
  return blocks.join('\n\n')
}

/**
 * What the classifier made of a failing check and what the loop takes for it:
 * `\`type-error\` 0.86 → \`context_expand\``, the pattern's own strategy labelled when the retry rules
 * took another (`→ a person (pattern's \`analyze_then_fix\`)`); empty when nothing.
 */
function analysisCell(check: CheckResult, taken: Strategy | null): string {
  const parts: string[] = []
  if (check.pattern)
    parts.push(
      check.confidence === null ? code(check.pattern) : `${code(check.pattern)} ${check.confidence.toFixed(2)}`,
    )
  if (taken) {
    const patterns = check.strategy && check.strategy !== taken ? ` (pattern's ${code(check.strategy)})` : ''
    parts.push(`→ ${taken === 'escalate' ? 'a person' : code(taken)}${patterns}`)
  }
  return parts.join(' ')
}

/** The iteration's checks: check, verdict, time and (when any check has one) the analysis. */
export function checkTable(
  model: Pick<ReportModel, 'checks' | 'next' | 'status' | 'failures'>,
  redact: Redact,
): string {
  const { checks } = model
  if (checks.length === 0) return '_No checks ran in this iteration._'
  const shown = checks.slice(0, REPORT_CAPS.tableRows)
  const loop = { status: model.status, current: model.failures.current }
  const analysis = new Map(shown.map((check) => [check, analysisCell(check, strategyTaken(check, loop, model.next))]))
  const withAnalysis = shown.some((check) => analysis.get(check) !== '')
  const rows = shown.map((check) => {
    const verdict =
      check.verdict === 'skipped' && check.skippedReason
        ? `${verdictLabel(check.verdict)} (${inlineText(redact(check.skippedReason), 120)})`
        : checkVerdictLabel(check)
    const cells = [code(check.name), verdict, check.verdict === 'skipped' ? '' : formatDuration(check.durationMs)]
    if (withAnalysis) cells.push(analysis.get(check) ?? '')
    return `| ${cells.join(' | ')} |`
  })
  const header = withAnalysis
    ? '| check | verdict | time | analysis |\n| --- | --- | --- | --- |'
    : '| check | verdict | time |\n| --- | --- | --- |'
  const more =
    checks.length > shown.length
      ? `\n\n_… and ${plural(checks.length - shown.length, 'more check')}; every one is in the audit trail._`
      : ''
  return `${header}\n${rows.join('\n')}${more}`
}

/** The progress checklist: one ticked line per iteration run, and the next one open while the loop runs. */
export function iterationChecklist(model: ReportModel, view: ReportView, redact: Redact): string {
  if (view.iterations.length === 0) return ''
  const lines = ['**Iterations**']
  if (view.earlierIterations > 0)
    lines.push(`_(${plural(view.earlierIterations, 'earlier iteration')} in the audit trail)_`)
  for (const iteration of view.iterations) lines.push(`- [x] ${markdownText(iterationLine(iteration), 600)}`)
  if (view.state === 'running') {
    lines.push(`- [ ] iteration ${model.iteration + 1}: ${markdownText(redact(model.nextAction), 300)}`)
  }
  return lines.join('\n')
}

/** What the loop spent: time, cost and tokens, each of its limit where one is set (iterations are in the heading). */
export function spentLine(model: ReportModel): string {
  const { budget } = model
  const time = formatDuration(budget.minutesUsed * 60_000) || '0 s'
  const parts = [budget.minutesLimit !== undefined ? `${time} of ${budget.minutesLimit} min` : time]
  if (budget.costUsd > 0 || budget.costLimit !== undefined) {
    parts.push(
      budget.costLimit !== undefined
        ? `${formatUsd(budget.costUsd)} of ${formatUsd(budget.costLimit)}`
        : formatUsd(budget.costUsd),
    )
  }
  if (budget.tokens > 0 || budget.tokensLimit !== undefined) {
    parts.push(
      budget.tokensLimit !== undefined
        ? `${formatCount(budget.tokens)} of ${formatCount(budget.tokensLimit)} tokens`
        : `${formatCount(budget.tokens)} token${budget.tokens === 1 ? '' : 's'}`,
    )
  }
  return `**Spent:** ${parts.join(' · ')}`
}

/** Links to the audit trail, the pull request (not on the pull request itself), the issue, the branch, the run, a fan-out's failed legs' logs and the dashboard. */
export function linksLine(model: ReportModel, postedOn?: number): string {
  const { links } = model
  const parts: string[] = []
  if (links.auditTrail) parts.push(link('audit trail', links.auditTrail))
  if (links.pullRequest && links.pullRequest.number !== postedOn) {
    parts.push(link(`pull request #${links.pullRequest.number}`, links.pullRequest.url))
  }
  if (links.issue && links.issue.number !== postedOn) parts.push(link(`issue #${links.issue.number}`, links.issue.url))
  if (links.branch) parts.push(links.branch.url ? link(links.branch.name, links.branch.url) : code(links.branch.name))
  if (links.run) parts.push(link('this run', links.run))
  const legs = (links.failedLegs ?? []).slice(0, REPORT_CAPS.failedLegLinks)
  if (legs.length > 0) {
    const more = (links.failedLegs?.length ?? 0) - legs.length
    const listed = legs.map((leg) => link(leg.name, leg.url)).join(', ')
    parts.push(
      `${legs.length === 1 && more === 0 ? 'log of the failed leg' : 'logs of the failed legs'} ${listed}${more > 0 ? ` and ${more} more in this run` : ''}`,
    )
  }
  if (links.dashboard) parts.push(`dashboard: ${link(`#${links.dashboard.number}`, links.dashboard.url)}`)
  return parts.join(' · ')
}

/** `<sub>Updated 2026-01-01 00:00 UTC</sub>`. */
export function updatedLine(view: ReportView): string {
  return view.updatedAt ? `<sub>Updated ${view.updatedAt}</sub>` : ''
}

/** The paths the last checkpoint did not commit, each with why and what to do. */
export function refusedSection(model: ReportModel, redact: Redact): string {
  const refused = model.refusedFromCommit
  if (refused.length === 0) return ''
  const shown = refused
    .slice(0, 10)
    .map((r) => `- ${code(redact(r.path))}: ${inlineText(redact(r.reason), 200)}; ${inlineText(redact(r.remedy), 200)}`)
  if (refused.length > shown.length) shown.push(`- … and ${refused.length - shown.length} more (see the audit trail)`)
  return [`**Not committed** (still in the work tree, never pushed):`, ...shown].join('\n')
}

/** Gates and their states, e.g. `security ✅ approved by @alice · deploy ⏳ pending`. */
export function gatesLine(model: ReportModel, redact: Redact): string {
  const entries = Object.entries(model.gates).slice(0, REPORT_CAPS.gates)
  if (entries.length === 0) return ''
  const gates = entries
    .map(([name, gate]) => {
      const icon = gate.status === 'approved' ? '✅' : gate.status === 'rejected' ? '⛔' : '⏳'
      const by = gate.decidedBy ? ` by ${inlineText(redact(gate.decidedBy), 60)}` : ''
      return `${code(name)} ${icon} ${gate.status}${by}`
    })
    .join(' · ')
  return `**Gates:** ${gates}`
}
