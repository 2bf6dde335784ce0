// The sweeper's decision, from the state alone: which running loops ended without a successor.
import { describe, expect, it } from 'vitest'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import { initialState } from '../../../src/domain/engine/index.js'
import { policyFromConfig } from '../../../src/domain/policy.js'
import type { RunFact } from '../../../src/domain/slot-sweep.js'
import type { DispatchRecord, LoopState } from '../../../src/domain/state.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import { dispatchFailureNote, recordSweep, sweepDecision } from '../../../src/domain/sweep.js'

const NOW = new Date('2026-03-01T12:00:00.000Z')
const MINUTE = 60_000
const STALE = 30 * MINUTE

function state(overrides: Partial<LoopState> = {}): LoopState {
  const config = simpleModeConfig({ work: 'true', verify: ['true'] })
  const fresh = initialState({ loopId: 'l1', goal: 'g', policy: policyFromConfig(config), now: NOW })
  return { ...fresh, iteration: 2, claimedIteration: 2, ...overrides }
}

function record(overrides: Partial<DispatchRecord> = {}): DispatchRecord {
  const at = new Date(NOW.getTime() - 5 * MINUTE).toISOString()
  return { iteration: 3, workflow: 'loop.yml', ref: 'refs/heads/main', at, by: 'run 7', ...overrides }
}

const ago = (minutes: number) => new Date(NOW.getTime() - minutes * MINUTE).toISOString()
const active = (status: string): RunFact => ({ kind: 'active', status })
const over = (conclusion: string): RunFact => ({ kind: 'over', conclusion })
const unknown: RunFact = { kind: 'unknown', why: 'GitHub did not say how it stands (502)' }

