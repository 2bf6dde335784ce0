/**
 * The facts a person reads about a loop, computed once from the report model: where it stands, why it
 * stopped, what a person does next, the failure and its attempts, each iteration, and the one
 * annotation of a stopped loop. The summary, the comment, the annotations and the outputs all render
 * from this, so a fact is said in one place with one count. Texts are plain (code spans in
 * backticks); the renderers escape them with `markdownText`. Pure.
 */

import type { CapLimit } from '../engine/decide.js'
import { Labels, loopBranch } from '../loop-names.js'
import type { LoopStatus } from '../stages.js'
import type { CheckResult, Location } from '../state.js'
import { cappedNextStep } from './capped-advice.js'
import { abortedBeforeStart, formatCount, formatUsd, isFailing, overallVerdict, plural } from './format.js'
import type { ReportModel } from './model.js'

/** The end states a person tells apart (a running loop is one too: it is where the report ends). */
export type ViewState = LoopStatus

/** One iteration in the progress checklist. */
export interface IterationView {
  iteration: number
  verdict: 'pass' | 'fail' | 'none'
  checks: number
  failed: readonly string[]
  /** The strategies the agent was run with (empty for a first attempt or no agent call). */
  strategies: readonly string[]
  agentCalls: number
  /** Known only when the agent reported them. */
  tokens: number | null
  costUsd: number | null
}

/** The failure a person is asked about, once. */
export interface FailureView {
  check: string
  location: Location | null
  pattern: string | null
  /** The first meaningful line of the error. */
  firstLine: string
  /** Attempts on this failure so far, the first one included, and how many are allowed. */
  attempts: number
  attemptsLimit: number
  /** The fixes tried after the first attempt, in order. */
  tried: ReportModel['failures']['tried']
}

export interface ReportView {
  state: ViewState
  icon: string
  /** `BLOCKED`, `COMPLETE`, ... with what it means, e.g. `BLOCKED: needs a person`. */
  title: string
  /** `iteration 3 of 8`. */
  progress: string
  /** Why the loop stopped or waits; null while it runs or once complete (the title says it). */
  why: string | null
  /** The next step for a person, in one line. */
  nextStep: string
  failure: FailureView | null
  iterations: readonly IterationView[]
  /** Iterations folded away by compaction (their records are in the audit trail). */
  earlierIterations: number
  /** When the state was last written, `2026-01-01 00:00 UTC`. */
  updatedAt: string
  /** For BLOCKED, capped and aborted loops: the one annotation that says why and what to do. */
  endState: { title: string; message: string } | null
}

const ICONS: Record<ViewState, string> = {
  running: '🔁',
  waiting: '⏸️',
  blocked: '🚫',
  complete: '✅',
  capped: '🛑',
  aborted: '⏹️',
  queued: '⏳',
}

const TITLES: Record<ViewState, string> = {
  running: 'Running',
  waiting: 'Waiting',
  blocked: 'BLOCKED: needs a person',
  complete: 'COMPLETE',
  capped: 'Stopped at the iteration cap',
  aborted: 'Aborted',
  queued: 'Queued: waits for a slot or its dependencies',
}

/** The statuses that stop a loop short of COMPLETE; `fail-on` chooses which of them fail the job. */
export const STOPPED_STATES = ['blocked', 'capped', 'aborted'] as const
export type StoppedState = (typeof STOPPED_STATES)[number]

/** Where a person acts: on GitHub (comments, labels, pull requests) or with the CLI. */
export type Surface = 'github' | 'cli'

