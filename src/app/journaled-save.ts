/**
 * A save and the journey events it records, as one: the events are staged under the state's marker
 * before the save and committed after it, so a job lost in between leaves them to be committed by the
 * next load (`recoverPending`) exactly when the save landed, and never for a save that did not.
 */
import type { JourneyEvent } from '../domain/journey.js'
import type { LoopState } from '../domain/state.js'
import type { AuditLog } from '../ports/audit.js'
import type { Store, StoreVersion } from '../ports/store.js'
import { savedMarker } from './iteration/record.js'

export async function saveWithEvents(
  loopId: string,
  state: LoopState,
  events: readonly JourneyEvent[],
  expected: StoreVersion | null,
  deps: { store: Store; audit: Pick<AuditLog, 'stagePending' | 'commitPending' | 'discardPending'> },
  /** Writes what belongs in the trail with this save, after the events are staged and before it. */
  beforeSave: (state: LoopState) => Promise<void> = async () => {},
): Promise<StoreVersion> {
  const marker = savedMarker(state)
  await deps.audit.stagePending(marker, events)
  let version: StoreVersion
  try {
    await beforeSave(state)
    version = await deps.store.save(loopId, state, expected)
  } catch (error) {
    await deps.audit.discardPending(marker)
    throw error
  }
  await deps.audit.commitPending(marker)
  return version
}
