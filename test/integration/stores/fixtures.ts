/** Loop states for the store tests: valid ones, built here so the tests do not depend on the engine. */
import { type LoopState, loopStateSchema, STATE_SCHEMA_VERSION } from '../../../src/domain/state.js'

/** A valid state of `loopId` at `iteration`; `goal` lets a test tell two writers' states apart. */
export function makeState(loopId: string, iteration: number, goal = 'make the tests pass'): LoopState {
  const at = new Date(Date.UTC(2025, 0, 1, 0, iteration)).toISOString()
  return loopStateSchema.parse({
    schemaVersion: STATE_SCHEMA_VERSION,
    loopId,
    iteration,
    stage: 'IMPLEMENT',
    status: 'running',
    goal,
    pipeline: ['IMPLEMENT', 'VERIFY', 'COMPLETE'],
    maxIterations: 10,
    startedAt: at,
    updatedAt: at,
    stageEnteredAt: at,
    capabilities: { total: 0, completed: [], current: null, remaining: [] },
    stages: { IMPLEMENT: { status: 'active', enteredAt: at } },
    failures: {
      total: 0,
      consecutive: 0,
      sameError: 0,
      limits: { perFailure: 3, sameError: 2, total: 10 },
      current: null,
      tried: [],
      history: [],
    },
    gates: {},
    checkpoints: [],
    tasks: { completed: [], skipped: [] },
    usage: { log: [], wallMs: 0, tokens: 0, costUsd: 0 },
    budget: {},
    claimedIteration: iteration,
    metrics: {},
  })
}

/** Text that parses as JSON but is not a loop state. */
export const WRONG_SHAPE = JSON.stringify({ schemaVersion: 1, loopId: 'x', iteration: 'three' })

/** A state written by a future schema version. */
export function futureStateText(loopId: string): string {
  return JSON.stringify({ ...makeState(loopId, 1), schemaVersion: STATE_SCHEMA_VERSION + 1, somethingNew: true })
}
