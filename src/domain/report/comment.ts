/**
 * The sticky comment of a loop on its issue or pull request, found again by its hidden marker and
 * updated in place. BLOCKED carries the handoff. Pure: returns Markdown.
 */

import { CAP_WITHOUT_REASON } from '../caps.js'
import { Labels, loopBranch, stickyCommentMarker } from '../loop-names.js'
import { code, codeBlock, escapeHtml, inlineText } from './escape.js'
import {
  checkVerdictLabel,
  formatDuration,
  formatLocation,
  isFailing,
  pullRequestWaitingSection,
  verdictLine,
} from './format.js'
import { COMMENT_MAX_CHARS, fitToLimit, REPORT_CAPS, trimOutput } from './limits.js'
import type { ReportModel } from './model.js'
import {
  auditTrailPointer,
  budgetLine,
  gatesLine,
  linksLine,
  type RenderOptions,
  refusedSection,
  stageLine,
  statusIcon,
} from './summary.js'

type Redact = (text: string) => string

function title(model: ReportModel): string {
  const id = code(model.loopId)
  switch (model.status) {
    case 'blocked':
      return `### 🚫 BLOCKED: ${id} needs a human`
    case 'complete':
      return `### ✅ COMPLETE: ${id} after ${model.iteration} iteration${model.iteration === 1 ? '' : 's'}`
    case 'capped':
      return `### 🛑 Stopped at the cap: ${id} ran ${model.iteration} of ${model.maxIterations} iterations`
    case 'aborted':
      return `### ⏹️ Aborted: ${id}`
    case 'waiting':
      return `### ⏸️ Waiting: ${id}`
    default:
      return `### ${statusIcon(model.status)} ${id} · iteration ${model.iteration} of ${model.maxIterations}`
  }
}

function compactTable(model: ReportModel): string {
  if (model.checks.length === 0) return ''
  const rows = model.checks
    .slice(0, REPORT_CAPS.tableRows)
    .map((check) =>
      [
        code(check.name),
        checkVerdictLabel(check),
        check.verdict === 'skipped' ? '' : formatDuration(check.durationMs),
        check.pattern ? code(check.pattern) : '',
        check.strategy ? code(check.strategy) : '',
      ].join(' | '),
    )
  const more = model.checks.length > rows.length ? `\n\n_… and ${model.checks.length - rows.length} more checks._` : ''
  return `| check | verdict | time | pattern | strategy |\n| --- | --- | --- | --- | --- |\n${rows.map((r) => `| ${r} |`).join('\n')}${more}`
}

/** `types` · `src/retry.ts:41` · Type 'string' is not assignable to type 'number'. */
function lastFailureLine(model: ReportModel, redact: Redact): string | null {
  const failure = model.failures.current
  const failingCheck = failure
    ? model.checks.find((check) => check.name === failure.check)
    : model.checks.find(isFailing)
  if (!failure && !failingCheck) return null
  const checkName = failure?.check ?? failingCheck?.name ?? ''
  const location = failingCheck?.locations[0]
  const message = location?.message ?? failure?.error ?? failingCheck?.excerpt ?? ''
  const firstLine = message.split('\n').find((line) => line.trim() !== '') ?? ''
  const parts = [code(checkName)]
  if (location) parts.push(code(formatLocation(location)))
  const pattern = failure?.pattern ?? failingCheck?.pattern
  if (pattern) parts.push(code(pattern))
  if (firstLine) parts.push(inlineText(redact(firstLine), 300))
  return parts.join(' · ')
}

function defaultHumanAction(model: ReportModel): string {
  const pattern = model.failures.current?.pattern
  if (pattern === 'merge-conflict') return `resolve the merge conflict on \`${loopBranch(model.loopId)}\`.`
  if (pattern === 'permission-error') return 'grant the missing permission named in the last failure.'
  if (pattern === 'security-finding') return 'review the security finding and decide whether the change may proceed.'
  if (pattern === 'dependency-conflict') return 'settle the dependency versions the loop could not reconcile.'
  return 'read the last failure and what was tried, then fix the cause or clarify the goal.'
}