export function buildReportView(model: ReportModel, surface: Surface = 'github'): ReportView {
  const state = model.status
  const failure = failureView(model)
  const why = whyOf(model)
  const nextStep = surface === 'cli' ? cliNextStepOf(model) : nextStepOf(model)
  const iterations = iterationsOf(model)
  return {
    state,
    icon: ICONS[state],
    title:
      state === 'waiting' && pendingGate(model)
        ? `Waiting for approval of gate \`${pendingGate(model)}\``
        : state === 'capped'
          ? CAP_TITLES[capLimitOf(model)]
          : TITLES[state],
    progress: model.baselineRound
      ? `the baseline round, before iteration ${model.baselineRound.iteration} of ${model.maxIterations}`
      : abortedBeforeStart(model)
        ? 'never started'
        : `iteration ${model.iteration} of ${model.maxIterations}`,
    why,
    nextStep,
    failure,
    iterations: iterations.list,
    earlierIterations: iterations.earlier,
    updatedAt: model.updatedAt ? formatTime(model.updatedAt) : '',
    endState: isStopped(state)
      ? {
          title: `loop-controller: ${model.loopId} ${state === 'capped' ? CAPPED_TITLES[capLimitOf(model)] : STOPPED_TITLES[state]} (${plainProgress(model)})`,
          message: [why ? `Why: ${why}.` : '', `Next: ${nextStep}`].filter(Boolean).join(' '),
        }
      : null,
  }
}

const STOPPED_TITLES: Record<StoppedState, string> = {
  blocked: 'is BLOCKED',
  capped: 'stopped at the iteration cap',
  aborted: 'was aborted',
}

/** A capped loop's title names the limit it reached: the iteration cap is only one of four. */
const CAP_TITLES: Record<CapLimit, string> = {
  iterations: 'Stopped at the iteration cap',
  minutes: 'Stopped: the time budget is spent',
  tokens: 'Stopped: the token budget is spent',
  cost: 'Stopped: the cost budget is spent',
}

const CAPPED_TITLES: Record<CapLimit, string> = {
  iterations: 'stopped at the iteration cap',
  minutes: 'stopped: the time budget is spent',
  tokens: 'stopped: the token budget is spent',
  cost: 'stopped: the cost budget is spent',
}

/** The limit a capped loop reached, as the decision that stopped it names it (the iteration cap without one). */
function capLimitOf(model: ReportModel): CapLimit {
  return model.next?.kind === 'CAP_REACHED' ? model.next.limit : 'iterations'
}

export function isStopped(state: ViewState): state is StoppedState {
  return (STOPPED_STATES as readonly string[]).includes(state)
}

function plainProgress(model: ReportModel): string {
  return abortedBeforeStart(model) ? 'never started' : `iteration ${model.iteration} of ${model.maxIterations}`
}

/** The gate a waiting loop waits on, if it waits on one. */
export function pendingGate(model: ReportModel): string | null {
  if (model.next?.kind === 'WAIT_FOR_APPROVAL') return model.next.gate
  return Object.entries(model.gates).find(([, gate]) => gate.status === 'pending')?.[0] ?? null
}

function whyOf(model: ReportModel): string | null {
  if (model.status === 'running' || model.status === 'complete') return null
  const gate = model.status === 'waiting' ? pendingGate(model) : null
  // A waiting gate is named by the title; its own reason says why it was raised.
  const gateReason = gate
    ? model.gates[gate]?.reason || (model.next?.kind === 'WAIT_FOR_APPROVAL' ? model.next.reason : '')
    : ''
  const reason = (
    model.status === 'blocked' ? model.handoff?.reason || model.statusReason : gateReason || model.statusReason
  ).trim()
  return reason === '' ? null : reason.replace(/[.\s]+$/, '')
}

/** The same steps with the CLI's commands. */
function cliNextStepOf(model: ReportModel): string {
  switch (model.status) {
    case 'complete':
      return "review the loop's commits (`loop-controller history`) and merge them."
    case 'blocked':
      return 'fix the cause or clarify the goal, then run `loop-controller resume`; to give up, `loop-controller abort`.'
    case 'capped':
      return cappedNextStep(capLimitOf(model), model.iteration, 'cli', '')
    case 'aborted':
      return 'nothing: the loop is over; its commits stay where they are.'
    case 'queued':
      return 'nothing: on GitHub the loop starts by itself once a slot is free and its dependencies are COMPLETE; `loop-controller run` runs it here.'
    case 'waiting': {
      const gate = pendingGate(model)
      if (gate) return `approve gate \`${gate}\`: run \`loop-controller approve ${gate}\`.`
      return `${model.nextAction.replace(/[.\s]+$/, '')}.`
    }
    default:
      return `nothing: run \`loop-controller run\` to go on; to stop, \`loop-controller abort\`.`
  }
}