describe('sweepDecision', () => {
  it.each([
    { why: 'a failed re-dispatch', s: state({ dispatch: record({ failed: '502' }) }), kind: 'dispatch' },
    { why: 'a dispatch no job took for 31 min', s: state({ dispatch: record({ at: ago(31) }) }), kind: 'dispatch' },
    { why: 'exactly at the threshold', s: state({ dispatch: record({ at: ago(30) }) }), kind: 'dispatch' },
    { why: 'a dispatch 5 min old', s: state({ dispatch: record() }), kind: 'skip' },
    {
      why: 'a job claimed the dispatched iteration (still running)',
      s: state({ claimedIteration: 3, dispatch: record({ at: ago(90) }) }),
      kind: 'skip',
    },
    {
      why: 'a job ran the iteration and stopped (a gate): the record is of an old iteration',
      s: state({ iteration: 3, claimedIteration: 3, dispatch: record({ failed: '502' }) }),
      kind: 'skip',
    },
    { why: 'no record (an older loop)', s: state(), kind: 'skip' },
    { why: 'waiting at a gate', s: state({ status: 'waiting', dispatch: record({ failed: '502' }) }), kind: 'skip' },
    { why: 'aborted', s: state({ status: 'aborted', dispatch: record({ failed: '502' }) }), kind: 'skip' },
    { why: 'complete', s: state({ status: 'complete', dispatch: record({ at: ago(600) }) }), kind: 'skip' },
    {
      why: "the sweeper's own dispatch, taken by no job for 31 min: once is enough",
      s: state({ dispatch: record({ at: ago(31), sweeps: 1, by: 'sweeper run 9' }) }),
      kind: 'block',
    },
    {
      why: "the sweeper's own dispatch, 5 min old",
      s: state({ dispatch: record({ sweeps: 1, by: 'sweeper run 9' }) }),
      kind: 'skip',
    },
    {
      why: "the sweeper's own dispatch failed: it tries again (nothing was started)",
      s: state({ dispatch: record({ at: ago(31), sweeps: 1, failed: '502' }) }),
      kind: 'dispatch',
    },
    {
      why: "a job claimed the sweeper's dispatch",
      s: state({ claimedIteration: 3, dispatch: record({ at: ago(90), sweeps: 1 }) }),
      kind: 'skip',
    },
  ])('$why: $kind', ({ s, kind }) => {
    expect(sweepDecision(s, NOW, STALE).kind).toBe(kind)
  })

  // A job saves nothing until its iteration ends: only the run its dispatch started tells a live
  // iteration from one no job took.
  const sweptOnce = state({ dispatch: record({ at: ago(45), sweeps: 1, by: 'sweeper run 9', run: '88' }) })
  const stale = state({ dispatch: record({ at: ago(45), run: '88' }) })
  it.each([
    { why: 'its run still works past stale-after', s: sweptOnce, run: active('in_progress'), kind: 'skip' },
    { why: 'its run waits in the queue', s: sweptOnce, run: active('queued'), kind: 'skip' },
    { why: 'its run waits for an environment', s: sweptOnce, run: active('waiting'), kind: 'skip' },
    { why: 'its run ended failed', s: sweptOnce, run: over('failure'), kind: 'block' },
    { why: 'its run was cancelled', s: sweptOnce, run: over('cancelled'), kind: 'block' },
    { why: 'GitHub did not say how its run stands', s: sweptOnce, run: unknown, kind: 'skip' },
    { why: 'no run is recorded (today: staleness alone)', s: sweptOnce, run: null, kind: 'block' },
    { why: "a job's dispatch whose run is queued", s: stale, run: active('queued'), kind: 'skip' },
    { why: "a job's dispatch whose run ended", s: stale, run: over('cancelled'), kind: 'dispatch' },
    { why: "a job's dispatch, GitHub silent: dispatched again", s: stale, run: unknown, kind: 'dispatch' },
  ] as const)('the sweep of a stale dispatch whose run: $why: $kind', ({ s, run, kind }) => {
    expect(sweepDecision(s, NOW, STALE, run).kind).toBe(kind)
  })

  it('says the live run it keeps, and the ended run it blocks on', () => {
    expect(sweepDecision(sweptOnce, NOW, STALE, active('in_progress'))).toEqual({
      kind: 'skip',
      reason: 'iteration 3 was dispatched 45 min ago and its run 88 is in_progress; kept',
    })
    expect(sweepDecision(sweptOnce, NOW, STALE, over('failure'))).toMatchObject({
      kind: 'block',
      reason: expect.stringContaining('and its run 88 ended (failure) without saving it;'),
    })
  })

  it('says why it blocks after the one re-dispatch', () => {
    const s = state({ dispatch: record({ at: ago(45), sweeps: 1, by: 'sweeper run 9' }) })
    expect(sweepDecision(s, NOW, STALE)).toEqual({
      kind: 'block',
      reason:
        'iteration 3 was dispatched again by the sweeper 45 min ago (sweeper run 9) and no job saved it either (its job died, or none started; GitHub named no run of it to ask about); the sweeper dispatches an iteration again once',
    })
  })

  it('says why it skips', () => {
    expect(sweepDecision(state({ dispatch: record() }), NOW, STALE)).toEqual({
      kind: 'skip',
      reason: 'iteration 3 was dispatched 5 min ago; stale after 30 min',
    })
  })
})

describe('recordSweep', () => {
  it('clears the failure and the run before, stamps the sweeper and counts the sweep; the result is a valid state', () => {
    const swept = recordSweep(
      state({ dispatch: record({ failed: '502', sweeps: 1, run: '88' }) }),
      record({ failed: '502', sweeps: 1, run: '88' }),
      NOW,
      'sweeper run 9',
    )
    expect(swept.dispatch).toEqual({ ...record(), at: NOW.toISOString(), by: 'sweeper run 9', sweeps: 2 })
    expect(loopStateSchema.parse(swept)).toEqual(swept)
  })
})

describe('dispatchFailureNote', () => {
  it.each([
    {
      why: 'a failed dispatch of the next iteration',
      s: state({ dispatch: record({ failed: 'HTTP 502\nBad' }) }),
      says: true,
    },
    { why: 'a dispatch that went out', s: state({ dispatch: record() }), says: false },
    {
      why: 'a failure an iteration has run past',
      s: state({ iteration: 3, dispatch: record({ failed: '502' }) }),
      says: false,
    },
    { why: 'an aborted loop', s: state({ status: 'aborted', dispatch: record({ failed: '502' }) }), says: false },
  ])('$why: noted $says', ({ s, says }) => {
    const note = dispatchFailureNote(s)
    expect(note !== '').toBe(says)
    if (says)
      expect(note).toMatch(/re-dispatch of iteration 3 failed \(HTTP 502 Bad\): nothing is scheduled.*command: sweep/s)
  })
})
