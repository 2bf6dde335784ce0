/**
 * One controller iteration, shared by both front doors (the CLI and the action), as a pipeline of
 * named steps over an explicit record (`iteration/record.ts`):
 * restore → decide → begin → baseline → act → guard → tasks → verify → fixed first → remedies → analyze →
 * transition → checkpoint → audit → conclude → persist → audit of the ending.
 * Effects go through ports; the decisions are the pure engine's.
 */
import { strategyTaken } from '../domain/attempt-strategy.js'
import { type Decision, decide } from '../domain/engine/index.js'
import { policyFromConfig } from '../domain/policy.js'
import type { LoopState } from '../domain/state.js'
import { act } from './iteration/act.js'
import { analyze } from './iteration/analyze.js'
import { writeEnding, writeIterationRecord } from './iteration/audit.js'
import { baseline, beginRun } from './iteration/begin.js'
import { checkpoint } from './iteration/checkpoint.js'
import { fixedFirst } from './iteration/fixed-first.js'
import { guard } from './iteration/guard.js'
import { persist } from './iteration/persist.js'
import {
  finish,
  type IterationRecord,
  type IterationRun,
  type IterationStep,
  type LoopRecord,
  type RanIteration,
} from './iteration/record.js'
import { remedies } from './iteration/remedies.js'
import { pullRequestMerged, restoreAndDecide } from './iteration/restore.js'
import { stageTasks } from './iteration/tasks.js'
import { conclude, transition } from './iteration/transition.js'
import type { IterationDeps, IterationInput, IterationOutcomeKind, IterationResult } from './iteration/types.js'
import { verify } from './iteration/verify.js'
import { isFailing } from './step-support.js'

export type {
  IterationDeps,
  IterationInput,
  IterationOutcomeKind,
  IterationResult,
  ProgressSink,
} from './iteration/types.js'

/** The steps of a running iteration, in order, from the work tree as it was to the state it leaves. */
const RUN_STEPS: readonly IterationStep[] = [
  baseline,
  act,
  guard,
  stageTasks,
  verify,
  fixedFirst,
  remedies,
  analyze,
  transition,
]

/** Runs one controller iteration. Never throws for a failing check; throws for faults and bad state. */
export async function runOneIteration(input: IterationInput, deps: IterationDeps): Promise<IterationResult> {
  const policy = policyFromConfig(input.config)
  const restored = await restoreAndDecide(input, deps, policy)
  if (restored.kind === 'superseded') return restored.result
  const { decision } = restored
  if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
    return settle(input, deps, restored.record, decision)
  }

  const begun = await beginRun(input, deps, policy, decision, restored.record, restored.now)
  const { run } = begun
  let record = begun.record
  for (const step of RUN_STEPS) record = await step(run, record)
  const checks = record.checks.map((c) => c.result)

  const checkpointed = await checkpoint(run, record)
  if (checkpointed.kind === 'superseded') {
    tellAnalyses(run, record, null)
    return finish('superseded', checkpointed.record.state, decision, decision, { checks }, record.version)
  }
  record = checkpointed.record

  const next = decide(
    record.state,
    { now: deps.clock.now(), stopRequested: false, pullRequestMerged: await pullRequestMerged(record.state, deps) },
    policy,
  )
  tellAnalyses(run, record, next)
  const recordPath = await writeIterationRecord(run, record, next)
  return settle(input, deps, record, next, { checks, commit: record.commit, record: recordPath, decision })
}

/**
 * Tells the live view each failing check's analysis (after the regressions are known, so a regression
 * is never called unclassified) with the strategy the loop takes for it, once the retry rules chose it:
 * the pattern's own strategy is only their starting point.
 */
function tellAnalyses(run: IterationRun, record: IterationRecord, next: Decision | null): void {
  const loop = { status: record.state.status, current: record.state.failures.current }
  for (const live of record.checks) {
    if (!isFailing(live.result) || !live.analysis) continue
    run.deps.progress?.analysis?.(run.iteration, live.result, strategyTaken(live.result, loop, next))
  }
}

/**
 * Ends a run: the ending `final` names is recorded in the state, the state saved with its journey
 * events, and for a loop that ended, its closing records written. `ran`: what an iteration that ran
 * in this run produced.
 */
export async function settle(
  input: IterationInput,
  deps: IterationDeps,
  loop: LoopRecord,
  final: Decision,
  ran?: RanIteration,
): Promise<IterationResult> {
  const at = deps.clock.now()
  const ended = conclude(loop, final, at)
  // The run whose job ran this iteration: what the dashboard links as the loop's last run.
  const concluded =
    ran && input.run
      ? { ...ended, record: { ...ended.record, state: { ...ended.record.state, lastRun: input.run } } }
      : ended
  const { state } = concluded.record
  const decision = ran?.decision ?? final
  // The ending's records are written before the save they belong to (see `BeforeSave`); a save that
  // ends up aborted by a person writes the aborted ending instead.
  const endingOf = (saving: LoopState) =>
    saving.status === 'aborted' && concluded.kind !== 'aborted'
      ? writeEnding(input.loopId, deps, 'aborted', saving, saving.statusReason)
      : writeEnding(input.loopId, deps, concluded.kind, saving, final.reason)
  const persisted = await persist(input.loopId, deps, concluded.record, ran !== undefined, at, endingOf)
  if (persisted.kind === 'superseded') {
    await restoreWinnersEnding(input.loopId, deps)
    return finish('superseded', state, decision, final, { checks: ran?.checks ?? [] }, persisted.version)
  }
  if (persisted.kind === 'aborted') {
    const aborted = abortedDecision(persisted.state)
    return finish('aborted', persisted.state, decision, aborted, ran ?? {}, persisted.version)
  }
  return finish(concluded.kind, state, decision, final, ran ?? {}, persisted.version)
}

function abortedDecision(state: LoopState): Decision {
  return { kind: 'ABORTED', reason: state.statusReason }
}

const ENDED_AS: Partial<Record<LoopState['status'], IterationOutcomeKind>> = {
  complete: 'complete',
  blocked: 'blocked',
  capped: 'capped',
  aborted: 'aborted',
}

/**
 * A save that lost the race may have written its ending over the winner's (the CLI's runs share one
 * folder): the ending on record is the winner's, written again from its saved state.
 */
async function restoreWinnersEnding(loopId: string, deps: IterationDeps): Promise<void> {
  const winner = (await deps.store.load(loopId))?.state
  const kind = winner ? ENDED_AS[winner.status] : undefined
  if (!winner || !kind) return
  await writeEnding(loopId, deps, kind, winner, winner.lastDecision?.reason ?? winner.statusReason)
}
