// The sweeper over a store: it re-dispatches only the loops left without a successor, records what it
// did with compare-and-swap, and two sweepers at once dispatch each iteration once.
import { describe, expect, it } from 'vitest'
import type { SweptSlot } from '../../../src/app/slot-sweep.js'
import { type SweptLoop, sweepChanged, sweepLoops } from '../../../src/app/sweep.js'
import type { DispatchRecord, LoopState } from '../../../src/domain/state.js'
import type { LoopLister, Store } from '../../../src/ports/store.js'
import { fixedClock, loopState, memoryStore, NOW, recordingLogger } from '../action/fakes.js'

const at = (minutesAgo: number) => new Date(NOW.getTime() - minutesAgo * 60_000).toISOString()
const record = (overrides: Partial<DispatchRecord> = {}): DispatchRecord => ({
  iteration: 3,
  workflow: 'loop.yml',
  ref: 'refs/heads/main',
  at: at(1),
  by: 'run 7',
  ...overrides,
})
const running = (loopId: string, dispatch?: DispatchRecord): LoopState =>
  loopState({ loopId, iteration: 2, claimedIteration: 2, ...(dispatch ? { dispatch } : {}) })

/** For a loop whose record names no run: GitHub is not asked. */
const unasked = async (runId: string): Promise<never> => {
  throw new Error(`run ${runId} was asked about`)
}

function listing(states: Record<string, LoopState>): Store & LoopLister & { saved: LoopState[] } {
  return Object.assign(memoryStore(states), { listLoops: async () => Object.keys(states), describeAll: () => 'memory' })
}

