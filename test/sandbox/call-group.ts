// The concurrency group of a job that calls a reusable workflow, as GitHub keeps it: taken when the
// calling job would start (its needs met, its `if:` true) and held until every job of the called
// workflow has ended, with the rules of any group (concurrency.ts). While the call waits, its jobs show
// as pending; dropped from the queue, they end cancelled; interrupted by a newer member
// (`cancel-in-progress`), the running ones are killed and the others never start.
import { type GroupMember, type GroupOptions, resolveConcurrency } from './concurrency.js'
import type { ExpressionContext } from './expressions.js'
import type { JobRecord } from './job-record.js'
import type { ConcurrencySpec } from './workflow-file.js'

/** One call's hold on its group, read by the jobs of the called workflow (and of the calls inside it). */
export interface CallHold {
  /** The group the call holds (or waits for), once it entered it. */
  group?: string
  /** Why the called workflow stops: a newer member of the group interrupted it. */
  haltReason?: string
}

export interface CallGroupHost {
  enterGroup(name: string, member: GroupMember, options: GroupOptions): 'running' | 'pending' | 'cancelled'
  leaveGroup(name: string, member: GroupMember): void
  cancel(record: JobRecord, reason: string): void
}

/** The call may run (release the group when its last job ended), or it was dropped from the queue. */
export type CallEntry = { release(): void } | { cancelled: string }

/**
 * Enters the calling job's group (its `concurrency:` evaluated in `context`). `records` lists the called
 * workflow's jobs so far; `heldAbove` the groups the enclosing calls hold (entering one again would never
 * start: GitHub cancels such a run as a deadlock).
 */
export function enterCallGroup(
  host: CallGroupHost,
  spec: ConcurrencySpec,
  context: ExpressionContext,
  hold: CallHold,
  records: () => JobRecord[],
  heldAbove: readonly string[],
): Promise<CallEntry> {
  const { group, options } = resolveConcurrency(spec, context)
  if (!group) return Promise.resolve({ release: () => {} })
  if (heldAbove.includes(group.toLowerCase())) throw new Error(deadlock(group))
  hold.group = group
  return new Promise((resolve) => {
    const member: GroupMember = {
      start: () => {
        for (const record of records()) if (record.status === 'pending') record.status = 'queued'
        resolve({ release: () => host.leaveGroup(group, member) })
      },
      cancel: (reason) => resolve({ cancelled: reason }),
      interrupt: (reason) => {
        hold.haltReason = reason
        for (const record of records()) if (record.status !== 'completed') host.cancel(record, reason)
      },
    }
    if (host.enterGroup(group, member, options) === 'pending') {
      for (const record of records()) {
        if (record.status !== 'queued') continue
        record.status = 'pending'
        record.concurrencyGroup = group
      }
    }
  })
}

/** GitHub's words when a job asks for a group a call above it holds. */
export function deadlock(group: string): string {
  return `Canceling since a deadlock for concurrency group '${group}' was detected between a calling job and a job of the workflow it calls`
}
