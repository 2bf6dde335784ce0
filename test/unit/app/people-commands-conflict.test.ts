// A person's command that meets a store conflict (an iteration saved between its load and its save) is
// applied again to what was saved, never lost and never an internal error; only a conflict that keeps
// coming back is reported, as the conflict it is.
import { describe, expect, it } from 'vitest'
import { applyPeopleCommand, type PeopleCommand } from '../../../src/app/people-commands.js'
import type { LoopState } from '../../../src/domain/state.js'
import { StoreConflictError } from '../../../src/ports/store.js'
import { fixedClock, loopState, memoryStore, NOW } from '../action/fakes.js'
import { MemoryAudit } from './iteration-fakes.js'

// The journey as the command records it: staged before its save, committed after.
const audit = new MemoryAudit()
const at = NOW.toISOString()

const cases: { command: PeopleCommand; before: Partial<LoopState>; holds: (state: LoopState) => boolean }[] = [
  {
    command: { kind: 'approve', gate: 'security' },
    before: { status: 'waiting', gates: { security: { status: 'pending', reason: 'r', requestedAt: at } } },
    holds: (state) => state.gates.security?.status === 'approved',
  },
  {
    command: { kind: 'resume' },
    before: { status: 'blocked', statusReason: 'stuck' },
    holds: (state) => state.status === 'running',
  },
  {
    command: { kind: 'skip', task: 'docs', reason: 'not needed' },
    before: {},
    holds: (state) => state.tasks.skipped.some((s) => s.task === 'docs'),
  },
]

describe('applyPeopleCommand under a store conflict', () => {
  it.each(cases)('$command.kind: applied again to the state an iteration saved meanwhile', async (row) => {
    const store = memoryStore({ l1: loopState(row.before) })
    const save = store.save
    let conflicts = 0
    store.save = async (loopId, state, expected) => {
      if (conflicts === 0) {
        conflicts++
        // A running iteration saves first (it records its usage); this save is now stale.
        const current = await store.load(loopId)
        await save(loopId, { ...current!.state, usage: { ...current!.state.usage, tokens: 42 } }, current!.version)
      }
      return save(loopId, state, expected)
    }
    const result = await applyPeopleCommand(
      row.command,
      { loopId: 'l1', by: 'ada' },
      { store, clock: fixedClock, audit },
    )
    expect(conflicts).toBe(1)
    expect(row.holds(result)).toBe(true)
    const stored = (await store.load('l1'))!.state
    // Both writes kept: the iteration's and the person's.
    expect(stored.usage.tokens).toBe(42)
    expect(row.holds(stored)).toBe(true)
  })

  it.each(cases)('$command.kind: a conflict that keeps coming back is reported as a conflict', async (row) => {
    const store = memoryStore({ l1: loopState(row.before) })
    let saves = 0
    store.save = async () => {
      saves++
      throw new StoreConflictError('loop l1 moved')
    }
    await expect(
      applyPeopleCommand(row.command, { loopId: 'l1', by: 'ada' }, { store, clock: fixedClock, audit }),
    ).rejects.toBeInstanceOf(StoreConflictError)
    expect(saves).toBe(5)
  })
})
