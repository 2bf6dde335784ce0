/**
 * A job given a higher cap re-opens a capped loop (a dispatch's `max-iterations`); where the loop must ask
 * for a slot before it runs (`max-loops`, `depends-on`) it asks as a resume does. The raised cap and the
 * loop `queued`, asking for a slot, are saved together, so the job that later admits it from the line
 * (dispatched with no cap) runs it under the raised one, and a job that fails before the loop has its
 * slot leaves it where the sweeper sees it, never `running` with no job.
 */
import { capReopens, changeCap, reopenIfCapRaised } from '../domain/engine/index.js'
import { askingForSlot } from '../domain/slot-sweep.js'
import type { LoopState } from '../domain/state.js'
import type { AuditLog } from '../ports/audit.js'
import type { Clock } from '../ports/clock.js'
import { type Store, StoreConflictError } from '../ports/store.js'
import { saveWithEvents } from './journaled-save.js'

export interface ReopenAskingDeps {
  store: Store
  clock: Clock
  audit: Pick<AuditLog, 'stagePending' | 'commitPending' | 'discardPending'>
}

/**
 * Saves the loop re-opened by `cap` and asking for a slot (compare-and-swap, with the cap's and the
 * re-opening's journey events). Returns the saved state, or null where the cap re-opens nothing (no loop,
 * one not capped by its iteration cap, or a cap not above the iterations run): saved as it was.
 */
export async function reopenAskingForSlot(
  input: { loopId: string; cap: number },
  deps: ReopenAskingDeps,
): Promise<LoopState | null> {
  // Another job may save between this load and this save: the cap is given again to what it saved.
  for (let attempt = 1; ; attempt++) {
    try {
      return await reopenOnce(input, deps)
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt >= CONFLICT_ATTEMPTS) throw error
    }
  }
}

const CONFLICT_ATTEMPTS = 5

async function reopenOnce(input: { loopId: string; cap: number }, deps: ReopenAskingDeps): Promise<LoopState | null> {
  const loaded = await deps.store.load(input.loopId)
  if (!loaded || !capReopens(loaded.state, input.cap)) return null
  const now = deps.clock.now()
  const changed = changeCap(loaded.state, input.cap, now)
  const reopened = reopenIfCapRaised(changed.state, now)
  const state = askingForSlot(reopened.state)
  await saveWithEvents(input.loopId, state, [...changed.events, ...reopened.events], loaded.version, deps)
  return state
}
