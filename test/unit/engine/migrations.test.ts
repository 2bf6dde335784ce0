import { describe, expect, it } from 'vitest'
import { ZodError } from 'zod'
import { initialState } from '../../../src/domain/engine/index.js'
import { MIGRATIONS, migrateState, StateValidationError } from '../../../src/domain/migrations.js'
import { StateFromTheFutureError } from '../../../src/ports/store.js'
import { policyOf, T0 } from './helpers.js'

// The pre-release shape (the loop-controller skill's loop-state.json), as in the design's seed.
const v0 = {
  systemId: 'sys-002',
  systemName: 'Work Order Service',
  githubIssue: 123,
  branch: 'feature/system-work-orders',
  state: 'IMPLEMENT',
  stateEnteredAt: '2024-01-17T10:30:00Z',
  capabilities: {
    total: 5,
    completed: 2,
    current: 'work-order-assignment',
    remaining: ['status-transitions', 'completion-flow'],
  },
  stages: {
    INIT: { status: 'complete', completedAt: '2024-01-17T09:00:00Z' },
    SCAFFOLD: { status: 'complete', completedAt: '2024-01-17T09:30:00Z' },
    IMPLEMENT: { status: 'in-progress', startedAt: '2024-01-17T09:35:00Z' },
    TEST: { status: 'pending' },
    VERIFY: { status: 'pending' },
    COMPLETE: { status: 'pending' },
  },
  failures: {
    count: 1,
    maxRetries: 3,
    history: [
      {
        stage: 'VERIFY',
        capability: 'work-order-creation',
        error: 'Type error in WorkOrder model',
        timestamp: '2024-01-17T10:15:00Z',
        resolution: 'Fixed type definition',
        resolvedAt: '2024-01-17T10:25:00Z',
      },
    ],
  },
  gates: {
    architecture: { required: false },
    security: { required: true, status: 'pending' },
    database: { required: true, status: 'approved', approvedBy: 'dba@example.com' },
  },
  checkpoints: [{ type: 'commit', hash: 'abc1234', message: 'feat: work order model', at: '2024-01-17T10:00:00Z' }],
  skillsLog: [
    {
      skill: 'spec',
      reason: 'first system',
      startedAt: '2025-01-17T21:52:00Z',
      durationMs: 180000,
      status: 'complete',
      deliverables: ['FEATURESPEC.md'],
    },
  ],
  updatedAt: '2024-01-17T10:30:00Z',
}

describe('migrateState', () => {
  it('passes a current state through unchanged', () => {
    const state = initialState({ loopId: 'l', goal: 'g', policy: policyOf(), now: T0 })
    const result = migrateState(JSON.parse(JSON.stringify(state)), '0.1.0')
    expect(result).toEqual({ state, migratedFrom: null })
  })

  it('migrates the pre-release shape (no schemaVersion) to version 1', () => {
    const { state, migratedFrom } = migrateState(v0, '0.1.0')
    expect(migratedFrom).toBe(0)
    expect(state).toMatchObject({
      schemaVersion: 1,
      loopId: 'sys-002',
      goal: 'Work Order Service',
      stage: 'IMPLEMENT',
      status: 'running',
      iteration: 0,
      pipeline: ['INIT', 'SCAFFOLD', 'IMPLEMENT', 'TEST', 'VERIFY', 'COMPLETE'],
      startedAt: '2024-01-17T09:00:00Z',
      stageEnteredAt: '2024-01-17T10:30:00Z',
      capabilities: {
        total: 5,
        current: 'work-order-assignment',
        remaining: ['status-transitions', 'completion-flow'],
      },
    })
    expect(state.capabilities.completed).toHaveLength(2)
    expect(state.stages.IMPLEMENT).toEqual({ status: 'active', enteredAt: '2024-01-17T09:35:00Z' })
    expect(state.stages.INIT?.status).toBe('done')
    expect(state.failures).toMatchObject({ total: 1, limits: { perFailure: 3 } })
    expect(state.failures.history[0]).toMatchObject({
      stage: 'VERIFY',
      resolution: 'resolved',
      at: '2024-01-17T10:15:00Z',
    })
    expect(Object.keys(state.gates)).toEqual(['security', 'database'])
    expect(state.gates.database).toMatchObject({ status: 'approved', decidedBy: 'dba@example.com' })
    expect(state.checkpoints[0]).toMatchObject({ commit: 'abc1234' })
    expect(state.usage).toMatchObject({ wallMs: 180000, log: [{ what: 'spec', why: 'first system' }] })
    expect(state.metrics.flakes).toBe(0)
  })

  it('turns a v0 BLOCKED state into the blocked status at its active stage', () => {
    const { state } = migrateState({ ...v0, state: 'BLOCKED' }, '0.1.0')
    expect(state).toMatchObject({ status: 'blocked', stage: 'IMPLEMENT' })
  })

  it('refuses a state from a newer schema, saying which version to use', () => {
    const future = { schemaVersion: 7, loopId: 'x' }
    expect(() => migrateState(future, '0.1.0')).toThrow(StateFromTheFutureError)
    expect(() => migrateState(future, '0.1.0')).toThrow(
      /schemaVersion 7, but loop-controller 0\.1\.0 reads schemaVersion 1 at most: it was written by a newer loop-controller/,
    )
  })

  it.each([
    ['not an object', 'hello', /\(the whole state\): expected a JSON object, got string/],
    ['an array', [], /expected a JSON object, got an array/],
    ['a bad schemaVersion', { schemaVersion: 'one' }, /schemaVersion: expected a whole number from 1 to 1, got "one"/],
    ['a bad field', { schemaVersion: 1, loopId: '' }, /loopId: /],
    ['a v0 with no id', { state: 'IMPLEMENT', updatedAt: 'x' }, /loopId: /],
  ])('refuses %s with a StateValidationError naming the field', (_name, raw, message) => {
    expect(() => migrateState(raw, '0.1.0')).toThrow(StateValidationError)
    expect(() => migrateState(raw, '0.1.0')).toThrow(message)
  })

  it('is a ZodError, with the issues', () => {
    try {
      migrateState({ schemaVersion: 1, loopId: 'x', iteration: -1 }, '0.1.0', '.loop/x/loop-state.json')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ZodError)
      expect(error).toBeInstanceOf(Error)
      const e = error as StateValidationError
      expect(e.name).toBe('StateValidationError')
      expect(e.issues.some((i) => i.path.join('.') === 'iteration')).toBe(true)
      expect(e.message).toMatch(/^\.loop\/x\/loop-state\.json is not a valid loop state:\n {2}- /)
    }
  })

  it('runs every step of the registry in order', () => {
    const steps: number[] = []
    const registry = {
      0: (raw: Record<string, unknown>) => {
        steps.push(0)
        return MIGRATIONS[0]?.(raw) ?? raw
      },
    }
    migrateState(v0, '0.1.0', 'loop-state.json', registry)
    expect(steps).toEqual([0])
    expect(() => migrateState(v0, '0.1.0', 'loop-state.json', {})).toThrow(/no migration from schemaVersion 0 to 1/)
  })
})