function handoffSection(model: ReportModel, redact: Redact, outputBudget: number): string {
  const handoff = model.handoff
  const lines: string[] = []
  lines.push(
    `**Reason:** ${inlineText(redact(handoff?.reason || model.statusReason || 'the loop needs a person'), 600)}`,
  )
  const last = lastFailureLine(model, redact)
  if (last) lines.push(`**Last failure:** ${last}`)
  const { failures } = model
  lines.push(
    `**Attempts:** ${failures.consecutive} of ${failures.perFailureLimit} for this failure · ${failures.total} of ${failures.totalLimit} failures in total`,
  )
  const tried = failures.tried.slice(-REPORT_CAPS.triedEntries)
  if (tried.length > 0) {
    const skipped = failures.tried.length - tried.length
    lines.push('', '**What was tried**')
    if (skipped > 0) lines.push(`_(${skipped} earlier attempts are in the audit trail)_`)
    tried.forEach((entry, index) => {
      lines.push(
        `${index + 1}. iteration ${entry.iteration} · ${code(entry.strategy)} · ${inlineText(redact(entry.outcome), 300)}`,
      )
    })
  }
  lines.push(
    '',
    `**Human action needed:** ${inlineText(redact(handoff?.humanAction || defaultHumanAction(model)), 600)}`,
  )
  lines.push(
    '',
    `**To resume:** push a fix to \`${loopBranch(model.loopId)}\` or clarify in the issue, then comment \`/loop resume\`. To give up, comment \`/loop abort\`.`,
  )
  if (handoff?.suggestion) lines.push(`Suggested next step: ${inlineText(redact(handoff.suggestion), 800)}`)
  const failing = model.checks.find((check) => check.name === failures.current?.check) ?? model.checks.find(isFailing)
  if (failing && outputBudget > 0) {
    const output = trimOutput(redact(model.outputs[failing.name] ?? failing.excerpt), outputBudget)
    if (output.trim() !== '') {
      lines.push(
        '',
        `<details><summary>Output of ${escapeHtml(failing.name)}</summary>\n\n${codeBlock(output)}\n\n</details>`,
      )
    }
  }
  return lines.join('\n')
}

function waitingSection(model: ReportModel): string {
  const pending = Object.entries(model.gates).filter(([, gate]) => gate.status === 'pending')
  const gate = model.next?.kind === 'WAIT_FOR_APPROVAL' ? model.next.gate : pending[0]?.[0]
  if (!gate) return ''
  return [
    `**Gate ${code(gate)} needs approval.** Any of these, from someone with write access, approves it:`,
    `- comment \`/loop approve ${gate}\``,
    `- add the label \`${Labels.ApprovedPrefix}${gate}\``,
    '- approve the pull request in a review',
  ].join('\n')
}

/**
 * The sticky comment: the hidden marker `<!-- loop-controller:<loopId> -->` first, a status line, the
 * check table, the handoff when BLOCKED, how to approve when a gate waits, budget and links. Always
 * under `options.limit` characters (65,536).
 */
export function renderComment(model: ReportModel, options: RenderOptions = {}): string {
  const redact = options.redact ?? ((text: string) => text)
  const limit = options.limit ?? COMMENT_MAX_CHARS
  const render = (outputBudget: number): string => {
    const parts = [
      stickyCommentMarker(model.loopId),
      title(model),
      `**Stage:** ${stageLine(model)} · **Verdict:** ${verdictLine(model.checks)} · **Next:** ${inlineText(redact(model.nextAction), 600)}`,
    ]
    if (model.status === 'blocked') parts.push(handoffSection(model, redact, outputBudget))
    else if (model.status !== 'running' && model.statusReason) {
      parts.push(`**Why:** ${inlineText(redact(model.statusReason), 600)}`)
    }
    if (model.status === 'waiting') parts.push(waitingSection(model))
    parts.push(pullRequestWaitingSection(model))
    if (model.status === 'capped') {
      parts.push(
        `**To continue:** raise \`max-iterations\` (above ${CAP_WITHOUT_REASON} it needs a \`cap-reason\`) and comment \`/loop resume\`.`,
      )
    }
    parts.push(compactTable(model))
    const gates = gatesLine(model, redact)
    if (gates) parts.push(`**Gates:** ${gates}`)
    parts.push(refusedSection(model, redact))
    parts.push([budgetLine(model), linksLine(model)].filter(Boolean).join(' · '))
    return `${parts.filter(Boolean).join('\n\n')}\n`
  }
  return fitToLimit(render, (text) => text.length, limit, 6_000, auditTrailPointer(model))
}
