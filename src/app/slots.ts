/**
 * Many loops at once, as use cases over the slots record (`domain/slots.ts`, kept by a `SlotStore`):
 * a job asks for a slot before its loop runs, the job that ends or stops a loop gives the slot back,
 * and the loops a change admits are started (their next job dispatched). A loop whose job could not be
 * dispatched goes back to the head of the line, so it is never admitted without a job to run it.
 */
import { messageOf } from '../config/errors.js'
import { dependencyCycle, type Waiting } from '../domain/depends-on.js'
import {
  hasEnded,
  holdsSlot,
  type Limit,
  limitChange,
  limitUnder,
  type QueueWait,
  queueWait,
  releaseSlot,
  requestSlot,
  requeue,
  type SlotRequest,
  type SlotsRecord,
  type SlotVerdict,
  type Statuses,
  type WaitingLoop,
  withHolderRun,
} from '../domain/slots.js'
import type { Clock } from '../ports/clock.js'
import type { Logger } from '../ports/logger.js'
import type { SlotStore } from '../ports/slots.js'

/**
 * Starts the job of an admitted loop (a workflow dispatch of its next iteration). Returns the id of the
 * run it started when GitHub says it, or `dropped` with why when the loop must not start (its issue
 * was closed while it waited): it leaves the line, and the next is admitted in its place.
 */
export type StartLoop = (entry: WaitingLoop) => Promise<string | undefined | { dropped: string }>

export interface SlotDeps {
  slots: SlotStore
  clock: Clock
  logger: Logger
  start: StartLoop
}

/**
 * What asking for a slot decided: admitted, queued, or refused because waiting would close a cycle of
 * dependencies (`cycle`: the loop ids round from this loop back to it), which no loop could ever leave.
 */
export type AskVerdict = SlotVerdict | { kind: 'cycle'; cycle: string[] }

/**
 * The job of `request.loopId` asks to run; loops the same change admitted are started. A loop whose
 * wait would close a cycle is not put in line (a place it had is given up) and is told so. `limit` is
 * the job's `max-loops`: null (none) keeps the one the record was last changed under.
 */
export async function askForSlot(request: Omit<SlotRequest, 'at'>, limit: Limit, deps: SlotDeps): Promise<AskVerdict> {
  const at = deps.clock.now().toISOString()
  const outcome = await deps.slots.update<{ verdict: AskVerdict; started: WaitingLoop[]; change: string | null }>(
    [request.loopId, ...request.dependsOn],
    (record, statuses) => {
      const under = limitUnder(record, limit)
      const change = limitChange(record, limit)
      const cycle = cycleInLine(record, request, statuses)
      if (cycle) {
        const queued = record.queued.filter((entry) => entry.loopId !== request.loopId)
        return {
          record: stamped({ ...record, queued }, under),
          result: { verdict: { kind: 'cycle', cycle }, started: [], change },
        }
      }
      const changed = requestSlot(record, { ...request, at }, statuses, under)
      const result = { verdict: changed.verdict, started: changed.started, change }
      return { record: stamped(changed.record, under), result }
    },
  )
  if (outcome.change) deps.logger.warning(outcome.change)
  await startAdmitted(outcome.started, limit, deps)
  return outcome.verdict
}

/**
 * The cycle `request.loopId` would close by waiting for `request.dependsOn`, read from the record as it
 * stands (nothing is written): asked before a new loop's state is saved, so a refused loop leaves none.
 * `askForSlot` checks again under compare-and-swap.
 */
export async function cycleOf(request: Waiting, slots: Pick<SlotStore, 'update'>): Promise<string[] | null> {
  return slots.update([request.loopId, ...request.dependsOn], (record, statuses) => ({
    record,
    result: cycleInLine(record, request, statuses),
  }))
}

/**
 * The cycle `request` closes with the loops in line; none for a loop that holds a slot (it waits no more).
 * Dependencies read afresh replace the loop's own entry's, so only they can close one.
 */
function cycleInLine(
  record: SlotsRecord,
  request: Waiting & Pick<SlotRequest, 'replacesDependencies'>,
  statuses: Statuses,
): string[] | null {
  if (holdsSlot(record, request.loopId)) return null
  const inLine = request.replacesDependencies
    ? record.queued.filter((entry) => entry.loopId !== request.loopId)
    : record.queued
  return dependencyCycle(inLine, request, (loopId) => hasEnded(statuses.get(loopId)))
}

/** A loop still in line after a change, and where it stands. */
export interface InLine {
  loopId: string
  wait: QueueWait
}