describe('sweepLoops', () => {
  it('re-dispatches the failed and the stale, leaves the rest, and records each re-dispatch', async () => {
    const store = listing({
      failed: running('failed', record({ failed: '502 Bad Gateway' })),
      stale: running('stale', record({ at: at(45) })),
      fresh: running('fresh', record()),
      waiting: { ...running('waiting', record({ failed: '502' })), status: 'waiting' },
      old: running('old'),
    })
    const dispatched: string[] = []
    const swept = await sweepLoops(
      { staleAfterMs: 30 * 60_000, by: 'sweeper run 5' },
      {
        store,
        dispatch: async (loopId, what) => {
          dispatched.push(`${loopId}#${what.iteration}`)
          return undefined
        },
        runOf: unasked,
        clock: fixedClock,
        logger: recordingLogger(),
      },
    )
    expect(dispatched).toEqual(['failed#3', 'stale#3'])
    expect(swept.map((loop) => `${loop.loopId}: ${loop.outcome}`)).toEqual([
      'failed: dispatched',
      'stale: dispatched',
      'fresh: skipped',
      'waiting: skipped',
      'old: skipped',
    ])
    const after = (await store.load('failed'))?.state.dispatch
    expect(after).toEqual({ ...record(), at: NOW.toISOString(), by: 'sweeper run 5', sweeps: 1 })
  })

  it('dispatches again once: its own dispatch taken by no job for stale-after saves the loop BLOCKED, dispatching nothing', async () => {
    const store = listing({ twice: running('twice', record({ at: at(45), by: 'sweeper run 4', sweeps: 1 })) })
    const dispatched: string[] = []
    const swept = await sweepLoops(
      { staleAfterMs: 30 * 60_000, by: 'sweeper run 5' },
      {
        store,
        dispatch: async (loopId) => {
          dispatched.push(loopId)
          return undefined
        },
        runOf: unasked,
        clock: fixedClock,
        logger: recordingLogger(),
      },
    )
    expect(dispatched).toEqual([])
    expect(swept.map((loop) => [loop.outcome, loop.reason])).toEqual([
      ['blocked', expect.stringMatching(/dispatched again by the sweeper 45 min ago .*; marked BLOCKED$/)],
    ])
    const saved = (await store.load('twice'))?.state
    expect([saved?.status, saved?.statusReason]).toEqual([
      'blocked',
      expect.stringMatching(/no job saved it either .*Resume it with `\/loop resume`\.$/),
    ])
  })

  it('keeps an iteration whose run still works past stale-after: not BLOCKED, not dispatched again', async () => {
    const live = record({ at: at(45), by: 'sweeper run 4', sweeps: 1, run: '88' })
    const store = listing({ live: running('live', live) })
    const asked: string[] = []
    const swept = await sweepLoops(
      { staleAfterMs: 30 * 60_000, by: 'sweeper run 5' },
      {
        store,
        dispatch: async () => {
          throw new Error('no dispatch expected')
        },
        runOf: async (runId) => {
          asked.push(runId)
          return { status: 'in_progress', conclusion: null }
        },
        clock: fixedClock,
        logger: recordingLogger(),
      },
    )
    expect(asked).toEqual(['88'])
    expect(swept).toEqual([
      {
        loopId: 'live',
        outcome: 'skipped',
        reason: 'iteration 3 was dispatched 45 min ago and its run 88 is in_progress; kept',
      },
    ])
    expect(store.saved).toEqual([])
  })

  it('records the run its own dispatch started, so the next sweep asks GitHub about that run', async () => {
    const store = listing({ stale: running('stale', record({ at: at(45), run: '70' })) })
    const swept = await sweepLoops(
      { staleAfterMs: 30 * 60_000, by: 'sweeper run 5' },
      {
        store,
        dispatch: async () => '91',
        runOf: async () => ({ status: 'completed', conclusion: 'cancelled' }),
        clock: fixedClock,
        logger: recordingLogger(),
      },
    )
    expect(swept.map((loop) => [loop.outcome, loop.reason])).toEqual([
      ['dispatched', 'iteration 3: no job took iteration 3, dispatched 45 min ago (its run 70 ended: cancelled)'],
    ])
    expect((await store.load('stale'))?.state.dispatch).toEqual({
      ...record(),
      at: NOW.toISOString(),
      by: 'sweeper run 5',
      sweeps: 1,
      run: '91',
    })
  })

  it('two sweepers at once: one dispatches, the other finds the loop changed and dispatches nothing', async () => {
    const store = listing({ l1: running('l1', record({ failed: '502' })) })
    // Both read the same version before either saves.
    const load = store.load
    let waiting: (() => void)[] = []
    store.load = async (loopId) => {
      const loaded = await load(loopId)
      await new Promise<void>((resolve) => {
        waiting.push(resolve)
        if (waiting.length === 2) for (const go of waiting) go()
      })
      waiting = waiting.length === 2 ? [] : waiting
      return loaded
    }
    const dispatched: string[] = []
    const deps = {
      store,
      dispatch: async (loopId: string, what: DispatchRecord) => {
        dispatched.push(`${loopId}#${what.iteration}`)
        return undefined
      },
      runOf: unasked,
      clock: fixedClock,
      logger: recordingLogger(),
    }
    const [a, b] = await Promise.all([
      sweepLoops({ staleAfterMs: 60_000, by: 'sweeper A' }, deps),
      sweepLoops({ staleAfterMs: 60_000, by: 'sweeper B' }, deps),
    ])
    expect(dispatched).toEqual(['l1#3'])
    expect([a?.[0]?.outcome, b?.[0]?.outcome].sort()).toEqual(['dispatched', 'raced'])
  })

  it('a re-dispatch that fails again is recorded as failed and reported, and the next loop is still swept', async () => {
    const store = listing({
      a: running('a', record({ failed: '502' })),
      b: running('b', record({ failed: '502' })),
    })
    const swept = await sweepLoops(
      { staleAfterMs: 60_000, by: 'sweeper run 5' },
      {
        store,
        dispatch: async (loopId) => {
          if (loopId === 'a') throw new Error('503 Service Unavailable')
          return undefined
        },
        runOf: unasked,
        clock: fixedClock,
        logger: recordingLogger(),
      },
    )
    expect(swept.map((loop) => loop.outcome)).toEqual(['failed', 'dispatched'])
    expect(swept[0]?.reason).toBe('the re-dispatch of iteration 3 failed: 503 Service Unavailable')
    expect((await store.load('a'))?.state.dispatch).toMatchObject({ failed: '503 Service Unavailable', sweeps: 1 })
  })
})

describe('sweepChanged: whether the sweeper rewrites the dashboard', () => {
  const loop = (outcome: SweptLoop['outcome']): SweptLoop => ({ loopId: 'a', outcome, reason: 'why' })
  const slot = (outcome: SweptSlot['outcome']): SweptSlot => ({ loopId: 'b', outcome, reason: 'why' })

  it('a sweep that saved no state and moved no slot changed nothing', () => {
    expect(sweepChanged([], [])).toBe(false)
    expect(sweepChanged([loop('skipped'), loop('raced')], [slot('kept'), slot('raced')])).toBe(false)
  })

  it('a loop BLOCKED, dispatched again or its failure recorded; a slot freed, restarted, started, dropped or BLOCKED', () => {
    for (const outcome of ['blocked', 'dispatched', 'failed'] as const) {
      expect([outcome, sweepChanged([loop('skipped'), loop(outcome)], [])]).toEqual([outcome, true])
    }
    for (const outcome of ['blocked', 'restarted', 'freed', 'started', 'dropped'] as const) {
      expect([outcome, sweepChanged([], [slot('kept'), slot(outcome)])]).toEqual([outcome, true])
    }
  })
})
