// The slots record's building blocks, shared by the slots tests and the sweeper's.
import type { SlotHolder, SlotRequest, WaitingLoop } from '../../../src/domain/slots.js'
import type { LoopStatus } from '../../../src/domain/stages.js'

export const AT = '2026-01-01T00:00:00.000Z'

export const holder = (loopId: string, extra: Partial<SlotHolder> = {}): SlotHolder => ({ loopId, since: AT, ...extra })

export const waiting = (loopId: string, dependsOn: string[] = []): WaitingLoop => ({
  loopId,
  since: AT,
  dependsOn,
  workflow: 'loop.yml',
  ref: 'refs/heads/main',
})

export const statuses = (entries: Record<string, LoopStatus> = {}) => new Map(Object.entries(entries))

/** A job asking for `loopId`'s slot; `run` is the workflow run it records as the one that has the loop. */
export const ask = (loopId: string, dependsOn: string[] = [], started = false, run?: string): SlotRequest => ({
  loopId,
  dependsOn,
  workflow: 'loop.yml',
  ref: 'refs/heads/main',
  at: AT,
  started,
  ...(run ? { run } : {}),
})