/**
 * The job that ended or stopped `loopId` gives its slot back and starts the loops admitted in its
 * place, under its `max-loops` or, without one, the record's. Returns them, the loops still in line with
 * where each stands now (their comments are to say so: a new place, or a dependency that ended short of
 * COMPLETE), and where `loopId` itself stood in line when it left it (null when it was not in line: it
 * held a slot, or had no entry). The line is told only of a change: a slot or place given up, a loop
 * started, or `endedNow` (this job saved the loop's end, which a dependent's wait may name though the
 * loop had no entry); a job that found the loop ended long ago changes nothing of their waits.
 */
export async function giveBackSlot(
  loopId: string,
  limit: Limit,
  deps: SlotDeps,
  options: { endedNow?: boolean } = {},
): Promise<{ started: WaitingLoop[]; inLine: InLine[]; released: boolean; leftLine: QueueWait | null }> {
  const at = deps.clock.now().toISOString()
  const outcome = await deps.slots.update([loopId], (record, statuses) => {
    const under = limitUnder(record, limit)
    const leftLine = queueWait(record, loopId, statuses, under)
    const changed = releaseSlot(record, loopId, statuses, under, at)
    const told = changed.released || changed.started.length > 0 || leftLine !== null || options.endedNow === true
    const inLine = (told ? changed.record.queued : []).flatMap((entry) => {
      const wait = queueWait(changed.record, entry.loopId, statuses, under)
      return wait ? [{ loopId: entry.loopId, wait }] : []
    })
    const change = limitChange(record, limit)
    const result = { started: changed.started, released: changed.released, inLine, leftLine, change }
    return { record: stamped(changed.record, under), result }
  })
  if (outcome.change) deps.logger.warning(outcome.change)
  const { started } = await startAdmitted(outcome.started, limit, deps)
  return { started, inLine: outcome.inLine, released: outcome.released, leftLine: outcome.leftLine }
}

/**
 * Whether `loopId` still waits in the line as the record stands now (read, not written): a job telling
 * the loops in line their new place skips one that another job admitted meanwhile, whose comment says
 * it started. Comments have no compare-and-swap; this read narrows the window to the comment's write.
 */
export async function stillInLine(loopId: string, deps: Pick<SlotDeps, 'slots'>): Promise<boolean> {
  return deps.slots.update([], (record) => ({
    record,
    result: record.queued.some((entry) => entry.loopId === loopId),
  }))
}

/** The record with the limit it was changed under: what a sweeper without `max-loops` admits by. */
export function stamped(record: SlotsRecord, limit: Limit): SlotsRecord {
  return record.limit === limit ? record : { ...record, limit }
}

/**
 * Dispatches each admitted loop and records the run it started as the one that has its slot. One whose
 * dispatch fails goes back to the head of the line; one whose start is dropped leaves the line, and the
 * loops admitted in its place are started too. Returns those started, and those dropped with why.
 */
export async function startAdmitted(
  entries: readonly WaitingLoop[],
  limit: Limit,
  deps: SlotDeps,
): Promise<{ started: WaitingLoop[]; dropped: Array<{ loopId: string; why: string }> }> {
  const started: WaitingLoop[] = []
  const dropped: Array<{ loopId: string; why: string }> = []
  // Those admitted in place of a dropped start are pushed on, and the loop visits them too.
  const pending = [...entries]
  for (const admitted of pending) {
    let outcome: Awaited<ReturnType<StartLoop>>
    try {
      outcome = await deps.start(admitted)
    } catch (error) {
      const message = messageOf(error)
      deps.logger.warning(
        `Loop ${admitted.loopId} was admitted but its job could not be dispatched (${message}); it goes back to the head of the queue.`,
      )
      await deps.slots.update([], (record) => ({ record: requeue(record, admitted), result: undefined }))
      continue
    }
    if (typeof outcome === 'object') {
      deps.logger.info(`Loop ${admitted.loopId} leaves the line without starting: ${outcome.dropped}.`)
      dropped.push({ loopId: admitted.loopId, why: outcome.dropped })
      const at = deps.clock.now().toISOString()
      const next = await deps.slots.update([admitted.loopId], (record, statuses) => {
        const under = limitUnder(record, limit)
        const changed = releaseSlot(record, admitted.loopId, statuses, under, at)
        return { record: stamped(changed.record, under), result: changed.started }
      })
      pending.push(...next)
      continue
    }
    started.push(admitted)
    deps.logger.info(`Loop ${admitted.loopId} was admitted and its next job dispatched.`)
    if (outcome !== undefined) {
      const run = outcome
      await deps.slots
        .update([], (record) => ({ record: withHolderRun(record, admitted.loopId, run), result: undefined }))
        .catch((error: unknown) =>
          deps.logger.warning(
            `The run that starts loop ${admitted.loopId} is not recorded with its slot (${messageOf(error)}).`,
          ),
        )
    }
  }
  return { started, dropped }
}
