/**
 * Many loops at once: the repository's slots (`max-loops`) and the loops waiting for one, with their
 * dependencies (`depends-on`). The record (`queue.json` on the git store's branch) is changed only
 * through these rules, each a pure function from the record, the loops' statuses and the limit to the
 * new record; the store applies them under compare-and-swap, so two jobs that end at once cannot both
 * start the same loop.
 *
 * - A loop holds a slot from its admission until its state says it ended (COMPLETE, BLOCKED, capped,
 *   aborted): the job that ends it releases the slot, and a slot whose holder's state says it ended is
 *   freed by the next change of the record. A holder records the run that has it (`run`), so the
 *   sweeper can free a slot whose job died with the state still `running` (`domain/slot-sweep.ts`).
 * - A loop aborted while its iteration still runs keeps its slot (`stopping`) until that job ends.
 * - Who is next: the oldest queued loop whose dependencies are all COMPLETE. A queued loop is admitted
 *   when it is chosen (it holds the slot before its job starts), so a newcomer cannot take the slot
 *   between the release and the dispatched job.
 * - A dependency that ended short of COMPLETE keeps its dependents queued and is reported.
 */
import { z } from 'zod'
import type { LoopStatus } from './stages.js'

/** The highest `max-loops` the input takes. */
export const MAX_LOOPS_LIMIT = 1000

/** A loop that holds a slot since `since` (ISO time). */
export interface SlotHolder {
  loopId: string
  since: string
  /** The workflow run that has the loop now: the job that holds the slot, or the run dispatched to start it. */
  run?: string
  /** Where its first job is dispatched again, should that job never start it (the sweeper's restart). */
  workflow?: string
  ref?: string
  /** Aborted while its iteration still runs: the slot is freed when that job ends, not before. */
  stopping?: true
}

/** A loop waiting for a slot or for its dependencies, with where its next job is dispatched. */
export interface WaitingLoop {
  loopId: string
  since: string
  /** The loops it waits for (each must be COMPLETE). */
  dependsOn: string[]
  /** The workflow file and ref its job is dispatched on when it is admitted. */
  workflow: string
  ref: string
}

export interface SlotsRecord {
  running: SlotHolder[]
  queued: WaitingLoop[]
  /** The `max-loops` of the last change (null: none), so a sweeper without the input admits under it. */
  limit?: Limit
}

export const EMPTY_SLOTS: SlotsRecord = { running: [], queued: [] }

/** Whether `loopId` holds a slot in the record as stored (admitted, and no change has freed it yet). */
export function holdsSlot(record: SlotsRecord, loopId: string): boolean {
  return record.running.some((holder) => holder.loopId === loopId)
}

/** The statuses of the loops the record names (absent: the loop has no state yet). */
export type Statuses = ReadonlyMap<string, LoopStatus>

/** `max-loops`: null means no limit (dependencies alone queue a loop). */
export type Limit = number | null

/**
 * The limit a change of the record is made under: the job's own `max-loops`, else the one the record was
 * last changed under. A workflow without the input (one that only runs the loops another admits) never
 * lifts the limit; only an explicit value changes it.
 */
export function limitUnder(record: Pick<SlotsRecord, 'limit'>, asked: Limit): Limit {
  return asked ?? record.limit ?? null
}

/**
 * What a job whose `max-loops` differs from the one the record was last changed under is told (it changes
 * the limit for every loop), or null when they agree, or either says nothing.
 */
export function limitChange(record: Pick<SlotsRecord, 'limit'>, asked: Limit): string | null {
  const recorded = record.limit ?? null
  if (asked === null || recorded === null || asked === recorded) return null
  return (
    `max-loops is ${asked} in this job, but queue.json was last changed under max-loops ${recorded} (another workflow sets a different value); ` +
    `the limit is ${asked} from now on. Set the same max-loops in every workflow that runs these loops.`
  )
}

const ENDED: readonly LoopStatus[] = ['complete', 'blocked', 'capped', 'aborted']

export function hasEnded(status: LoopStatus | undefined): boolean {
  return status !== undefined && ENDED.includes(status)
}

