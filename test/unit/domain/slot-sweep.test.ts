import { describe, expect, it } from 'vitest'
import {
  ASKING_FOR_SLOT,
  type HolderFacts,
  judgeHolder,
  judgeOutOfLine,
  type RunFact,
  strandedReason,
} from '../../../src/domain/slot-sweep.js'
import {
  markStopping,
  parseSlotsRecord,
  type SlotHolder,
  type SlotsRecord,
  settle,
  withHolderRun,
} from '../../../src/domain/slots.js'
import { AT, holder, statuses } from './slot-fixtures.js'

const NOW = new Date('2026-01-01T01:00:00.000Z')
const STALE_MS = 30 * 60_000
const over = (conclusion: string): RunFact => ({ kind: 'over', conclusion })
const active: RunFact = { kind: 'active', status: 'in_progress' }
const dispatchOf = (iteration: number, extra: { by?: string; sweeps?: number } = {}) => ({
  iteration,
  workflow: 'loop.yml',
  ref: 'refs/heads/main',
  at: AT,
  by: 'run 1',
  ...extra,
})

describe('judgeHolder: what the sweeper does with a slot whose holder may have died', () => {
  it.each<{
    name: string
    holder?: Partial<SlotHolder>
    state: HolderFacts['state']
    run: RunFact | null
    verdict: 'keep' | 'block' | 'restart' | 'free'
    reason: RegExp
  }>([
    {
      name: 'a running loop whose job was cancelled, nothing dispatched: BLOCKED, slot freed',
      state: { status: 'running', iteration: 0 },
      run: over('cancelled'),
      verdict: 'block',
      reason: /run 101 ended \(cancelled\) without saving iteration 1 or dispatching the next/,
    },
    {
      name: 'a running loop whose runner died (failure) after iteration 3: BLOCKED',
      state: { status: 'running', iteration: 3, dispatch: dispatchOf(3) },
      run: over('failure'),
      verdict: 'block',
      reason: /ended \(failure\) without saving iteration 4/,
    },
    {
      name: 'a running loop whose job still runs keeps its slot',
      state: { status: 'running', iteration: 1 },
      run: active,
      verdict: 'keep',
      reason: /run 101 is in_progress/,
    },
    {
      name: 'a running loop whose job dispatched the next iteration, then failed: the dispatch sweep’s',
      state: { status: 'running', iteration: 2, dispatch: dispatchOf(3, { by: 'run 101' }) },
      run: over('failure'),
      verdict: 'keep',
      reason: /iteration 3 is dispatched/,
    },
    {
      name: 'the run that took the dispatched iteration 3 was cancelled before it saved it: BLOCKED, not dispatched again',
      state: { status: 'running', iteration: 2, dispatch: dispatchOf(3) },
      run: over('cancelled'),
      verdict: 'block',
      reason: /run 101 took iteration 3 and ended \(cancelled\) without saving it; the sweeper freed its slot/,
    },
    {
      name: 'the run that took the dispatched iteration 2 hit timeout-minutes: BLOCKED',
      state: { status: 'running', iteration: 1, dispatch: dispatchOf(2) },
      run: over('timed_out'),
      verdict: 'block',
      reason: /took iteration 2 and ended \(timed_out\)/,
    },
    {
      name: 'the run that took the dispatched iteration still runs it',
      state: { status: 'running', iteration: 1, dispatch: dispatchOf(2) },
      run: active,
      verdict: 'keep',
      reason: /iteration 2 is dispatched/,
    },
    {
      name: 'after the sweeper’s own dispatch, a dead holder is the dispatch sweep’s (it blocks after once)',
      state: { status: 'running', iteration: 1, dispatch: dispatchOf(2, { by: 'sweeper run 9', sweeps: 1 }) },
      run: over('cancelled'),
      verdict: 'keep',
      reason: /iteration 2 is dispatched/,
    },
    {
      name: 'a run that succeeded without dispatching (dispatch: false) is no death',
      state: { status: 'running', iteration: 1 },
      run: over('success'),
      verdict: 'keep',
      reason: /succeeded without dispatching/,
    },
    {
      name: 'a holder that records no run is kept',
      holder: { run: undefined },
      state: { status: 'running', iteration: 1 },
      run: null,
      verdict: 'keep',
      reason: /no run is recorded/,
    },
    {
      name: 'a run GitHub did not answer for is kept',
      state: { status: 'running', iteration: 1 },
      run: { kind: 'unknown', why: 'HTTP 502' },
      verdict: 'keep',
      reason: /HTTP 502/,
    },
    {
      name: 'a loop at a gate keeps its slot whatever its last run',
      state: { status: 'waiting', iteration: 2 },
      run: null,
      verdict: 'keep',
      reason: /waits for a person/,
    },
    {
      name: 'an admitted loop whose dispatched run was cancelled before it started: dispatched again',
      state: { status: 'queued', iteration: 0 },
      run: over('cancelled'),
      verdict: 'restart',
      reason: /ended \(cancelled\) before it started the loop/,
    },
    {
      name: 'an admitted loop with no recorded run, past stale-after: dispatched again',
      holder: { run: undefined, since: '2026-01-01T00:10:00.000Z' },
      state: { status: 'queued', iteration: 0 },
      run: null,
      verdict: 'restart',
      reason: /admitted 50 min ago and never started/,
    },
    {
      name: 'an admitted loop with no recorded run, within stale-after: kept',
      holder: { run: undefined, since: '2026-01-01T00:50:00.000Z' },
      state: { status: 'queued', iteration: 0 },
      run: null,
      verdict: 'keep',
      reason: /admitted 10 min ago/,
    },
    {
      name: 'an aborted loop whose iteration still runs (stopping) keeps its slot',
      holder: { stopping: true },
      state: { status: 'aborted', iteration: 2 },
      run: active,
      verdict: 'keep',
      reason: /aborted; run 101 still runs/,
    },
    {
      name: 'an aborted loop whose job died (stopping, run over) is freed',
      holder: { stopping: true },
      state: { status: 'aborted', iteration: 2 },
      run: over('cancelled'),
      verdict: 'free',
      reason: /aborted and no job of it runs/,
    },
    {
      name: 'a loop with no state is freed',
      state: null,
      run: null,
      verdict: 'free',
      reason: /no state/,
    },
  ])('$name', (row) => {
    const holder: SlotHolder = { loopId: 'a', since: AT, run: '101', ...row.holder }
    const verdict = judgeHolder({ holder, state: row.state, run: row.run }, NOW, STALE_MS)
    expect(verdict.kind).toBe(row.verdict)
    expect(verdict.reason).toMatch(row.reason)
  })

  it('the BLOCKED reason tells a person how to run the loop again', () => {
    expect(strandedReason({ kind: 'block', reason: 'its job died' })).toBe(
      'its job died. Resume it with `/loop resume` (it queues for a slot like a new loop).',
    )
  })
})

