// The sweeper's pass over the slots on a real bare repository (the state branch with the loops' states
// and queue.json): a holder whose job died is saved BLOCKED and its slot goes to the next in line, an
// admitted loop whose start never ran is dispatched again, a loop whose job still runs is left alone,
// and a start dropped for a closed issue hands the slot on. GitHub's answers about runs are planted.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GitSlotStore } from '../../../src/adapters/stores/git-slot-store.js'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { sweepSlots } from '../../../src/app/slot-sweep.js'
import { giveBackSlot } from '../../../src/app/slots.js'
import { ASKING_FOR_SLOT } from '../../../src/domain/slot-sweep.js'
import type { SlotsRecord, WaitingLoop } from '../../../src/domain/slots.js'
import type { LoopState } from '../../../src/domain/state.js'
import type { Clock } from '../../../src/ports/clock.js'
import type { Logger } from '../../../src/ports/logger.js'
import { makeState } from './fixtures.js'

const run = promisify(execFile)
const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }
const quiet: Logger = { info() {}, warning() {}, debug() {}, error() {} } as unknown as Logger
const NOW = new Date('2026-01-01T01:00:00.000Z')
const clock: Clock = { now: () => NOW, sleep: async () => {} }
const AT = '2026-01-01T00:00:00.000Z'
let base: string
let repos = 0

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'slot-sweep-'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** A fresh state branch with `states` saved and `record` as queue.json. */
async function plant(states: Record<string, Partial<LoopState>>, record: SlotsRecord) {
  repos++
  const remote = join(base, `remote-${repos}.git`)
  await run('git', ['init', '--bare', '--quiet', remote])
  const store = new GitStore({ repoDir: base, remote, identity, workDir: join(base, `state-${repos}`) })
  const slots = new GitSlotStore({ repoDir: base, remote, identity, workDir: join(base, `slots-${repos}`) })
  for (const [loopId, fields] of Object.entries(states))
    await store.save(loopId, { ...makeState(loopId, 1), ...fields }, null)
  await slots.update([], () => ({ record, result: null }))
  return { store, slots }
}

function sweeper(
  planted: Awaited<ReturnType<typeof plant>>,
  runs: Record<string, { status: string; conclusion: string | null }>,
  start: (entry: WaitingLoop) => Promise<string | undefined | { dropped: string }> = async () => '900',
) {
  const started: string[] = []
  const deps = {
    ...planted,
    clock,
    logger: quiet,
    runOf: async (runId: string) => {
      const answer = runs[runId]
      if (!answer) throw new Error(`HTTP 404 for run ${runId}`)
      return answer
    },
    start: async (entry: WaitingLoop) => {
      started.push(entry.loopId)
      return start(entry)
    },
  }
  return { started, sweep: () => sweepSlots({ limit: undefined, staleAfterMs: 30 * 60_000 }, deps) }
}

const waiting = (loopId: string): WaitingLoop => ({
  loopId,
  since: AT,
  dependsOn: [],
  workflow: 'loop.yml',
  ref: 'refs/heads/main',
})

