/**
 * A change to a loop this job does not run (a queued loop's status, a closed issue's loop stopped), saved
 * on the loop's latest state: the loop's own jobs and people's commands save beside it, so a conflict
 * loads the state again and applies the change anew, a few times before the conflict is thrown.
 */
import type { LoopState } from '../domain/state.js'
import { type Loaded, type Store, StoreConflictError } from '../ports/store.js'

const SAVE_ATTEMPTS = 3

/**
 * Saves `change` of the loop's latest state under compare-and-swap. `change` returns null to leave the
 * state as it is (a loop that moved on meanwhile). Returns what is stored now and whether this call
 * saved it; null when the loop has no state.
 */
export async function saveOnLatest(
  store: Pick<Store, 'load' | 'save'>,
  loopId: string,
  change: (latest: LoopState) => LoopState | null,
): Promise<(Loaded & { saved: boolean }) | null> {
  for (let attempt = 1; ; attempt++) {
    const loaded = await store.load(loopId)
    if (!loaded) return null
    const state = change(loaded.state)
    if (state === null) return { ...loaded, saved: false }
    try {
      return { state, version: await store.save(loopId, state, loaded.version), saved: true }
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt >= SAVE_ATTEMPTS) throw error
    }
  }
}
