// Concurrency groups as GitHub keeps them: one running member per group; pending, one (a newer one
// cancelling the older, `queue: single`, GitHub's default) or up to 100 in order (`queue: max`; past
// that the new one is cancelled); `cancel-in-progress` interrupts the running one. Group names compare
// case-insensitively. A member is a whole run (workflow-level `concurrency:`) or one job.
import { type ExpressionContext, evaluateValue, interpolate } from './expressions.js'
import type { ConcurrencySpec } from './workflow-file.js'

/** GitHub keeps at most this many members pending in one group with `queue: max`. */
export const MAX_PENDING = 100

/** What the groups do with a member. */
export interface GroupMember {
  /** It may run now. */
  start(): void
  /** It was pending and is dropped. */
  cancel(reason: string): void
  /** It is running and a newer member asks it to stop (`cancel-in-progress`). */
  interrupt(reason: string): void
}

export interface GroupOptions {
  cancelInProgress: boolean
  queue?: 'single' | 'max'
}

/**
 * A `concurrency:` as a run or job enters its group: the group's name and `cancel-in-progress`, each
 * evaluated in `context`. GitHub refuses `queue: max` with `cancel-in-progress: true`, also when an
 * expression gives the true.
 */
export function resolveConcurrency(
  spec: ConcurrencySpec,
  context: ExpressionContext,
): { group: string; options: GroupOptions } {
  const cancel = evaluateValue(spec.cancelInProgress, context)
  if (typeof cancel !== 'boolean') {
    throw new Error(
      `concurrency.cancel-in-progress must be true or false; '${spec.cancelInProgress}' gave ${JSON.stringify(cancel)}`,
    )
  }
  if (spec.queue === 'max' && cancel) {
    throw new Error("concurrency: the combination of 'queue: max' and 'cancel-in-progress: true' is not allowed")
  }
  const options: GroupOptions = { cancelInProgress: cancel }
  if (spec.queue) options.queue = spec.queue
  return { group: interpolate(spec.group, context), options }
}

export class ConcurrencyGroups {
  private readonly groups = new Map<string, { running?: GroupMember; pending: GroupMember[] }>()

  /** Starts the member, or keeps it pending, or cancels it (a full queue); says which. */
  enter(name: string, member: GroupMember, options: GroupOptions): 'running' | 'pending' | 'cancelled' {
    const key = name.toLowerCase()
    const group = this.groups.get(key) ?? { pending: [] }
    this.groups.set(key, group)
    if (!group.running) {
      group.running = member
      member.start()
      return 'running'
    }
    const why = `Canceling since a higher priority waiting request for '${name}' exists`
    if (options.cancelInProgress) group.running.interrupt(why)
    if (options.queue === 'max') {
      if (group.pending.length >= MAX_PENDING) {
        member.cancel(`The queue of '${name}' is full (${MAX_PENDING} pending)`)
        return 'cancelled'
      }
    } else {
      for (const older of group.pending.splice(0)) older.cancel(why)
    }
    group.pending.push(member)
    return 'pending'
  }

  /** The member ended (or was dropped): the next pending one starts, unless `startNext` is false. */
  leave(name: string, member: GroupMember, startNext = true): void {
    const group = this.groups.get(name.toLowerCase())
    if (!group) return
    if (group.running === member) {
      group.running = undefined
      const next = group.pending.shift()
      if (next && startNext) {
        group.running = next
        next.start()
      }
    } else {
      group.pending = group.pending.filter((pending) => pending !== member)
    }
  }
}