describe('sweepSlots: the slots of max-loops cannot jam', () => {
  it('a holder whose job was cancelled is saved BLOCKED, and the next in line is admitted and started under the recorded limit', async () => {
    const planted = await plant(
      { a: { iteration: 0 }, b: { status: 'queued', iteration: 0 }, c: { status: 'queued', iteration: 0 } },
      { running: [{ loopId: 'a', since: AT, run: '101' }], queued: [waiting('b'), waiting('c')], limit: 1 },
    )
    const { started, sweep } = sweeper(planted, { '101': { status: 'completed', conclusion: 'cancelled' } })
    const swept = await sweep()
    expect(swept.map((loop) => [loop.loopId, loop.outcome])).toEqual([
      ['a', 'blocked'],
      ['b', 'started'],
    ])
    const a = (await planted.store.load('a'))?.state
    expect(a?.status).toBe('blocked')
    expect(a?.statusReason).toMatch(/run 101 ended \(cancelled\) without saving iteration 1.*`\/loop resume`/)
    expect(started).toEqual(['b'])
    // Only one slot (the recorded limit): c waits; b's slot records the run its start dispatched.
    expect(await planted.slots.current()).toEqual({
      running: [{ loopId: 'b', since: NOW.toISOString(), workflow: 'loop.yml', ref: 'refs/heads/main', run: '900' }],
      queued: [waiting('c')],
      limit: 1,
    })
    // A second sweep finds nothing more to do.
    const again = sweeper(planted, { '900': { status: 'in_progress', conclusion: null } })
    expect((await again.sweep()).map((loop) => loop.outcome)).toEqual(['kept'])
    expect(again.started).toEqual([])
  })

  it('a new loop left queued outside the line by a job that failed before queue.json named it is saved BLOCKED, once stale', async () => {
    const asking = { status: 'queued' as const, statusReason: ASKING_FOR_SLOT, iteration: 0 }
    const planted = await plant(
      {
        stranded: { ...asking, updatedAt: AT },
        asking: { ...asking, updatedAt: new Date(NOW.getTime() - 5 * 60_000).toISOString() },
        inLine: { ...asking, updatedAt: AT },
      },
      { running: [], queued: [waiting('inLine')], limit: 1 },
    )
    const { started, sweep } = sweeper(planted, {})
    const swept = await sweep()
    expect(swept.map((loop) => [loop.loopId, loop.outcome])).toEqual([
      ['stranded', 'blocked'],
      ['inLine', 'started'],
    ])
    const stranded = (await planted.store.load('stranded'))?.state
    expect([stranded?.status, stranded?.statusReason]).toEqual([
      'blocked',
      'a job saved it queued 60 min ago (asking for a slot: its first job, or a resume) but failed before it took a place in line (queue.json never named it), so no loop ending would start it. Resume it with `/loop resume` (it queues for a slot like a new loop).',
    ])
    // One whose job may still be asking is left alone, and so is one in line.
    expect((await planted.store.load('asking'))?.state.status).toBe('queued')
    expect(started).toEqual(['inLine'])
  })

  it('a holder whose job still runs, or whose next iteration is dispatched, keeps its slot', async () => {
    const dispatch = { iteration: 2, workflow: 'loop.yml', ref: 'refs/heads/main', at: AT, by: 'run 5' }
    const planted = await plant(
      { a: {}, d: { dispatch }, b: { status: 'queued', iteration: 0 } },
      {
        running: [
          { loopId: 'a', since: AT, run: '101' },
          { loopId: 'd', since: AT, run: '5' },
        ],
        queued: [waiting('b')],
        limit: 2,
      },
    )
    const { started, sweep } = sweeper(planted, {
      '101': { status: 'in_progress', conclusion: null },
      '5': { status: 'completed', conclusion: 'success' },
    })
    expect((await sweep()).map((loop) => [loop.loopId, loop.outcome, loop.reason])).toEqual([
      ['a', 'kept', 'run 101 is in_progress'],
      ['d', 'kept', 'iteration 2 is dispatched (the dispatch sweep looks after it)'],
    ])
    expect(started).toEqual([])
    expect((await planted.store.load('a'))?.state.status).toBe('running')
    expect((await planted.slots.current()).queued).toEqual([waiting('b')])
  })

  it('an admitted loop whose dispatched run ended before it started is dispatched again, keeping its slot', async () => {
    const planted = await plant(
      { b: { status: 'queued', iteration: 0 } },
      {
        running: [{ loopId: 'b', since: AT, run: '300', workflow: 'loop.yml', ref: 'refs/heads/main' }],
        queued: [],
        limit: 1,
      },
    )
    const { started, sweep } = sweeper(planted, { '300': { status: 'completed', conclusion: 'cancelled' } })
    expect((await sweep()).map((loop) => [loop.loopId, loop.outcome])).toEqual([['b', 'restarted']])
    expect(started).toEqual(['b'])
    expect((await planted.slots.current()).running).toEqual([
      { loopId: 'b', since: NOW.toISOString(), workflow: 'loop.yml', ref: 'refs/heads/main', run: '900' },
    ])
  })

  it('a loop admitted whose dispatch failed (back at the head of the line) is started by the sweep, with no other loop running', async () => {
    const planted = await plant(
      { a: { status: 'complete' }, b: { status: 'queued', iteration: 0 } },
      { running: [{ loopId: 'a', since: AT, run: '1' }], queued: [waiting('b')], limit: 1 },
    )
    let failing = true
    const releasing = {
      slots: planted.slots,
      clock,
      logger: quiet,
      start: async () => {
        if (failing) throw new Error('HTTP 502')
        return '901'
      },
    }
    await giveBackSlot('a', 1, releasing)
    expect(await planted.slots.current()).toEqual({ running: [], queued: [waiting('b')], limit: 1 })
    failing = false
    const { started, sweep } = sweeper(planted, {})
    expect((await sweep()).map((loop) => [loop.loopId, loop.outcome])).toEqual([['b', 'started']])
    expect(started).toEqual(['b'])
  })

  it('a start dropped (its issue closed) leaves the line and the next loop takes the slot', async () => {
    const planted = await plant(
      { a: { status: 'complete' }, b: { status: 'queued', iteration: 0 }, c: { status: 'queued', iteration: 0 } },
      { running: [{ loopId: 'a', since: AT, run: '1' }], queued: [waiting('b'), waiting('c')], limit: 1 },
    )
    const { started, sweep } = sweeper(planted, {}, async (entry) =>
      entry.loopId === 'b' ? { dropped: 'its issue #2 is closed' } : '902',
    )
    expect((await sweep()).map((loop) => [loop.loopId, loop.outcome])).toEqual([
      ['a', 'freed'],
      ['b', 'dropped'],
      ['c', 'started'],
    ])
    expect(started).toEqual(['b', 'c'])
    expect(await planted.slots.current()).toEqual({
      running: [{ loopId: 'c', since: NOW.toISOString(), workflow: 'loop.yml', ref: 'refs/heads/main', run: '902' }],
      queued: [],
      limit: 1,
    })
  })

  it('each start dropped is told, also of a loop admitted in place of one dropped before it', async () => {
    const queued = { status: 'queued' as const, iteration: 0 }
    const planted = await plant(
      { a: { status: 'complete' }, b: queued, c: queued, d: queued },
      { running: [{ loopId: 'a', since: AT, run: '1' }], queued: [waiting('b'), waiting('c'), waiting('d')], limit: 1 },
    )
    const { started, sweep } = sweeper(planted, {}, async (entry) =>
      entry.loopId === 'd' ? '903' : { dropped: `its issue ${entry.loopId} is closed` },
    )
    expect((await sweep()).map((loop) => [loop.loopId, loop.outcome, loop.reason])).toEqual([
      ['a', 'freed', 'it is complete'],
      ['b', 'dropped', 'not started: its issue b is closed; it left the line'],
      ['c', 'dropped', 'not started: its issue c is closed; it left the line'],
      ['d', 'started', 'admitted to a freed slot; its job dispatched'],
    ])
    expect(started).toEqual(['b', 'c', 'd'])
    expect((await planted.slots.current()).running.map((holder) => holder.loopId)).toEqual(['d'])
  })
})
