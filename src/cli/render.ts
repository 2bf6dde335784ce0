/** What the CLI prints for people: a check's cell, an analysis line, the closing line, status and history. */
import type { IterationResult } from '../app/iteration.js'
import { aggregateMetrics } from '../domain/analysis/index.js'
import { decide, summarizeNextAction } from '../domain/engine/index.js'
import type { Policy } from '../domain/policy.js'
import {
  buildReportModel,
  buildReportView,
  formatCount,
  formatDuration,
  type ReportOutcome,
} from '../domain/report/index.js'
import type { Strategy } from '../domain/stages.js'
import type { CheckResult, LoopState } from '../domain/state.js'

const MARK: Record<CheckResult['verdict'], string> = {
  pass: '✓',
  fail: '✗',
  timeout: '⏱',
  skipped: '–',
  flaky: '~',
  error: '!',
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

export function checkCell(result: CheckResult): string {
  const mark = result.autoFixed ? '✓ (auto-fixed)' : MARK[result.verdict]
  return `${result.name} ${mark}${result.verdict === 'skipped' ? '' : ` ${seconds(result.durationMs)}`}`
}

/**
 * A failing check's analysis: its pattern, where, and the strategy the loop takes for it (`taken`, once
 * the retry rules chose it; `a person` once BLOCKED), with the pattern's own strategy labelled when the
 * rules took another. No arrow when the loop takes none for this check (another failure is retried).
 */
export function analysisLine(result: CheckResult, taken: Strategy | null): string {
  const where = result.locations[0]
    ? ` at ${result.locations[0].file}${result.locations[0].line ? `:${result.locations[0].line}` : ''}`
    : ''
  const patterns = result.strategy && result.strategy !== taken ? ` (pattern's: ${result.strategy})` : ''
  const strategy = taken ? ` → ${taken === 'escalate' ? 'a person' : taken}${patterns}` : ''
  const classified = `${result.pattern ?? 'unclassified'} (${(result.confidence ?? 0).toFixed(2)})`
  if (!result.regression) return `${classified}${where}${strategy}`
  // A regression is named as one first; a pattern of its own (not the controller's label) follows.
  const own = result.pattern && result.pattern !== 'regression-detected' ? ` · ${classified}` : ''
  return `regression (passed at the baseline, fails now)${own}${where}${strategy}`
}

export function closingLine(result: IterationResult, elapsedMs: number, trail: string): string {
  const state = result.state
  const took =
    elapsedMs >= 60_000
      ? `${Math.floor(elapsedMs / 60_000)} min ${Math.round((elapsedMs % 60_000) / 1000)} s`
      : seconds(elapsedMs)
  const head = {
    complete: `COMPLETE in ${state.iteration} iteration${state.iteration === 1 ? '' : 's'}, ${took}`,
    blocked: `BLOCKED at iteration ${state.iteration}: ${state.statusReason || result.next.reason}`,
    waiting:
      result.next.kind === 'WAIT_FOR_APPROVAL'
        ? `WAITING for approval: ${result.next.reason}`
        : `WAITING at iteration ${state.iteration}: ${state.statusReason || result.next.reason}`,
    capped: `CAP REACHED at iteration ${state.iteration}: ${result.next.reason}`,
    aborted: `ABORTED: ${state.statusReason || result.next.reason}`,
    superseded: 'SUPERSEDED: another controller ran this iteration',
    continue: `iteration ${state.iteration} done · next: ${result.nextAction}`,
  }[result.outcome]
  return `${head} · audit trail: ${trail}/`
}

export function statusJson(state: LoopState) {
  return {
    loopId: state.loopId,
    stage: state.stage,
    status: state.status,
    iteration: state.iteration,
    maxIterations: state.maxIterations,
    failures: state.failures.total,
    gates: state.gates,
    // Each attempt (its pattern, strategy, duration and verdict) and the aggregates over them.
    metrics: { ...state.metrics, aggregate: aggregateMetrics(state.metrics) },
    usage: { wallMs: state.usage.wallMs, tokens: state.usage.tokens, costUsd: state.usage.costUsd },
  }
}

const OUTCOMES: Record<LoopState['status'], ReportOutcome> = {
  running: 'continue',
  waiting: 'waiting',
  blocked: 'blocked',
  complete: 'complete',
  capped: 'capped',
  aborted: 'aborted',
  queued: 'waiting',
}

export function renderStatus(state: LoopState, policy: Policy | null): string {
  // Under a minute is said in seconds, not as `0 min`.
  const minutes =
    state.usage.wallMs < 60_000
      ? formatDuration(state.usage.wallMs) || '0 s'
      : `${Math.round(state.usage.wallMs / 60_000)} min`
  const budget = [
    `iteration ${state.iteration} of ${state.maxIterations}`,
    state.budget.minutes ? `${minutes} of ${state.budget.minutes} min` : minutes,
    state.budget.costUsd
      ? `$${state.usage.costUsd.toFixed(2)} of $${state.budget.costUsd.toFixed(2)}`
      : state.usage.costUsd > 0
        ? `$${state.usage.costUsd.toFixed(2)}`
        : '',
    state.budget.tokens
      ? `${formatCount(state.usage.tokens)} of ${formatCount(state.budget.tokens)} tokens`
      : state.usage.tokens > 0
        ? `${formatCount(state.usage.tokens)} tokens`
        : '',
  ].filter(Boolean)
  const lines = [`${state.loopId} · ${state.stage} · ${state.status} · ${budget.join(' · ')}`]
  // Why and the step a person takes come from the same view as the job summary and the comment.
  const view = buildReportView(
    buildReportModel(state, {
      checks: state.lastVerification?.results ?? [],
      next: null,
      nextAction: '',
      outcome: OUTCOMES[state.status],
    }),
    'cli',
  )
  // A running loop's reason is its own; a stopped or waiting one's is the view's; COMPLETE needs none.
  const reason = state.status === 'running' ? state.statusReason : view.why
  if (reason) lines.push(`reason        ${reason}`)
  if (state.capabilities.total > 0) {
    lines.push(
      `capabilities  ${state.capabilities.completed.length} of ${state.capabilities.total} done${state.capabilities.current ? ` (current: ${state.capabilities.current})` : ''}`,
    )
  }
  const current = state.failures.current
  // An escalated failure went to a person: it is not resolved, and `status` must not say it is.
  const count = (resolution: string) => state.failures.history.filter((f) => f.resolution === resolution).length
  const escalated = count('escalated')
  const resolved = count('resolved') + count('auto-fixed') + count('flaky')
  lines.push(
    `failures      ${state.failures.total} (${resolved} resolved${escalated > 0 ? `, ${escalated} escalated` : ''})${current ? ` · last: ${current.pattern ?? 'unclassified'} in ${current.check}` : ''}`,
  )
  const gates = Object.entries(state.gates)
  if (gates.length > 0) {
    lines.push(
      `gates         ${gates.map(([name, g]) => `${name} ${g.status === 'approved' ? `✓ approved by @${g.decidedBy}` : g.status}`).join(' · ')}`,
    )
  }
  const m = state.metrics
  const aggregate = aggregateMetrics(m)
  lines.push(
    `metrics       ${m.workCalls} agent calls · ${m.autoFixes} auto-fixes · ${m.flakes} flakes · ${m.regressions} regressions · escalation rate ${(aggregate.escalationRate * 100).toFixed(0)}%`,
  )
  if (state.lastDecision) lines.push(`last          ${state.lastDecision.kind}: ${state.lastDecision.reason}`)
  // The next action needs the loop's policy, which lives in its config (not in state).
  // What the loop does next matters while it runs or waits; once it stopped, the person's step says it.
  if (policy && (state.status === 'running' || state.status === 'waiting')) {
    lines.push(`next          ${summarizeNextAction(state, decide(state, { now: new Date() }, policy))}`)
  }
  if (state.status !== 'running') lines.push(`you           ${view.nextStep}`)
  return `${lines.join('\n')}\n`
}

export function renderHistory(
  state: LoopState,
  events: { iteration: number; type: string; message: string }[],
): string {
  const lines = [`${state.loopId} · ${state.iteration} iteration${state.iteration === 1 ? '' : 's'} · ${state.status}`]
  let current = -1
  for (const e of events) {
    if (e.type === 'decision' && e.message.startsWith('EXECUTE') === false && e.message.startsWith('RETRY') === false)
      continue
    if (e.iteration !== current) {
      current = e.iteration
      lines.push(`#${e.iteration}`)
    }
    lines.push(`  ${e.type.padEnd(16)} ${e.message}`)
  }
  return `${lines.join('\n')}\n`
}
