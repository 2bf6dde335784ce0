// Whether a run whose plan went stale dispatches its loop again: not when another run carried the loop
// on and dispatched a later iteration already (else every later iteration would run twice). A run no
// dispatch named is for the iteration its plan ran.
import { describe, expect, it } from 'vitest'
import { simpleModeConfig } from '../../../src/config/load-config.js'
import { initialState } from '../../../src/domain/engine/index.js'
import { policyFromConfig } from '../../../src/domain/policy.js'
import { laterDispatchRecorded } from '../../../src/domain/stale-dispatch.js'
import type { DispatchRecord, LoopState } from '../../../src/domain/state.js'

const NOW = new Date('2026-03-01T12:00:00.000Z')

/** The loop after iteration 2 ran, with its recorded dispatch. */
function state(dispatch: Partial<DispatchRecord> | null): LoopState {
  const config = simpleModeConfig({ work: 'true', verify: ['true'] })
  const fresh = initialState({ loopId: 'l1', goal: 'g', policy: policyFromConfig(config), now: NOW })
  const record = { iteration: 3, workflow: 'loop.yml', ref: 'refs/heads/main', at: NOW.toISOString(), by: 'run 7' }
  return { ...fresh, iteration: 2, claimedIteration: 2, ...(dispatch ? { dispatch: { ...record, ...dispatch } } : {}) }
}

describe('laterDispatchRecorded', () => {
  it.each([
    {
      why: 'a run for iteration 2 (a duplicate): the run that ran 2 dispatched 3',
      s: state({}),
      asked: 2,
      later: true,
    },
    { why: 'the run for iteration 3 itself, its plan stale for another reason', s: state({}), asked: 3, later: false },
    { why: 'the later dispatch failed: this run dispatches it', s: state({ failed: '502' }), asked: 2, later: false },
    { why: 'a fresh start (no iteration asked, none planned)', s: state({}), asked: undefined, later: false },
    {
      why: 'a person\'s first run re-run ("Re-run failed jobs") after its decide ran iteration 2 and dispatched 3',
      s: state({}),
      asked: undefined,
      planned: 2,
      later: true,
    },
    {
      why: "a person's run that planned iteration 3 itself, its plan stale for another reason",
      s: state({}),
      asked: undefined,
      planned: 3,
      later: false,
    },
    { why: "a person's run that planned no iteration", s: state({}), asked: undefined, planned: null, later: false },
    { why: 'the dispatch input speaks over the plan', s: state({}), asked: 3, planned: 2, later: false },
    { why: 'no dispatch recorded', s: state(null), asked: 2, later: false },
    {
      why: "a baseline round's run re-run after its decide recorded the baseline and dispatched the iteration it measured for",
      s: { ...state({}), iteration: 2, baseline: { takenAt: NOW.toISOString(), checks: {}, tests: {} } },
      asked: 3,
      round: true,
      later: true,
    },
    {
      why: 'a baseline round whose plan went stale before any baseline was recorded: it dispatches again',
      s: state({}),
      asked: 3,
      round: true,
      later: false,
    },
    {
      why: 'an iteration (no round) for the recorded dispatch itself',
      s: state({}),
      asked: 3,
      round: false,
      later: false,
    },
    { why: 'a recorded dispatch that is not the next iteration', s: state({ iteration: 5 }), asked: 2, later: false },
  ])('$why', ({ s, asked, planned, round, later }) => {
    const run = {
      dispatchedIteration: asked,
      plannedIteration: planned,
      ...(round !== undefined ? { baselineRound: round } : {}),
    }
    expect(laterDispatchRecorded(s, run)).toBe(later)
  })
})