/** A dependency that ended short of COMPLETE. */
export interface EndedShort {
  loopId: string
  status: LoopStatus
}

export interface DependencyWait {
  /** Not COMPLETE yet and not ended: still running, queued or not started. */
  pending: string[]
  endedShort: EndedShort[]
  /** Those of `pending` with no state at all: no loop was ever started for them (absent: none known). */
  noLoop?: string[]
}

export function dependencyWait(dependsOn: readonly string[], statuses: Statuses): DependencyWait {
  const pending: string[] = []
  const endedShort: EndedShort[] = []
  const noLoop: string[] = []
  for (const loopId of dependsOn) {
    const status = statuses.get(loopId)
    if (status === 'complete') continue
    if (status !== undefined && hasEnded(status)) endedShort.push({ loopId, status })
    else pending.push(loopId)
    if (status === undefined) noLoop.push(loopId)
  }
  return { pending, endedShort, noLoop }
}

function ready(entry: WaitingLoop, statuses: Statuses): boolean {
  return entry.dependsOn.every((loopId) => statuses.get(loopId) === 'complete')
}

function hasRoom(record: SlotsRecord, limit: Limit): boolean {
  return limit === null || record.running.length < limit
}

export interface Settled {
  record: SlotsRecord
  /** Queued loops admitted by this change: their jobs are to be dispatched. */
  started: WaitingLoop[]
  /** Holders freed because their state says they ended. */
  freed: string[]
}

/**
 * Frees the slots of holders that ended and the queue entries of loops that ended (an aborted queued
 * loop), then admits the oldest ready queued loops while there is room.
 */
export function settle(record: SlotsRecord, statuses: Statuses, limit: Limit, at: string): Settled {
  // A stopping holder's job still runs its iteration: its slot is freed when that job ends.
  const freed = record.running
    .filter((holder) => !holder.stopping && hasEnded(statuses.get(holder.loopId)))
    .map((h) => h.loopId)
  let running = record.running.filter((holder) => !freed.includes(holder.loopId))
  const queued: WaitingLoop[] = []
  const started: WaitingLoop[] = []
  for (const entry of record.queued) {
    if (hasEnded(statuses.get(entry.loopId)) || running.some((holder) => holder.loopId === entry.loopId)) continue
    if (ready(entry, statuses) && hasRoom({ running, queued }, limit)) {
      running = [...running, { loopId: entry.loopId, since: at, workflow: entry.workflow, ref: entry.ref }]
      started.push(entry)
    } else queued.push(entry)
  }
  return { record: { ...record, running, queued }, started, freed }
}

export interface SlotRequest {
  loopId: string
  dependsOn: readonly string[]
  workflow: string
  ref: string
  at: string
  /**
   * The loop has run before and never gave its slot back (its state is past its first iteration and
   * neither queued nor ended, and no person resumed it from an end): it is admitted whatever the limit,
   * because queueing it halfway would strand its work. A loop resumed after BLOCKED or the cap gave its
   * slot back when it ended, and queues like a new one.
   */
  started: boolean
  /** The workflow run of the job asking: recorded as the run that has the slot. */
  run?: string
  /**
   * `dependsOn` was read afresh (a start that read the issue body): it replaces the list the loop was
   * queued with, so an edited line drops what it no longer names. Otherwise (a dispatched job, which
   * carries no body) it adds to that list.
   */
  replacesDependencies?: boolean
}

export type SlotVerdict = { kind: 'admitted'; reason: string } | { kind: 'queued'; wait: QueueWait }

/** Why a queued loop waits, its place in line, and what happens next. */
export interface QueueWait {
  /** 1-based place among the queued loops. */
  position: number
  queued: number
  /** Loops holding a slot, and the limit. */
  running: number
  limit: Limit
  dependencies: DependencyWait
  /** True when the loop's dependencies are met and it waits for a slot only. */
  slotOnly: boolean
  /**
   * Loops ahead of it in line that can start (their dependencies COMPLETE): a freed slot goes to those
   * first, and passes over the ones ahead still waiting for their dependencies.
   */
  ahead?: number
}

