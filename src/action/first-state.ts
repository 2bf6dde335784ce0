/**
 * The first state of a loop the event starts, saved by whichever job gets there first: a loop queued
 * for its slot (`slots.ts`) and fan-out's decide recording a start (`fan-out-decide.ts`) both save one,
 * and a job that loses the race goes on with the state the other saved.
 */
import { taskOfEvent } from '../domain/action-event.js'
import { initialState } from '../domain/engine/index.js'
import type { LoopConfig } from '../domain/loop-config.js'
import { policyFromConfig } from '../domain/policy.js'
import type { LoopState } from '../domain/state.js'
import { type Loaded, type Store, StoreConflictError } from '../ports/store.js'
import type { RunContext } from './run-context.js'

/** The loop's first state: the config's goal and policy, the event's issue (or comment) as its task. */
export function firstState(
  event: Pick<RunContext['event'], 'name' | 'payload'>,
  input: { loopId: string; config: LoopConfig },
  now: Date,
): LoopState {
  return initialState({
    loopId: input.loopId,
    goal: input.config.goal,
    task: taskOfEvent(event.name, event.payload),
    policy: policyFromConfig(input.config),
    now,
  })
}

/**
 * Saves `state` as the loop's first; when another job saved one first, that one is the loop's. Null
 * only when that one is gone again by the time it is read.
 */
export async function saveFirstState(store: Store, loopId: string, state: LoopState): Promise<Loaded | null> {
  try {
    return { state, version: await store.save(loopId, state, null) }
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error
    return store.load(loopId)
  }
}
