import { describe, expect, it } from 'vitest'
import {
  beginIteration,
  type CapLimit,
  CappedResumeError,
  cappedBy,
  capReopens,
  changeCap,
  decide,
  markCapped,
  reopenIfCapRaised,
  resume,
} from '../../../src/domain/engine/index.js'
import type { Policy } from '../../../src/domain/policy.js'
import { type LoopState, loopStateSchema } from '../../../src/domain/state.js'
import { at, policyOf, startState } from './helpers.js'

const policy = policyOf()

/** A loop that ran `ran` iterations of `cap` and was capped by `limit` (its usage spent 12 minutes). */
function cappedLoop(limit: CapLimit, ran: number, cap: number): LoopState {
  const running: LoopState = {
    ...startState(policy),
    iteration: ran,
    claimedIteration: ran,
    maxIterations: cap,
    usage: { ...startState(policy).usage, wallMs: 12 * 60_000, tokens: 5000, costUsd: 3 },
  }
  return markCapped(running, { kind: 'CAP_REACHED', limit, reason: `the ${limit} limit is reached` }, at(1)).state
}

describe('which limit capped the loop', () => {
  it.each<{ state: LoopState; limit: CapLimit | null }>([
    { state: startState(policy), limit: null },
    { state: cappedLoop('iterations', 2, 2), limit: 'iterations' },
    { state: cappedLoop('minutes', 2, 10), limit: 'minutes' },
    { state: cappedLoop('cost', 2, 10), limit: 'cost' },
    // Older states recorded no limit: the iteration cap.
    { state: { ...cappedLoop('tokens', 2, 2), lastDecision: { kind: 'ESCALATE', reason: 'x' } }, limit: 'iterations' },
  ])('$limit', ({ state, limit }) => {
    expect(cappedBy(state)).toBe(limit)
  })
})

describe('a cap given to a run re-opens a loop its iteration cap capped', () => {
  it.each<{ name: string; state: LoopState; given: number; status: LoopState['status']; next: string }>([
    {
      name: 'capped at 2 of 2, given 5',
      state: cappedLoop('iterations', 2, 2),
      given: 5,
      status: 'running',
      next: 'EXECUTE_STAGE',
    },
    {
      name: 'capped at 2 of 2, given 3',
      state: cappedLoop('iterations', 2, 2),
      given: 3,
      status: 'running',
      next: 'EXECUTE_STAGE',
    },
    {
      name: 'capped at 4 of 4, given 3',
      state: cappedLoop('iterations', 4, 4),
      given: 3,
      status: 'capped',
      next: 'CAP_REACHED',
    },
    {
      name: 'a claimed iteration counts: 2 run, 3 claimed, given 3',
      state: { ...cappedLoop('iterations', 2, 2), claimedIteration: 3 },
      given: 3,
      status: 'capped',
      next: 'CAP_REACHED',
    },
    {
      name: 'capped by the time budget, given 20',
      state: cappedLoop('minutes', 2, 10),
      given: 20,
      status: 'capped',
      next: 'CAP_REACHED',
    },
  ])('$name: $status, then $next', ({ state, given, status, next }) => {
    // Asked before the cap is applied (a job that must ask for a slot first): the same answer.
    expect(capReopens(state, given)).toBe(status === 'running')
    const changed = changeCap(state, given, at(2))
    const reopened = reopenIfCapRaised(changed.state, at(2))
    expect(reopened.state.status).toBe(status)
    expect(reopened.events.map((e) => e.type)).toEqual(status === 'running' ? ['resumed'] : [])
    const decision = decide(reopened.state, { now: at(3) }, policy)
    expect(decision.kind).toBe(next)
    if (decision.kind === 'EXECUTE_STAGE') expect(beginIteration(reopened.state, decision, at(3)).iteration).toBe(3)
    expect(loopStateSchema.safeParse(reopened.state).success).toBe(true)
  })

  it('a loop that is not capped is not re-opened by a cap, however high', () => {
    const running = { ...cappedLoop('iterations', 2, 2), status: 'running' as const, statusReason: '' }
    expect(capReopens(running, 5)).toBe(false)
    expect(capReopens({ ...running, status: 'blocked', statusReason: 'stuck' }, 5)).toBe(false)
  })

  it('says in the journey that the raised cap re-opened the loop', () => {
    const reopened = reopenIfCapRaised(changeCap(cappedLoop('iterations', 2, 2), 5, at(2)).state, at(2))
    expect(reopened.events[0]).toMatchObject({
      type: 'resumed',
      message:
        're-opened: the iteration cap is now 5, above the 2 iterations run (was capped: the iterations limit is reached)',
      data: { reopened: true, cap: 5 },
    })
    expect(reopened.state.statusReason).toBe('')
  })
})

