/**
 * The audit trail's markdown: `iterations/<n>.md` and `final.md`. Pure; the
 * adapter redacts and writes.
 */
import type { Analysis } from './analysis/index.js'
import { attemptStrategy, strategyLabel, strategyTaken } from './attempt-strategy.js'
import type { Decision } from './engine/index.js'
import type { CheckResult, LoopState } from './state.js'
import { type FailureForAgent, formatLocation } from './work-context.js'

const OUTPUT_LIMIT = 6000

export interface IterationRecordInput {
  state: LoopState
  decision: Decision
  next: Decision
  checks: { result: CheckResult; output: string; analysis: Analysis | null }[]
  work: { exitCode: number | null; blocked: boolean; blockedReason?: string; durationMs: number } | null
  diffStat: string
  commit: string | null
  /** In the iteration that measured the baseline: what failed, and who was to fix what. */
  baseline?: BaselineBriefing | null
}

/**
 * The baseline's failures and how the act step shared them out: the checks whose declared fix command
 * the controller ran before the agent, and the checks the agent was told of (null: the work did not run).
 */
export interface BaselineBriefing {
  failures: FailureForAgent[]
  fixedFirst: string[]
  toldAgent: string[] | null
}

export function renderIterationMarkdown(input: IterationRecordInput): string {
  const { state, decision } = input
  const lines: string[] = [
    `# Iteration ${state.iteration} of ${state.maxIterations} · \`${state.loopId}\``,
    '',
    `- **Decision:** ${decision.kind}: ${decision.reason}`,
    `- **Strategy:** ${strategyLabel(attemptStrategy(decision))}`,
    `- **Stage now:** ${state.stage} · status ${state.status}`,
    `- **Next:** ${input.next.kind}${nextStrategy(input.next)}: ${input.next.reason}`,
  ]
  if (input.work) {
    lines.push(
      `- **Work command:** exit ${input.work.exitCode ?? 'none'} in ${seconds(input.work.durationMs)}${input.work.blocked ? ` · BLOCKED: ${input.work.blockedReason ?? ''}` : ''}`,
    )
  } else {
    lines.push('- **Work command:** not run (the strategy needed no agent)')
  }
  if (input.commit) lines.push(`- **Checkpoint:** \`${input.commit}\``)
  for (const refused of (state.refusedFromCommit ?? []).filter((r) => r.iteration === state.iteration)) {
    lines.push(`- **Not committed:** \`${refused.path}\`: ${refused.reason}; ${refused.remedy}`)
  }
  if (input.baseline && input.baseline.failures.length > 0) lines.push('', ...baselineSection(input.baseline))
  lines.push('', '## Changes', '', '```text', input.diffStat.trim() || '(no changes)', '```', '')
  lines.push(
    '## Checks',
    '',
    '| check | kind | verdict | time | pattern | confidence | strategy taken |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  )
  // The strategy the loop takes once the retry rules weighed the failure, not the pattern's proposal
  // (which each check's section below names as such).
  const loop = { status: state.status, current: state.failures.current }
  for (const { result } of input.checks) {
    const taken = strategyTaken(result, loop, input.next)
    lines.push(
      `| ${result.name} | ${result.kind} | ${result.verdict}${result.skippedReason ? ` (${result.skippedReason})` : ''}${result.autoFixed ? ' (auto-fixed)' : ''} | ${seconds(result.durationMs)} | ${result.pattern ?? ''} | ${result.confidence ?? ''} | ${taken === 'escalate' ? 'escalate: a person' : (taken ?? '')} |`,
    )
  }
  lines.push('')
  for (const { result, output, analysis } of input.checks) {
    if (!analysis) continue
    lines.push(`### ${result.name}: ${analysis.pattern ?? 'no known pattern'} (${analysis.tier})`, '')
    // The result's strategy, which the regression rule may have set: the same the table shows.
    lines.push(`- signature \`${analysis.signature}\` · pattern's strategy \`${result.strategy ?? analysis.strategy}\``)
    for (const location of analysis.locations.slice(0, 10)) lines.push(`- ${formatLocation(location)}`)
    lines.push('', '```text', trimOutput(output), '```', '')
  }
  return `${lines.join('\n')}\n`
}

export function renderFinalMarkdown(input: {
  state: LoopState
  /** Why the loop ended (the ending decision's reason). */
  reason: string
  deadLetter?: string | undefined
}): string {
  const { state } = input
  const lines = [
    `# Loop \`${state.loopId}\`: ${state.status.toUpperCase()}`,
    '',
    `- **Goal:** ${state.goal}`,
    `- **Why it ended:** ${input.reason}`,
    `- **Iterations:** ${state.iteration} of ${state.maxIterations}${state.capReason ? ` (cap reason: ${state.capReason})` : ''}`,
    `- **Stage:** ${state.stage}`,
    `- **Failures:** ${state.failures.total} in total`,
    `- **Agent calls:** ${state.metrics.workCalls} · auto-fixes ${state.metrics.autoFixes} · flakes ${state.metrics.flakes} · regressions ${state.metrics.regressions}`,
    `- **Usage:** ${Math.round(state.usage.wallMs / 1000)} s · ${state.usage.tokens} tokens · $${state.usage.costUsd.toFixed(2)}`,
  ]
  if (input.deadLetter) lines.push(`- **Dead letter:** \`dead-letters/${input.deadLetter.replace(/:/g, '_')}.md\``)
  if (state.failures.current) {
    const f = state.failures.current
    lines.push(
      '',
      '## Last failure',
      '',
      `\`${f.check}\` · ${f.pattern ?? 'unclassified'} · \`${f.signature}\``,
      '',
      '```text',
      f.error,
      '```',
    )
  }
  if (state.failures.tried.length > 0) {
    lines.push('', '## What was tried', '')
    for (const [i, t] of state.failures.tried.entries())
      lines.push(`${i + 1}. iteration ${t.iteration} · \`${t.strategy}\` → ${t.outcome}`)
  }
  if (state.checkpoints.length > 0) {
    lines.push('', '## Checkpoints', '')
    for (const c of state.checkpoints)
      lines.push(`- iteration ${c.iteration}: \`${c.commit.slice(0, 12)}\` ${c.message}`)
  }
  return `${lines.join('\n')}\n`
}

function baselineSection(baseline: BaselineBriefing): string[] {
  return [
    '## Baseline',
    '',
    'Failing before any work:',
    '',
    ...baseline.failures.map((f) => `- ${describeFailure(f)}`),
    '',
    briefingLine(baseline),
    '',
  ]
}

/** A failing check in one line: its name, kind, pattern and first location. */
export function describeFailure(failure: FailureForAgent): string {
  const where = failure.locations[0] ? ` at ${formatLocation(failure.locations[0])}` : ''
  return `\`${failure.check}\` (${failure.kind}): ${failure.pattern ?? 'no known pattern'}${where}`
}

/** Which baseline failures the agent is told of and which the controller takes itself (its fix commands). */
export function briefingLine(baseline: Omit<BaselineBriefing, 'failures'>): string {
  const names = (checks: string[]) => checks.map((c) => `\`${c}\``).join(', ')
  const told =
    baseline.toldAgent === null
      ? 'none (the work did not run)'
      : baseline.toldAgent.length > 0
        ? names(baseline.toldAgent)
        : 'none'
  const fixed =
    baseline.fixedFirst.length > 0
      ? ` · the controller fixes itself, with its fix command before the agent: ${names(baseline.fixedFirst)}`
      : ''
  return `The agent is told of: ${told}${fixed}`
}

function nextStrategy(next: Decision): string {
  const strategy = attemptStrategy(next)
  return strategy ? ` with ${strategyLabel(strategy)}` : ''
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

function trimOutput(output: string): string {
  const text = output.replace(/```/g, '`\u200b``')
  if (text.length <= OUTPUT_LIMIT) return text
  return `${text.slice(0, OUTPUT_LIMIT / 2)}\n… [${text.length - OUTPUT_LIMIT} characters omitted; the full log is in runs/] …\n${text.slice(-OUTPUT_LIMIT / 2)}`
}