/** What begins the work again after an abort: a loop of another id. */
export const ANOTHER_LOOP = `open a new issue and label it \`${Labels.Start}\`, or dispatch the workflow with another \`loop-id\``

function nextStepOf(model: ReportModel): string {
  const branch = `\`${loopBranch(model.loopId)}\``
  const pull = model.links.pullRequest
  // A loop started by a dispatch has no issue, and no pull request before its first commit: a comment
  // there reaches nothing, so the advice is the workflow's `command` input.
  if (!pull && !model.links.issue) {
    const noThread = dispatchOnlyNextStep(model, branch)
    if (noThread !== null) return noThread
  }
  switch (model.status) {
    case 'complete':
      return pull
        ? `review pull request #${pull.number}, mark it ready for review and merge it.`
        : `merge ${branch} into the default branch (or open a pull request from it).`
    case 'blocked':
      return `push a fix to ${branch} or clarify the goal in the issue, then comment \`/loop resume\`; to give up, comment \`/loop abort\`.`
    case 'capped':
      return cappedNextStep(capLimitOf(model), model.iteration, 'thread', branch)
    case 'aborted':
      // One aborted before its first iteration (a queued loop) left no work behind. A start of the same
      // loop id finds it aborted and is refused: only a new loop id begins again.
      return model.iteration === 0
        ? `nothing: the loop is over before any work, and an aborted loop does not run again; to do the work, ${ANOTHER_LOOP}.`
        : `nothing: the loop is over and its work stays on ${branch}; an aborted loop does not run again: to go on, ${ANOTHER_LOOP} (a new loop starts from the default branch).`
    case 'queued':
      return 'nothing: the loop starts by itself once a slot is free and its dependencies are COMPLETE; to drop it, comment `/loop abort`.'
    case 'waiting': {
      const gate = pendingGate(model)
      if (gate) {
        return `approve gate \`${gate}\` (someone with write access): comment \`/loop approve ${gate}\`, add the label \`${Labels.ApprovedPrefix}${gate}\` or approve the pull request in a review.`
      }
      return `${model.nextAction.replace(/[.\s]+$/, '')}.`
    }
    default:
      return 'nothing: the loop goes on by itself; to stop it, comment `/loop abort`.'
  }
}

/** What a person does for a loop with no issue and no pull request to comment on; null: as anywhere else. */
function dispatchOnlyNextStep(model: ReportModel, branch: string): string | null {
  const runAgain = (command: string) => `run the workflow again with the loop's \`loop-id\` and \`command: ${command}\``
  switch (model.status) {
    case 'blocked':
      return `push a fix to ${branch} or clarify the goal, then ${runAgain('resume')}; to give up, ${runAgain('abort')}.`
    case 'capped':
      return cappedNextStep(capLimitOf(model), model.iteration, 'dispatch-only', branch)
    case 'running':
      return `nothing: the loop goes on by itself; to stop it, ${runAgain('abort')}.`
    default:
      return null
  }
}

function failureView(model: ReportModel): FailureView | null {
  const current = model.failures.current
  const failingCheck: CheckResult | undefined = current
    ? (model.checks.find((check) => check.name === current.check) ?? model.checks.find(isFailing))
    : model.checks.find(isFailing)
  if (!current && !failingCheck) return null
  const location = failingCheck?.locations[0] ?? null
  const message = location?.message ?? current?.error ?? failingCheck?.excerpt ?? ''
  return {
    check: current?.check ?? failingCheck?.name ?? '',
    location,
    pattern: current?.pattern ?? failingCheck?.pattern ?? null,
    firstLine: firstLineOf(message),
    attempts: Math.max(model.failures.consecutive, model.failures.tried.length + (current ? 1 : 0)),
    attemptsLimit: model.failures.perFailureLimit,
    tried: model.failures.tried,
  }
}

/** The heading a sharded check's output gives each failing shard's part (`shards.ts`): `### test shard 3/4: fail`. */
const SHARD_HEADING = /^#{3} .+ (shard \d+\/\d+): \S+$/

