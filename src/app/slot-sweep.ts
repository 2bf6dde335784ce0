/**
 * The sweeper's pass over the slots (`queue.json`): a job that died (cancelled, a lost runner,
 * `timeout-minutes`) leaves its loop's state `running`, and a slot is freed only by a state that says
 * the loop ended, so the queue would jam for good. For each holder the run that has it is asked about
 * (`domain/slot-sweep.ts` decides): a loop whose job died is saved BLOCKED (compare-and-swap on the state
 * it read) and so loses its slot; an admitted loop whose start never ran is dispatched again; then one
 * change of the record (compare-and-swap on the branch) frees the slots of loops that ended and admits
 * the next in line, which are started as any releasing job starts them.
 */

import { messageOf } from '../config/errors.js'
import { markBlocked } from '../domain/engine/index.js'
import { type HolderVerdict, judgeHolder, judgeOutOfLine, type RunFact, strandedReason } from '../domain/slot-sweep.js'
import {
  type Limit,
  loopsNamed,
  requeue,
  type SlotHolder,
  type SlotsRecord,
  settle,
  type WaitingLoop,
} from '../domain/slots.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import type { SlotStore } from '../ports/slots.js'
import { type LoopLister, type Store, StoreConflictError } from '../ports/store.js'
import { type SlotDeps, stamped, startAdmitted } from './slots.js'

export interface SweptSlot {
  loopId: string
  outcome: 'blocked' | 'restarted' | 'freed' | 'started' | 'dropped' | 'kept' | 'raced'
  reason: string
}

export interface SlotSweepDeps {
  slots: SlotStore & { current(): Promise<SlotsRecord> }
  /** With `listLoops`, a new loop left `queued` outside the line by a job that failed is found too. */
  store: Store & Partial<LoopLister>
  /** What GitHub says of a run (its status and conclusion). */
  runOf: (runId: string) => Promise<{ status: string; conclusion: string | null }>
  start: SlotDeps['start']
  clock: Clock
  logger: Logger
}

/**
 * Sweeps the slots under `limit` (the sweeper's `max-loops`, else the one the record was last changed
 * under). Returns what it did to each loop it touched, and why it left the others.
 */
export async function sweepSlots(
  input: { limit: Limit | undefined; staleAfterMs: number },
  deps: SlotSweepDeps,
): Promise<SweptSlot[]> {
  const before = await deps.slots.current()
  const now = deps.clock.now()
  const swept: SweptSlot[] = await blockOutOfLine(before, now, input.staleAfterMs, deps)
  if (before.running.length === 0 && before.queued.length === 0) {
    for (const loop of swept) deps.logger.info(`Loop ${loop.loopId}: ${loop.outcome}, ${loop.reason}.`)
    return swept
  }
  const limit = input.limit !== undefined ? input.limit : (before.limit ?? null)
  const restart: SlotHolder[] = []
  const free: SlotHolder[] = []
  for (const holder of before.running) {
    const verdict = await judge(holder, now, input.staleAfterMs, deps)
    if (verdict.kind === 'block') {
      swept.push(await blockStranded(holder.loopId, verdict, deps))
    } else if (verdict.kind === 'restart') {
      restart.push(holder)
      swept.push({ loopId: holder.loopId, outcome: 'restarted', reason: verdict.reason })
    } else if (verdict.kind === 'free') {
      free.push(holder)
      swept.push({ loopId: holder.loopId, outcome: 'freed', reason: verdict.reason })
    } else swept.push({ loopId: holder.loopId, outcome: 'kept', reason: verdict.reason })
  }
  const at = now.toISOString()
  const admitted = await deps.slots.update([], (record, statuses) => {
    // Only a holder as judged: one whose run or start changed since belongs to the job that changed it.
    const same = (holder: SlotHolder, judged: SlotHolder) =>
      holder.loopId === judged.loopId && holder.run === judged.run && holder.since === judged.since
    let next: SlotsRecord = {
      ...record,
      running: record.running.filter((holder) => !free.some((judged) => same(holder, judged))),
    }
    for (const judged of restart) {
      const holder = next.running.find((candidate) => same(candidate, judged))
      if (holder?.workflow && holder.ref) next = requeue(next, restartEntry(holder.loopId, holder.workflow, holder.ref))
    }
    const changed = settle(next, statuses, limit, at)
    return { record: stamped(changed.record, limit), result: changed.started }
  })
  const slotDeps: SlotDeps = { slots: deps.slots, clock: deps.clock, logger: deps.logger, start: deps.start }
  swept.push(...startsSwept(swept, await startAdmitted(admitted, limit, slotDeps), admitted))
  for (const loop of swept) deps.logger.info(`Slot of ${loop.loopId}: ${loop.outcome}, ${loop.reason}.`)
  return swept
}

