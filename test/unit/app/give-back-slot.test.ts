// Giving a slot back tells the loops in line where they stand only when something changed: a slot or a
// place given up, a loop started, or the loop's end saved by this job. A job that finds the loop ended
// long ago (a refused start of an aborted loop, a comment on an ended loop) changes nothing of their waits,
// so their comments are not rewritten as if it had just ended.
import { describe, expect, it } from 'vitest'
import { giveBackSlot, type SlotDeps } from '../../../src/app/slots.js'
import type { SlotsRecord, WaitingLoop } from '../../../src/domain/slots.js'
import type { LoopStatus } from '../../../src/domain/stages.js'
import { fixedClock, recordingLogger } from '../action/fakes.js'

const waiting = (loopId: string, dependsOn: string[] = []): WaitingLoop => ({
  loopId,
  since: '2026-01-01T00:00:00.000Z',
  dependsOn,
  workflow: 'loop.yml',
  ref: 'main',
})

function memorySlots(
  start: SlotsRecord,
  statuses: Record<string, LoopStatus>,
): SlotDeps & { record: () => SlotsRecord } {
  let record = start
  const started: string[] = []
  return {
    record: () => record,
    clock: fixedClock,
    logger: recordingLogger(),
    start: async (entry) => {
      started.push(entry.loopId)
      return `run-${entry.loopId}`
    },
    slots: {
      describe: () => 'memory',
      update: async (_loops, change) => {
        const outcome = change(record, new Map(Object.entries(statuses)))
        record = outcome.record
        return outcome.result
      },
    },
  }
}

describe('giveBackSlot: who in line is told', () => {
  // `late` waits for `done-long-ago`, which ended BLOCKED and holds nothing any more.
  const line = (): SlotsRecord => ({ running: [], queued: [waiting('late', ['done-long-ago'])] })
  const statuses: Record<string, LoopStatus> = { 'done-long-ago': 'blocked', late: 'queued' }

  it('tells nobody when the loop held nothing and its end was not saved by this job', async () => {
    const released = await giveBackSlot('done-long-ago', null, memorySlots(line(), statuses))
    expect([released.released, released.leftLine, released.started]).toEqual([false, null, []])
    expect(released.inLine).toEqual([])
  })

  it('tells the line when this job saved the loop`s end, though it held nothing', async () => {
    const released = await giveBackSlot('done-long-ago', null, memorySlots(line(), statuses), { endedNow: true })
    expect(
      released.inLine.map(({ loopId, wait }) => [
        loopId,
        wait.dependencies.endedShort.map((dependency) => dependency.loopId),
      ]),
    ).toEqual([['late', ['done-long-ago']]])
  })

  it('tells the line when the loop gave a slot back', async () => {
    const record: SlotsRecord = {
      running: [
        { loopId: 'a', since: '2026-01-01T00:00:00.000Z' },
        { loopId: 'b', since: '2026-01-01T00:00:00.000Z' },
      ],
      queued: [waiting('c'), waiting('d')],
      limit: 2,
    }
    const deps = memorySlots(record, { a: 'complete', b: 'running', c: 'queued', d: 'queued' })
    const released = await giveBackSlot('a', 2, deps)
    expect(released.released).toBe(true)
    expect(released.started.map((entry) => entry.loopId)).toEqual(['c'])
    expect(released.inLine.map(({ loopId, wait }) => [loopId, wait.position])).toEqual([['d', 1]])
  })
})