describe('a capped loop stays capped until its limit is lifted', () => {
  it('a budget raised in the config does not run it until a person resumes it', () => {
    const state = cappedLoop('minutes', 2, 10)
    const raised: Policy = { ...policy, budget: { minutes: 60 } }
    const decision = decide(state, { now: at(2) }, raised)
    expect(decision).toMatchObject({ kind: 'CAP_REACHED', limit: 'minutes' })
    expect(decision.reason).toContain('that limit is raised since: resume the loop to go on')
    const resumed = resume(state, '@alice', at(3), raised.budget)
    expect(resumed.state.status).toBe('running')
    expect(decide(resumed.state, { now: at(4) }, raised).kind).toBe('EXECUTE_STAGE')
  })
})

describe('resuming a capped loop', () => {
  it.each<{
    name: string
    state: LoopState
    cap?: number
    budget: Policy['budget']
    refused: RegExp | null
  }>([
    {
      name: 'iteration cap, no higher cap',
      state: cappedLoop('iterations', 2, 2),
      budget: {},
      refused:
        /is capped: the iteration cap is reached: 2 of 2 .* resume it with a higher cap \(max-iterations above 2\)/,
    },
    {
      name: 'iteration cap, a higher cap given first',
      state: cappedLoop('iterations', 2, 2),
      cap: 5,
      budget: {},
      refused: null,
    },
    {
      name: 'iteration cap, a cap given not above the iterations run',
      state: cappedLoop('iterations', 2, 2),
      cap: 2,
      budget: {},
      refused: /max-iterations above 2/,
    },
    {
      name: 'time budget still spent',
      state: cappedLoop('minutes', 2, 10),
      budget: { minutes: 10 },
      refused: /the time budget is spent: 12 of 10 minutes .* raise budget\.minutes in the loop config, then resume it/,
    },
    { name: 'time budget raised', state: cappedLoop('minutes', 2, 10), budget: { minutes: 30 }, refused: null },
    {
      name: 'cost budget still spent',
      state: cappedLoop('cost', 2, 10),
      budget: { costUsd: 2 },
      refused: /raise budget\.cost-usd in the loop config/,
    },
    {
      name: 'a raised cap does not lift a spent token budget',
      state: cappedLoop('tokens', 2, 10),
      cap: 50,
      budget: { tokens: 1000 },
      refused: /raise budget\.tokens/,
    },
  ])('$name', ({ state, cap, budget, refused }) => {
    const given = cap !== undefined ? changeCap(state, cap, at(2)).state : state
    const run = () => resume(given, '@alice', at(3), budget)
    if (refused === null) {
      const { state: after, events } = run()
      expect(after.status).toBe('running')
      expect(events[0]?.type).toBe('resumed')
      return
    }
    expect(run).toThrow(CappedResumeError)
    expect(run).toThrow(refused)
  })

  it('a blocked loop resumes as before, whatever its budget', () => {
    const blocked: LoopState = { ...startState(policy), status: 'blocked', statusReason: 'stuck' }
    expect(resume(blocked, '@alice', at(1), { minutes: 0.001 }).state.status).toBe('running')
  })
})