/**
 * A job of `request.loopId` asks to run. Admitted when it holds a slot already, or its dependencies
 * are COMPLETE and there is room once every older ready loop is served; queued otherwise (an entry it
 * already has keeps its place). `started` lists the older loops this change admitted.
 */
export function requestSlot(
  record: SlotsRecord,
  request: SlotRequest,
  statuses: Statuses,
  limit: Limit,
): Settled & { verdict: SlotVerdict } {
  const settled = settle(record, statuses, limit, request.at)
  const started = settled.started.filter((entry) => entry.loopId !== request.loopId)
  let { running, queued } = settled.record
  if (running.some((holder) => holder.loopId === request.loopId)) {
    // The job asking has the loop now: its run is the one the sweeper asks GitHub about.
    const record =
      request.run === undefined ? settled.record : withHolderRun(settled.record, request.loopId, request.run)
    return { ...settled, record, started, verdict: { kind: 'admitted', reason: 'it holds a slot' } }
  }
  const before = queued.find((waiting) => waiting.loopId === request.loopId)
  // A dispatched job carries no issue body: the dependencies the loop was queued with still hold.
  const kept = request.replacesDependencies ? [] : (before?.dependsOn ?? [])
  const dependsOn = [...new Set([...kept, ...request.dependsOn])]
  const dependencies = dependencyWait(dependsOn, statuses)
  const depsMet = dependencies.pending.length === 0 && dependencies.endedShort.length === 0
  if (depsMet && (request.started || hasRoom(settled.record, limit))) {
    const holder: SlotHolder = {
      loopId: request.loopId,
      since: request.at,
      ...(request.run !== undefined ? { run: request.run } : {}),
      ...(request.workflow && request.ref ? { workflow: request.workflow, ref: request.ref } : {}),
    }
    running = [...running, holder]
    queued = queued.filter((entry) => entry.loopId !== request.loopId)
    const reason = request.started
      ? 'it was running before it asked for a slot'
      : limit === null
        ? 'its dependencies are COMPLETE'
        : `a slot is free (${running.length} of ${limit} in use)`
    const record = { ...settled.record, running, queued }
    return { record, started, freed: settled.freed, verdict: { kind: 'admitted', reason } }
  }
  const entry: WaitingLoop = {
    loopId: request.loopId,
    since: request.at,
    dependsOn,
    workflow: request.workflow,
    ref: request.ref,
  }
  const index = queued.findIndex((waiting) => waiting.loopId === request.loopId)
  // A loop queued before keeps its place and since; where it runs is the latest word.
  queued =
    index === -1
      ? [...queued, entry]
      : queued.map((waiting, i) => (i === index ? { ...entry, since: waiting.since } : waiting))
  const next = { ...settled.record, running, queued }
  return {
    record: next,
    started,
    freed: settled.freed,
    verdict: { kind: 'queued', wait: queueWait(next, request.loopId, statuses, limit) as QueueWait },
  }
}

/**
 * The job that ended or stopped `loopId` gives its slot back (and its queue entry, when it was aborted
 * while queued); the oldest ready loops are admitted in its place.
 */
export function releaseSlot(
  record: SlotsRecord,
  loopId: string,
  statuses: Statuses,
  limit: Limit,
  at: string,
): Settled & { released: boolean } {
  const released =
    record.running.some((holder) => holder.loopId === loopId) || record.queued.some((entry) => entry.loopId === loopId)
  const without: SlotsRecord = {
    ...record,
    running: record.running.filter((holder) => holder.loopId !== loopId),
    queued: record.queued.filter((entry) => entry.loopId !== loopId),
  }
  return { ...settle(without, statuses, limit, at), released }
}

/** A loop admitted whose job could not be dispatched goes back to the head of the line. */
export function requeue(record: SlotsRecord, entry: WaitingLoop): SlotsRecord {
  return {
    ...record,
    running: record.running.filter((holder) => holder.loopId !== entry.loopId),
    queued: [entry, ...record.queued.filter((waiting) => waiting.loopId !== entry.loopId)],
  }
}

