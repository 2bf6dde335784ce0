/**
 * The one contract every `Store` keeps, as a suite any store's test file runs with
 * `runStoreContract(name, setup)`. The harness gives stores acting as separate writers (jobs) and a way
 * to put raw text where the store keeps a loop's newest state through the store's own medium (a cache
 * entry, an artifact, a commit, a file), never through `Store.save`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  StateFromTheFutureError,
  StateQuarantinedError,
  type Store,
  StoreConflictError,
} from '../../../src/ports/store.js'
import { futureStateText, makeState, WRONG_SHAPE } from './fixtures.js'

export interface StoreHarness {
  /** A store acting as writer `writer` (think: a job on its own runner). */
  store(writer?: string): Promise<Store>
  /** Puts `text` as the loop's newest stored state, through the store's medium (not `Store.save`). */
  plant(loopId: string, text: string): Promise<void>
  /** Reads the bad data kept at a `StateQuarantinedError`'s `quarantinedAt`. */
  readQuarantined(quarantinedAt: string): Promise<string>
  close?(): Promise<void>
}

let loopCounter = 0
/** A loop id no other test of this process uses. */
export function freshLoopId(label: string): string {
  loopCounter++
  return `${label}-${process.pid}-${loopCounter}`
}

async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise }
  } catch (error) {
    return { ok: false, error }
  }
}

/** Registers the contract suite for one store. */
export function runStoreContract(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`Store contract: ${name}`, () => {
    let harness: StoreHarness
    beforeAll(async () => {
      harness = await setup()
    })
    afterAll(async () => {
      await harness?.close?.()
    })

    it('loads null for a loop that has no state', async () => {
      const store = await harness.store()
      expect(await store.load(freshLoopId('empty'))).toBeNull()
    })

    it('saves with expectedVersion null, then loads that state and its version', async () => {
      const store = await harness.store()
      const loopId = freshLoopId('first')
      const version = await store.save(loopId, makeState(loopId, 1), null)
      expect(typeof version).toBe('string')
      const loaded = await store.load(loopId)
      expect(loaded?.version).toBe(version)
      expect(loaded?.state).toEqual(makeState(loopId, 1))
      const second = await store.save(loopId, makeState(loopId, 2), version)
      expect(second).not.toBe(version)
      const again = await store.load(loopId)
      expect(again?.state.iteration).toBe(2)
      expect(again?.version).toBe(second)
      expect(store.describe(loopId).length).toBeGreaterThan(0)
    })

    it('refuses a writer with a stale version, and keeps the newer state', async () => {
      const [alice, bob] = [await harness.store('alice'), await harness.store('bob')]
      const loopId = freshLoopId('stale')
      const v1 = await alice.save(loopId, makeState(loopId, 1), null)
      const v2 = await alice.save(loopId, makeState(loopId, 2, 'alice'), v1)
      await expect(bob.save(loopId, makeState(loopId, 2, 'bob'), v1)).rejects.toBeInstanceOf(StoreConflictError)
      await expect(bob.save(loopId, makeState(loopId, 2, 'bob'), null)).rejects.toBeInstanceOf(StoreConflictError)
      const loaded = await bob.load(loopId)
      expect(loaded?.version).toBe(v2)
      expect(loaded?.state.goal).toBe('alice')
    })

    it('lets exactly one of two concurrent writers win, iteration after iteration', async () => {
      const [alice, bob] = [await harness.store('alice'), await harness.store('bob')]
      const loopId = freshLoopId('race')
      let version = await alice.save(loopId, makeState(loopId, 1), null)
      for (let iteration = 2; iteration <= 4; iteration++) {
        const [a, b] = await Promise.all([
          settle(alice.save(loopId, makeState(loopId, iteration, 'alice'), version)),
          settle(bob.save(loopId, makeState(loopId, iteration, 'bob'), version)),
        ])
        const winners = [a, b].filter((outcome) => outcome.ok)
        const losers = [a, b].filter((outcome) => !outcome.ok)
        expect(winners).toHaveLength(1)
        expect(losers).toHaveLength(1)
        expect((losers[0] as { error: unknown }).error).toBeInstanceOf(StoreConflictError)
        const loaded = await alice.load(loopId)
        expect(loaded?.version).toBe((winners[0] as { value: string }).value)
        expect(loaded?.state.goal).toBe(a.ok ? 'alice' : 'bob')
        version = loaded!.version
      }
    })

    it('quarantines a stored state of the wrong shape, keeps it, and refuses to save until reset', async () => {
      const store = await harness.store()
      const loopId = freshLoopId('bad')
      const v1 = await store.save(loopId, makeState(loopId, 1), null)
      await harness.plant(loopId, WRONG_SHAPE)
      const error = await store.load(loopId).then(
        () => null,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(StateQuarantinedError)
      const quarantinedAt = (error as StateQuarantinedError).quarantinedAt
      expect(await harness.readQuarantined(quarantinedAt)).toContain('"three"')
      // Loading again still refuses: the bad state is never silently replaced.
      await expect(store.load(loopId)).rejects.toBeInstanceOf(StateQuarantinedError)
      await expect(store.save(loopId, makeState(loopId, 2), v1)).rejects.toThrow()
      await expect(store.save(loopId, makeState(loopId, 2), null)).rejects.toThrow()
      await store.reset(loopId)
      expect(await store.load(loopId)).toBeNull()
      const fresh = await store.save(loopId, makeState(loopId, 5, 'fresh'), null)
      const loaded = await store.load(loopId)
      expect(loaded?.version).toBe(fresh)
      expect(loaded?.state.goal).toBe('fresh')
      expect(await harness.readQuarantined(quarantinedAt)).toContain('"three"')
    })

    it('quarantines text that is not JSON at all', async () => {
      const store = await harness.store()
      const loopId = freshLoopId('garbage')
      await harness.plant(loopId, '{"schemaVersion": 1, "loopId": ')
      await expect(store.load(loopId)).rejects.toBeInstanceOf(StateQuarantinedError)
    })

    it('refuses a state from a newer schema version without quarantining it', async () => {
      const store = await harness.store()
      const loopId = freshLoopId('future')
      await harness.plant(loopId, futureStateText(loopId))
      const error = await store.load(loopId).then(
        () => null,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(StateFromTheFutureError)
      expect((error as Error).message).toMatch(/schemaVersion 2.*newer release/)
      await expect(store.load(loopId)).rejects.toBeInstanceOf(StateFromTheFutureError)
      await expect(store.save(loopId, makeState(loopId, 1), null)).rejects.toThrow()
    })

    it('keeps loops apart, even when one id is a prefix of another', async () => {
      const store = await harness.store()
      const base = freshLoopId('prefix')
      const longer = `${base}-b`
      await store.save(base, makeState(base, 1), null)
      expect(await store.load(longer)).toBeNull()
      await store.save(longer, makeState(longer, 7), null)
      expect((await store.load(base))?.state.iteration).toBe(1)
      expect((await store.load(longer))?.state.iteration).toBe(7)
    })

    it('refuses to save a state that belongs to another loop or does not validate', async () => {
      const store = await harness.store()
      const loopId = freshLoopId('wrong')
      await expect(store.save(loopId, makeState('someone-else', 1), null)).rejects.toThrow(/belongs to loop/)
      const broken = { ...makeState(loopId, 1), iteration: -1 }
      await expect(store.save(loopId, broken, null)).rejects.toThrow(/invalid/)
      expect(await store.load(loopId)).toBeNull()
    })
  })
}
