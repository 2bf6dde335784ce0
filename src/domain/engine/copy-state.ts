import type { LoopState } from '../state.js'

/**
 * A deep copy of the state for the engine to update in place. It copies by structure, not by a list
 * of fields, so a field added to the state later can never be shared with (and mutated through) the
 * state the caller still holds. The state is plain data, and compaction keeps it small.
 */
export function copyForUpdate(state: LoopState): LoopState {
  return structuredClone(state)
}