describe('judgeOutOfLine: a new loop saved queued whose job failed before queue.json named it', () => {
  const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString()
  it.each<{ name: string; status: 'queued' | 'running'; reason: string; at: string; named: boolean; blocked: boolean }>(
    [
      {
        name: 'asking for 45 min, never named: BLOCKED',
        status: 'queued',
        reason: ASKING_FOR_SLOT,
        at: minutesAgo(45),
        named: false,
        blocked: true,
      },
      {
        name: 'asking for 5 min: its job may still be asking',
        status: 'queued',
        reason: ASKING_FOR_SLOT,
        at: minutesAgo(5),
        named: false,
        blocked: false,
      },
      {
        name: 'named by the record (in line or holding a slot)',
        status: 'queued',
        reason: ASKING_FOR_SLOT,
        at: minutesAgo(45),
        named: true,
        blocked: false,
      },
      {
        name: 'queued with its place told (in line)',
        status: 'queued',
        reason: 'all 2 slots are in use (max-loops: 2)',
        at: minutesAgo(300),
        named: false,
        blocked: false,
      },
      {
        name: 'refused for a cycle: out of line on purpose',
        status: 'queued',
        reason: 'refused: its depends-on would close a cycle, #2 → #1 → #2',
        at: minutesAgo(300),
        named: false,
        blocked: false,
      },
      {
        name: 'running',
        status: 'running',
        reason: ASKING_FOR_SLOT,
        at: minutesAgo(300),
        named: false,
        blocked: false,
      },
    ],
  )('$name', ({ status, reason, at, named, blocked }) => {
    const verdict = judgeOutOfLine({ status, statusReason: reason, updatedAt: at }, named, NOW, STALE_MS)
    expect(verdict !== null).toBe(blocked)
    if (verdict) {
      expect(verdict.reason).toBe(
        'a job saved it queued 45 min ago (asking for a slot: its first job, or a resume) but failed before it took a place in line (queue.json never named it), so no loop ending would start it',
      )
    }
  })
})

describe('slots with the run that holds them', () => {
  it('a stopping holder keeps its slot though its state says aborted; a plain one is freed', () => {
    const record = markStopping({ running: [holder('a'), holder('b')], queued: [] }, 'a')
    expect(record.running[0]).toEqual(holder('a', { stopping: true }))
    const settled = settle(record, statuses({ a: 'aborted', b: 'aborted' }), 2, AT)
    expect(settled.freed).toEqual(['b'])
    expect(settled.record.running.map((h) => h.loopId)).toEqual(['a'])
  })

  it('withHolderRun changes only the holder named, and nothing when it holds no slot', () => {
    const record: SlotsRecord = { running: [holder('a'), holder('b')], queued: [] }
    expect(withHolderRun(record, 'b', '9').running).toEqual([holder('a'), holder('b', { run: '9' })])
    expect(withHolderRun(record, 'z', '9')).toBe(record)
  })

  it('queue.json keeps the holder’s run, where to restart it, the stop mark and the limit', () => {
    const text = JSON.stringify({
      running: [{ loopId: 'a', since: AT, run: '12', workflow: 'loop.yml', ref: 'main', stopping: true }],
      queued: [],
      limit: 2,
    })
    expect(parseSlotsRecord(text)).toEqual({ record: JSON.parse(text) })
    expect(
      parseSlotsRecord(JSON.stringify({ running: [{ loopId: 'a', since: AT, stopping: false }], queued: [] })),
    ).toMatchObject({ problem: expect.stringMatching(/running\.0\.stopping/) })
  })
})
