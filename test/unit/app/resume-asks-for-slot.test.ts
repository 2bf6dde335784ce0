// A person's resume that must ask for a slot (`max-loops`, `depends-on`) is saved `queued`, asking for one,
// in the resume's own save: a job that fails or dies before the loop has its slot leaves it where the
// sweeper sees it and a person may resume it again, never `running` with no job. A resume that makes the
// loop wait for its gates, or one that need not ask, is saved as the engine decides.
import { describe, expect, it } from 'vitest'
import { applyPeopleCommand } from '../../../src/app/people-commands.js'
import { ASKING_FOR_SLOT } from '../../../src/domain/slot-sweep.js'
import type { LoopState } from '../../../src/domain/state.js'
import { fixedClock, loopState, memoryStore, NOW } from '../action/fakes.js'
import { MemoryAudit } from './iteration-fakes.js'

const at = NOW.toISOString()
const pendingGate = { security: { status: 'pending' as const, reason: 'r', requestedAt: at } }

const cases: {
  name: string
  before: Partial<LoopState>
  asks: boolean
  saved: Pick<LoopState, 'status' | 'statusReason'>
}[] = [
  {
    name: 'BLOCKED, asking',
    before: { status: 'blocked', statusReason: 'stuck' },
    asks: true,
    saved: { status: 'queued', statusReason: ASKING_FOR_SLOT },
  },
  {
    name: 'capped, asking',
    before: { status: 'capped', statusReason: 'cap' },
    asks: true,
    saved: { status: 'queued', statusReason: ASKING_FOR_SLOT },
  },
  {
    name: 'queued in line, asking again',
    before: { status: 'queued', statusReason: 'all 2 slots are in use (max-loops: 2)' },
    asks: true,
    saved: { status: 'queued', statusReason: ASKING_FOR_SLOT },
  },
  {
    name: 'BLOCKED, no slot to ask for',
    before: { status: 'blocked', statusReason: 'stuck' },
    asks: false,
    saved: { status: 'running', statusReason: '' },
  },
  {
    name: 'waiting for a gate still (it holds its slot): waiting',
    before: { status: 'blocked', statusReason: 'stuck', gates: pendingGate },
    asks: true,
    saved: { status: 'waiting', statusReason: "waiting for approval: 'security'" },
  },
]

describe('a resume saved asking for a slot', () => {
  it.each(cases)('$name', async ({ before, asks, saved }) => {
    const store = memoryStore({ l1: loopState(before) })
    const audit = new MemoryAudit()
    const returned = await applyPeopleCommand(
      { kind: 'resume' },
      { loopId: 'l1', by: 'ada', resumeAsksForSlot: asks },
      { store, clock: fixedClock, audit },
    )
    expect(returned).toMatchObject(saved)
    expect((await store.load('l1'))?.state).toMatchObject(saved)
    expect(audit.journey.map((event) => event.type)).toEqual(['resumed'])
  })
})
