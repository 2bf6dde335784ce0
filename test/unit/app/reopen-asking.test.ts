// A job given a cap that re-opens a capped loop, where the loop must ask for a slot first (`max-loops`,
// `depends-on`): the raised cap and the loop `queued`, asking for a slot, are saved in one save with their
// journey events, so the job that admits it later runs it under the raised cap. A cap that re-opens
// nothing saves nothing.
import { describe, expect, it } from 'vitest'
import { reopenAskingForSlot } from '../../../src/app/reopen-asking.js'
import { ASKING_FOR_SLOT } from '../../../src/domain/slot-sweep.js'
import type { LoopState } from '../../../src/domain/state.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { fixedClock, loopState, memoryStore } from '../action/fakes.js'
import { MemoryAudit } from './iteration-fakes.js'

/** A loop its iteration cap capped after `ran` iterations of `cap`. */
function capped(ran: number, cap: number, limit: 'iterations' | 'minutes' = 'iterations'): LoopState {
  return loopState({
    status: 'capped',
    statusReason: `the ${limit} limit is reached`,
    iteration: ran,
    claimedIteration: ran,
    maxIterations: cap,
    lastDecision: { kind: 'CAP_REACHED', limit, reason: `the ${limit} limit is reached` },
  })
}

describe('a capped loop re-opened by a higher cap, asking for a slot', () => {
  it('saves the raised cap and the loop queued, asking, with the journey of both', async () => {
    const store = memoryStore({ l1: capped(2, 2) })
    const audit = new MemoryAudit()
    const returned = await reopenAskingForSlot({ loopId: 'l1', cap: 5 }, { store, clock: fixedClock, audit })
    const saved = { status: 'queued', statusReason: ASKING_FOR_SLOT, maxIterations: 5, iteration: 2 }
    expect(returned).toMatchObject(saved)
    expect((await store.load('l1'))?.state).toMatchObject(saved)
    expect(store.saved).toHaveLength(1)
    expect(audit.journey.map((event) => [event.type, event.data])).toEqual([
      ['cap-changed', { from: 2, to: 5 }],
      ['resumed', { reopened: true, cap: 5 }],
    ])
  })

  it.each<{ name: string; state: LoopState | undefined; cap: number }>([
    { name: 'a cap not above the iterations run', state: capped(2, 2), cap: 2 },
    { name: 'a loop a budget capped', state: capped(2, 10, 'minutes'), cap: 20 },
    { name: 'a loop not capped', state: loopState({ status: 'running', iteration: 2, maxIterations: 2 }), cap: 5 },
    { name: 'no loop', state: undefined, cap: 5 },
  ])('$name: nothing saved', async ({ state, cap }) => {
    const store = memoryStore(state ? { l1: state } : {})
    const audit = new MemoryAudit()
    expect(await reopenAskingForSlot({ loopId: 'l1', cap }, { store, clock: fixedClock, audit })).toBeNull()
    expect(store.saved).toEqual([])
    expect(audit.journey).toEqual([])
  })

  it('gives the cap again to what another job saved meanwhile', async () => {
    const store = memoryStore({ l1: capped(2, 2) })
    const save = store.save.bind(store)
    let conflicts = 1
    store.save = async (loopId, state, expected) => {
      if (conflicts-- > 0) {
        // Another dispatch's job re-opened it first: it is asking already, and this cap re-opens nothing.
        await save(loopId, { ...state, maxIterations: 4 }, expected)
        throw new StoreConflictError(`loop ${loopId} moved`)
      }
      return save(loopId, state, expected)
    }
    const audit = new MemoryAudit()
    expect(await reopenAskingForSlot({ loopId: 'l1', cap: 5 }, { store, clock: fixedClock, audit })).toBeNull()
    expect((await store.load('l1'))?.state).toMatchObject({ status: 'queued', maxIterations: 4 })
  })
})