/**
 * What became of each loop the sweep admitted, and of each admitted in place of one whose start was
 * dropped: started, dropped, or back in line. A restarted holder's line (in `swept`) is told the same.
 */
function startsSwept(
  swept: readonly SweptSlot[],
  { started, dropped }: Awaited<ReturnType<typeof startAdmitted>>,
  admitted: readonly WaitingLoop[],
): SweptSlot[] {
  const starts: SweptSlot[] = []
  for (const loopId of new Set([...admitted, ...dropped, ...started].map((loop) => loop.loopId))) {
    const ran = started.some((loop) => loop.loopId === loopId)
    const drop = dropped.find((loop) => loop.loopId === loopId)
    const restarted = swept.find((loop) => loop.loopId === loopId && loop.outcome === 'restarted')
    if (restarted) {
      if (drop) restarted.reason += `; not started: ${drop.why}`
      else if (!ran) restarted.reason += '; its dispatch failed, it waits at the head of the line'
      continue
    }
    const why = drop
      ? `not started: ${drop.why}; it left the line`
      : ran
        ? 'admitted to a freed slot; its job dispatched'
        : 'admitted, but its dispatch failed: back at the head of the line'
    starts.push({ loopId, outcome: drop ? 'dropped' : ran ? 'started' : 'kept', reason: why })
  }
  return starts
}

async function judge(holder: SlotHolder, now: Date, staleAfterMs: number, deps: SlotSweepDeps): Promise<HolderVerdict> {
  const state = (await deps.store.load(holder.loopId))?.state ?? null
  let run: RunFact | null = null
  if (holder.run && state && state.status !== 'waiting') {
    try {
      const answer = await deps.runOf(holder.run)
      run =
        answer.status === 'completed'
          ? { kind: 'over', conclusion: answer.conclusion ?? 'no conclusion' }
          : { kind: 'active', status: answer.status }
    } catch (error) {
      run = { kind: 'unknown', why: `GitHub did not say how it stands (${messageOf(error)})` }
    }
  }
  return judgeHolder({ holder, state, run }, now, staleAfterMs)
}

/**
 * The loops saved `queued` by a first job that failed before the record named them (`judgeOutOfLine`):
 * each is saved BLOCKED, saying why. Only where the store lists its loops.
 */
async function blockOutOfLine(
  record: SlotsRecord,
  now: Date,
  staleAfterMs: number,
  deps: SlotSweepDeps,
): Promise<SweptSlot[]> {
  if (!deps.store.listLoops) return []
  const named = new Set(loopsNamed(record))
  const swept: SweptSlot[] = []
  for (const loopId of await deps.store.listLoops()) {
    if (named.has(loopId)) continue
    const state = (await deps.store.load(loopId).catch(() => null))?.state
    const verdict = state ? judgeOutOfLine(state, false, now, staleAfterMs) : null
    if (verdict) swept.push(await blockStranded(loopId, verdict, deps, 'queued'))
  }
  return swept
}

/** Saves the loop BLOCKED on the version judged: a job or person that saved since wins, and nothing changes. */
async function blockStranded(
  loopId: string,
  verdict: Extract<HolderVerdict, { kind: 'block' }>,
  deps: SlotSweepDeps,
  from: 'running' | 'queued' = 'running',
): Promise<SweptSlot> {
  const loaded = await deps.store.load(loopId)
  if (loaded?.state.status !== from) {
    return { loopId, outcome: 'raced', reason: 'the loop changed while it was swept' }
  }
  const blocked = markBlocked(loaded.state, strandedReason(verdict), deps.clock.now()).state
  try {
    await deps.store.save(loopId, blocked, loaded.version)
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error
    return { loopId, outcome: 'raced', reason: 'the loop changed while it was swept (a job or a person)' }
  }
  return { loopId, outcome: 'blocked', reason: `${verdict.reason}; marked BLOCKED` }
}

/** The entry an admitted loop that never started goes back in line with, at the head. */
function restartEntry(loopId: string, workflow: string, ref: string): WaitingLoop {
  return { loopId, since: new Date(0).toISOString(), dependsOn: [], workflow, ref }
}
