import type { SlotsRecord, Statuses } from '../domain/slots.js'

/** What a change of the slots record decided: the new record, and what the caller learns from it. */
export interface SlotChange<T> {
  record: SlotsRecord
  result: T
}

/**
 * Where the repository's slots record lives (`queue.json` on the git store's branch). Every change is
 * a compare-and-swap: `update` reads the record and the statuses of the loops it needs at one version,
 * applies `change`, and writes the result only if the record is still that version; when another job
 * wrote first, `change` runs again on what it wrote. So a loop is admitted by one change only.
 */
export interface SlotStore {
  /** Where a person can look at the record. */
  describe(): string
  /**
   * Applies `change` under compare-and-swap. `loops` names the loops whose statuses `change` needs
   * besides those the record names. A record that `change` leaves equal is not written.
   */
  update<T>(loops: readonly string[], change: (record: SlotsRecord, statuses: Statuses) => SlotChange<T>): Promise<T>
}

/** Thrown when the record kept moving through every retry: nothing was changed. */
export class SlotStoreBusyError extends Error {
  override name = 'SlotStoreBusyError'
}
