/**
 * Decide's part of a baseline round (fan-out's measure of the baseline before the loop's first work):
 * the legs' runs at the base replayed through the single job's own verification and analysis (nothing
 * of the project runs here), recorded as the loop's baseline with its failures analysed, which the next
 * plan's prompt carries. No iteration is counted: the iteration the round measured for runs next.
 */
import { join } from 'node:path'
import { type Decision, decide } from '../../domain/engine/index.js'
import type { Leg, MergedVerdicts } from '../../domain/fan-out.js'
import {
  keptBaselineFailures,
  lostLegsLine,
  mergeLegBaselines,
  missingBaselineLine,
} from '../../domain/fan-out-baseline.js'
import { fanOutTimeElsewhereMs } from '../../domain/fan-out-time.js'
import type { Policy } from '../../domain/policy.js'
import type { LoopState } from '../../domain/state.js'
import { baselineMessage, toAgentFailure } from '../iteration/begin.js'
import { event, type LoopRecord, withEvents } from '../iteration/record.js'
import { pullRequestMerged } from '../iteration/restore.js'
import type { IterationDeps, IterationInput, IterationResult } from '../iteration/types.js'
import { settle } from '../iteration.js'
import { isFailing } from '../step-support.js'
import { everyIterationChecks, verify } from '../verification.js'

export interface BaselineRound {
  /** The iteration the round measured for (it runs next). */
  iteration: number
  legs: readonly Leg[]
  merged: Pick<MergedVerdicts, 'runs' | 'tests'>
  /** The plan's wall time, and each leg's (`legTimeMs`). */
  planWallMs: number
  legDurationsMs: readonly number[]
  /** When this job began (ms since the epoch): its own time counts too. */
  startedAt: number
}

/**
 * Records the baseline the round's legs measured, in `loop`'s state (`deps.runner` replays the legs'
 * runs), and settles the loop with the engine's next decision: the state's iteration is left as it is.
 */
export async function recordBaselineRound(
  input: IterationInput,
  deps: IterationDeps,
  loop: LoopRecord,
  round: BaselineRound,
  policy: Policy,
): Promise<IterationResult> {
  const now = deps.clock.now()
  const { config } = input
  const logDir = join(input.loopDir, 'runs', String(round.iteration), 'baseline')
  // Every leg ran its check: none is replayed as skipped by fail-fast, a `pre` check or a failed `needs`,
  // so the briefing, the report and the baseline's verdicts are the same runs' verdicts.
  const only = everyIterationChecks(config.checks)
  const checks = await verify(input, deps, logDir, {}, round.iteration, false, only, { runAll: true })
  const merged = mergeLegBaselines(round.legs, config.checks, round.merged.runs, round.merged.tests, now.toISOString())
  const missing = new Set(merged.missing.map((m) => m.check))
  const spentMs = fanOutTimeElsewhereMs(round.planWallMs, round.legDurationsMs) + (Date.now() - round.startedAt)
  const spent = { ...loop.state.usage, wallMs: loop.state.usage.wallMs + Math.max(0, spentMs) }
  const lost = lostLegsLine(round.legs, round.merged.runs)
  // A leg lost to the runner (no verdict) says nothing of the project: the first such round is not kept,
  // so that iteration 1 is not judged against a baseline with holes; a second keeps what it measured.
  if (lost !== '' && !loop.state.baselineRoundsLost) {
    const state: LoopState = { ...loop.state, baselineRoundsLost: 1, usage: spent, updatedAt: now.toISOString() }
    const line = `baseline round lost: no verdict from ${lost}; no baseline is recorded, and the round runs again (a second round that loses a leg records what its legs measured)`
    deps.logger.warning(`The baseline round: ${line}.`)
    return settleRound(
      input,
      deps,
      policy,
      withEvents({ ...loop, state }, event(now, round.iteration, 'check', line)),
      {
        iteration: round.iteration,
        checks: checks.map((c) => c.result),
      },
    )
  }
  if (missing.size > 0) deps.logger.warning(`The baseline: ${missingBaselineLine(merged.missing)}.`)
  // A check without a verdict at the base is no failure of the project's: the agent is not told of it.
  const measured = checks.filter((c) => !missing.has(c.check.name))
  const failures = keptBaselineFailures(measured.filter((c) => isFailing(c.result)).map(toAgentFailure))
  const { baselineRoundsLost: _lostBefore, ...kept } = loop.state
  const state: LoopState = {
    ...kept,
    baseline: { ...merged.baseline, failures },
    usage: spent,
    updatedAt: now.toISOString(),
  }
  const verdicts = measured.length > 0 ? baselineMessage(measured) : 'baseline: no check measured at the base'
  const line = `${verdicts}${missing.size > 0 ? ` · ${missingBaselineLine(merged.missing)}` : ''}`
  const record = withEvents({ ...loop, state }, event(now, round.iteration, 'check', line))
  deps.logger.info(`The baseline round: ${line}; iteration ${round.iteration} is next.`)
  return settleRound(input, deps, policy, record, { iteration: round.iteration, checks: measured.map((c) => c.result) })
}

/** The loop settled with the engine's next decision after the round (its iteration left as it is). */
async function settleRound(
  input: IterationInput,
  deps: IterationDeps,
  policy: Policy,
  record: LoopRecord,
  baselineRound: NonNullable<IterationResult['baselineRound']>,
): Promise<IterationResult> {
  const { state } = record
  const next: Decision = decide(
    state,
    { now: deps.clock.now(), stopRequested: false, pullRequestMerged: await pullRequestMerged(state, deps) },
    policy,
  )
  return { ...(await settle(input, deps, record, next)), baselineRound }
}