/** The first line of an error a person reads; a failing shard's heading is not the error, so its shard prefixes the line after. */
function firstLineOf(message: string): string {
  const [first = '', second] = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  const shard = SHARD_HEADING.exec(first)?.[1]
  if (shard === undefined) return first
  return second === undefined || SHARD_HEADING.test(second) ? `${shard} failed` : `${shard}: ${second}`
}

/** At most this many iterations are listed; older ones are counted. */
const MAX_LISTED_ITERATIONS = 30

function iterationsOf(model: ReportModel): { list: IterationView[]; earlier: number } {
  const byIteration = new Map<number, IterationView>()
  const entry = (iteration: number): IterationView => {
    let view = byIteration.get(iteration)
    if (!view) {
      view = {
        iteration,
        verdict: 'none',
        checks: 0,
        failed: [],
        strategies: [],
        agentCalls: 0,
        tokens: null,
        costUsd: null,
      }
      byIteration.set(iteration, view)
    }
    return view
  }
  for (const logged of model.usageLog) {
    if (logged.iteration < 1) continue
    const view = entry(logged.iteration)
    const outputs = logged.outputs
    if (logged.what.startsWith('work ')) {
      view.agentCalls += 1
      if (typeof outputs.strategy === 'string' && !view.strategies.includes(outputs.strategy)) {
        view.strategies = [...view.strategies, outputs.strategy]
      }
      if (typeof outputs.tokens === 'number') view.tokens = (view.tokens ?? 0) + outputs.tokens
      if (typeof outputs.costUsd === 'number') view.costUsd = (view.costUsd ?? 0) + outputs.costUsd
    } else if (logged.what === 'verify') {
      view.checks = typeof outputs.checks === 'number' ? outputs.checks : view.checks
      view.failed = Array.isArray(outputs.failed)
        ? outputs.failed.filter((f): f is string => typeof f === 'string')
        : []
      view.verdict = logged.status === 'pass' ? 'pass' : 'fail'
    }
  }
  // This iteration's checks are the truth for it, whatever the log kept.
  if (model.checks.length > 0) {
    const view = entry(model.iteration)
    view.checks = model.checks.length
    view.failed = model.checks.filter(isFailing).map((check) => check.name)
    const verdict = overallVerdict(model.checks)
    view.verdict = verdict
  }
  const all = [...byIteration.values()].sort((a, b) => a.iteration - b.iteration)
  const list = all.slice(-MAX_LISTED_ITERATIONS)
  const firstListed = list[0]?.iteration ?? model.iteration + 1
  return { list, earlier: Math.max(0, firstListed - 1) }
}

/** One checklist line's text (plain, with code spans), e.g. `iteration 2 · ❌ 1 of 4 checks failed (`unit`) · tried `context_expand` · 1 agent call · 1200 tokens · $0.01`. */
export function iterationLine(view: IterationView): string {
  const verdict =
    view.verdict === 'none'
      ? 'no checks ran'
      : view.verdict === 'pass'
        ? view.checks === 1
          ? '✅ the 1 check passed'
          : `✅ all ${view.checks} checks passed`
        : `❌ ${view.failed.length} of ${plural(view.checks, 'check')} failed${
            view.failed.length > 0
              ? ` (${view.failed.slice(0, 5).map(codeSpan).join(', ')}${view.failed.length > 5 ? ', …' : ''})`
              : ''
          }`
  const parts = [`iteration ${view.iteration}`, verdict]
  if (view.strategies.length > 0) parts.push(`tried ${view.strategies.map(codeSpan).join(', ')}`)
  if (view.agentCalls > 0) parts.push(plural(view.agentCalls, 'agent call'))
  if (view.tokens !== null) parts.push(`${formatCount(view.tokens)} token${view.tokens === 1 ? '' : 's'}`)
  if (view.costUsd !== null) parts.push(formatUsd(view.costUsd))
  return parts.join(' · ')
}

/** A name as a code span of the view's plain text; a backtick in it (a hostile check name) cannot pair with another. */
function codeSpan(name: string): string {
  return `\`${name.replace(/`/g, "'")}\``
}

/** `2026-01-01 00:00 UTC`. */
export function formatTime(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}
