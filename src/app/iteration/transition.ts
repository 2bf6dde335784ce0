/**
 * Transition: the engine applies what the iteration did to the state (the stage may advance, a failure
 * open or close). Conclude: the loop's ending decision (complete, capped, blocked, waiting, aborted)
 * is recorded in the state before it is saved.
 */
import {
  abort as abortLoop,
  applyOutcome,
  compactState,
  type Decision,
  type IterationOutcome,
  markBlocked,
  markCapped,
  markComplete,
  markWaiting,
} from '../../domain/engine/index.js'
import type { JourneyEvent } from '../../domain/journey.js'
import type { LoopState } from '../../domain/state.js'
import { type IterationRecord, type IterationRun, type LoopRecord, withEvents } from './record.js'
import type { IterationOutcomeKind } from './types.js'

export async function transition(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { deps, stage, strategy } = run
  const outcome: IterationOutcome = {
    now: deps.clock.now(),
    stage,
    ...(record.work ? { work: record.work } : {}),
    checks: record.checks.map((c) => c.result),
    failures: record.failures,
    flaky: record.flaky,
    autoFixed: record.autoFixed,
    gatesRaised: record.gatesRaised,
    tasksCompleted: record.tasksCompleted,
    tasksFailed: record.tasksFailed,
    ...(strategy ? { strategyUsed: strategy } : {}),
    // This job's time, and what the iteration spent before it in other jobs (fan-out's plan and verify legs).
    wallMs: Date.now() - run.startedAt + record.timeElsewhereMs,
  }
  const applied = applyOutcome(record.state, outcome, run.policy)
  return withEvents({ ...record, state: applied.state, outcome }, ...applied.events)
}

/** Records in the state the ending `final` names (none for a decision to go on), and compacts it. */
export function conclude(
  record: LoopRecord,
  final: Decision,
  at: Date,
): { kind: IterationOutcomeKind; record: LoopRecord } {
  const { state } = record
  const ended = (kind: IterationOutcomeKind, applied?: { state: LoopState; events: JourneyEvent[] }) => ({
    kind,
    record: applied
      ? withEvents({ ...record, state: compactState(applied.state) }, ...applied.events)
      : { ...record, state: compactState(state) },
  })
  switch (final.kind) {
    case 'COMPLETE':
      return ended('complete', markComplete(state, at))
    case 'CAP_REACHED':
      return ended('capped', markCapped(state, final, at))
    case 'ESCALATE':
      return ended('blocked', markBlocked(state, final.reason, at))
    case 'WAIT_FOR_HUMAN':
      // SHIP waiting for its merge is waiting, as the state says; only a BLOCKED loop is blocked.
      return ended(state.status === 'waiting' ? 'waiting' : 'blocked')
    case 'WAIT_FOR_APPROVAL':
      return ended(
        'waiting',
        state.status !== 'waiting' || state.statusReason !== final.reason
          ? markWaiting(state, final.gate, final.reason, at)
          : undefined,
      )
    case 'ABORTED':
      return ended(
        'aborted',
        state.status !== 'aborted'
          ? abortLoop(state, 'the kill switch (loop/stop label or stop: true)', at)
          : undefined,
      )
    default:
      return ended('continue')
  }
}
