import { describe, expect, it } from 'vitest'
import { lostStateReason } from '../../../src/domain/lost-state.js'

describe('lostStateReason', () => {
  it.each([
    // store, dispatched, stored iteration, what the reason says (null: the iteration goes on)
    { store: 'auto', dispatched: undefined, stored: null, says: null },
    { store: 'auto', dispatched: 1, stored: null, says: null },
    { store: 'auto', dispatched: 4, stored: 3, says: null },
    { store: 'auto', dispatched: 4, stored: 5, says: null },
    {
      store: 'auto',
      dispatched: 4,
      stored: null,
      says: /^the state of iteration 3 was not found in the auto store: the cache entry was evicted .*`\/loop resume` restarts from iteration 4 with a fresh state/,
    },
    { store: 'artifact', dispatched: 2, stored: null, says: /artifact snapshot expired .* restarts from iteration 2/ },
    {
      store: 'artifact',
      dispatched: 5,
      stored: 2,
      says: /^the stored state is of iteration 2, but iteration 5 was dispatched: .*goes on from that older state with iteration 3$/,
    },
    { store: 'git', dispatched: 3, stored: null, says: /state branch no longer holds it/ },
    { store: 'cache', dispatched: 3, stored: 1, says: /cache entry was evicted/ },
  ])('$store store, iteration $dispatched dispatched, state at $stored', ({ store, dispatched, stored, says }) => {
    const reason = lostStateReason(store, dispatched, stored)
    if (says === null) expect(reason).toBeNull()
    else expect(reason).toMatch(says)
  })
})