/** The record with `run` as the run that has `loopId`'s slot (unchanged when it holds none). */
export function withHolderRun(record: SlotsRecord, loopId: string, run: string): SlotsRecord {
  if (!record.running.some((holder) => holder.loopId === loopId && holder.run !== run)) return record
  return {
    ...record,
    running: record.running.map((holder) => (holder.loopId === loopId ? { ...holder, run } : holder)),
  }
}

/** The record with `loopId`'s slot kept for the job still running its aborted iteration. */
export function markStopping(record: SlotsRecord, loopId: string): SlotsRecord {
  return {
    ...record,
    running: record.running.map((holder) =>
      holder.loopId === loopId ? { ...holder, stopping: true as const } : holder,
    ),
  }
}

/** Where a queued loop stands, or null when it is not queued. */
export function queueWait(record: SlotsRecord, loopId: string, statuses: Statuses, limit: Limit): QueueWait | null {
  const index = record.queued.findIndex((entry) => entry.loopId === loopId)
  const entry = record.queued[index]
  if (!entry) return null
  const dependencies = dependencyWait(entry.dependsOn, statuses)
  // As `settle` serves the line: an ended entry leaves it, one not ready is passed over.
  const ahead = record.queued
    .slice(0, index)
    .filter((before) => !hasEnded(statuses.get(before.loopId)) && ready(before, statuses)).length
  return {
    ahead,
    position: index + 1,
    queued: record.queued.length,
    running: record.running.length,
    limit,
    dependencies,
    slotOnly: dependencies.pending.length === 0 && dependencies.endedShort.length === 0,
  }
}

/** Every loop id the record names, with the given dependencies: whose statuses a change needs. */
export function loopsNamed(record: SlotsRecord, extra: readonly string[] = []): string[] {
  const ids = [
    ...record.running.map((holder) => holder.loopId),
    ...record.queued.flatMap((entry) => [entry.loopId, ...entry.dependsOn]),
    ...extra,
  ]
  return [...new Set(ids)]
}

/** Checks the record's invariants: no more holders than the limit allows (`started` loops aside), none twice. */
export function slotProblems(record: SlotsRecord): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  for (const holder of record.running) {
    if (seen.has(holder.loopId)) problems.push(`${holder.loopId} holds two slots`)
    seen.add(holder.loopId)
  }
  for (const entry of record.queued) {
    if (seen.has(entry.loopId)) problems.push(`${entry.loopId} is both running and queued, or queued twice`)
    seen.add(entry.loopId)
  }
  return problems
}

const isoTime = z.string().min(1)
const loopIdSchema = z.string().min(1).max(200)

/** `queue.json` as stored; anything else is refused (the store names the file). */
export const slotsRecordSchema = z.strictObject({
  running: z.array(
    z.strictObject({
      loopId: loopIdSchema,
      since: isoTime,
      run: z.string().min(1).max(40).optional(),
      workflow: z.string().min(1).optional(),
      ref: z.string().min(1).optional(),
      stopping: z.literal(true).optional(),
    }),
  ),
  queued: z.array(
    z.strictObject({
      loopId: loopIdSchema,
      since: isoTime,
      dependsOn: z.array(loopIdSchema).max(10),
      workflow: z.string().min(1),
      ref: z.string().min(1),
    }),
  ),
  limit: z.number().int().positive().max(MAX_LOOPS_LIMIT).nullable().optional(),
})

/** The record in `text`, or a message that says what is wrong with it. */
export function parseSlotsRecord(text: string): { record: SlotsRecord } | { problem: string } {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return { problem: `it is not JSON (${error instanceof Error ? error.message : String(error)})` }
  }
  const parsed = slotsRecordSchema.safeParse(raw)
  if (parsed.success) return { record: parsed.data }
  const issue = parsed.error.issues[0]
  return { problem: `${issue?.path.join('.') || '(the whole record)'}: ${issue?.message ?? 'invalid'}` }
}
