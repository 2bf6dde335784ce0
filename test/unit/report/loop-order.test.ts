// The order the dashboard and `status --all` list loops in: ids with their numbers compared by value, so
// issue-2 comes before issue-10 and issue-100; and which loops wait for a person (kept longest when a
// dashboard too long for one issue must leave some out).
import { describe, expect, it } from 'vitest'
import { compareLoopIds, needsPerson } from '../../../src/domain/report/loop-order.js'
import type { LoopState } from '../../../src/domain/state.js'
import { loopState } from '../../golden/dashboard-loops.js'

describe('compareLoopIds', () => {
  it.each<{ name: string; ids: string[]; want: string[] }>([
    {
      name: 'issue numbers by value',
      ids: ['issue-100', 'issue-2', 'issue-10', 'issue-1'],
      want: ['issue-1', 'issue-2', 'issue-10', 'issue-100'],
    },
    { name: 'text first, then numbers', ids: ['pr-3', 'issue-20', 'issue-3'], want: ['issue-3', 'issue-20', 'pr-3'] },
    { name: 'numbers inside an id', ids: ['a10b2', 'a2b10', 'a2b2'], want: ['a2b2', 'a2b10', 'a10b2'] },
    { name: 'a shorter id first when the rest is equal', ids: ['loop-1-x', 'loop-1'], want: ['loop-1', 'loop-1-x'] },
    { name: 'leading zeros: same value, then as text', ids: ['v010', 'v9', 'v10'], want: ['v9', 'v010', 'v10'] },
    {
      name: 'numbers longer than a double holds, exactly',
      ids: ['n-90071992547409930', 'n-90071992547409921'],
      want: ['n-90071992547409921', 'n-90071992547409930'],
    },
    { name: 'plain words as text', ids: ['stuck', 'capped', 'gated'], want: ['capped', 'gated', 'stuck'] },
  ])('$name', ({ ids, want }) => {
    expect([...ids].sort(compareLoopIds)).toEqual(want)
    expect([...ids].reverse().sort(compareLoopIds)).toEqual(want)
  })
})

describe('needsPerson', () => {
  const pending = { status: 'pending' as const, reason: 'r', requestedAt: '2025-01-01T00:00:00.000Z' }
  it.each<{ name: string; state: Partial<LoopState> | null; want: boolean }>([
    { name: 'BLOCKED', state: { status: 'blocked' }, want: true },
    { name: 'capped', state: { status: 'capped' }, want: true },
    { name: 'waiting for a gate', state: { status: 'waiting', gates: { v: pending } }, want: true },
    { name: 'running with a gate pending', state: { status: 'running', gates: { v: pending } }, want: true },
    { name: 'running', state: { status: 'running' }, want: false },
    { name: 'queued', state: { status: 'queued' }, want: false },
    { name: 'complete', state: { status: 'complete' }, want: false },
    { name: 'unreadable', state: null, want: false },
  ])('$name: $want', ({ state, want }) => {
    expect(needsPerson(state === null ? null : loopState('l', state))).toBe(want)
  })
})
