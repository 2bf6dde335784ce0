// A change to another job's loop saved on its latest state: a save that lost a race loads again and
// applies the change to what the other job saved; a few lost races in a row throw the conflict.
import { describe, expect, it } from 'vitest'
import { saveOnLatest } from '../../../src/action/save-on-latest.js'
import type { LoopState } from '../../../src/domain/state.js'
import { type Store, StoreConflictError } from '../../../src/ports/store.js'
import { loopState, memoryStore } from './fakes.js'

/** A store where another job saves the loop (its reason `by another job N`) just before each of the first `races` saves. */
function racedStore(races: number): Store & { saved: LoopState[] } {
  const store = memoryStore({ l1: loopState({ status: 'queued', statusReason: 'waiting' }) })
  let raced = 0
  return {
    ...store,
    save: async (loopId, state, expected) => {
      const latest = await store.load(loopId)
      if (raced < races && latest) {
        raced++
        await store.save(loopId, { ...latest.state, statusReason: `by another job ${raced}` }, latest.version)
      }
      return store.save(loopId, state, expected)
    },
  }
}

const toRunning = (latest: LoopState): LoopState | null =>
  latest.status === 'queued' ? { ...latest, status: 'running' } : null

describe('saveOnLatest', () => {
  it.each([
    { races: 0, reason: 'waiting' },
    { races: 1, reason: 'by another job 1' },
    { races: 2, reason: 'by another job 2' },
  ])('saves on the latest state after $races lost race(s)', async ({ races, reason }) => {
    const store = racedStore(races)
    const stored = await saveOnLatest(store, 'l1', toRunning)
    expect(stored).toMatchObject({ saved: true, state: { status: 'running', statusReason: reason } })
    expect((await store.load('l1'))?.state).toEqual(stored?.state)
    expect((await store.load('l1'))?.version).toBe(stored?.version)
  })

  it('throws the conflict after three lost races', async () => {
    await expect(saveOnLatest(racedStore(3), 'l1', toRunning)).rejects.toBeInstanceOf(StoreConflictError)
  })

  it('leaves a state the change does not apply to, and returns it as stored', async () => {
    const store = memoryStore({ l1: loopState({ status: 'complete' }) })
    const stored = await saveOnLatest(store, 'l1', toRunning)
    expect(stored).toMatchObject({ saved: false, version: '1', state: { status: 'complete' } })
    expect(store.saved).toEqual([])
  })

  it('is null for a loop without a state', async () => {
    expect(await saveOnLatest(memoryStore(), 'l1', toRunning)).toBeNull()
  })
})
