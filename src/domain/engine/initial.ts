import { DEFAULT_GOAL } from '../loop-config.js'
import { goalFromTask, type LoopTask } from '../loop-task.js'
import type { Policy } from '../policy.js'
import { type LoopState, STATE_SCHEMA_VERSION } from '../state.js'
import { EngineError } from './errors.js'

/** A fresh loop at the first stage of its pipeline, iteration 0, with the policy's limits recorded. */
export function initialState(input: {
  loopId: string
  /** The config's goal, when it sets one; else the task's, else `DEFAULT_GOAL`. */
  goal?: string | undefined
  task?: LoopTask | null | undefined
  policy: Policy
  now: Date
}): LoopState {
  const { loopId, task, policy, now } = input
  const goal = input.goal ?? (task ? goalFromTask(task) : DEFAULT_GOAL)
  if (loopId.trim() === '' || loopId.length > 200) {
    throw new EngineError(`loop id must be 1 to 200 characters; got '${loopId.slice(0, 60)}'.`)
  }
  const first = policy.pipeline[0]
  if (!first) throw new EngineError('the pipeline is empty; it needs at least one stage.')
  const at = now.toISOString()
  const stages: LoopState['stages'] = {}
  for (const stage of policy.pipeline) stages[stage] = { status: 'pending' }
  stages[first] = { status: 'active', enteredAt: at }
  const [current = null, ...remaining] = policy.capabilities
  return {
    schemaVersion: STATE_SCHEMA_VERSION,
    loopId,
    iteration: 0,
    stage: first,
    status: first === 'COMPLETE' ? 'complete' : 'running',
    statusReason: '',
    goal,
    ...(task ? { task } : {}),
    pipeline: [...policy.pipeline],
    maxIterations: policy.maxIterations,
    ...(policy.capReason ? { capReason: policy.capReason } : {}),
    startedAt: at,
    updatedAt: at,
    stageEnteredAt: at,
    capabilities: { total: policy.capabilities.length, completed: [], current, remaining },
    stages,
    failures: {
      total: 0,
      consecutive: 0,
      sameError: 0,
      limits: { perFailure: policy.retry.perFailure, sameError: policy.retry.sameError, total: policy.retry.total },
      current: null,
      tried: [],
      history: [],
      compacted: 0,
    },
    gates: {},
    checkpoints: [],
    tasks: { completed: [], skipped: [] },
    usage: { log: [], compacted: 0, wallMs: 0, tokens: 0, costUsd: 0 },
    budget: { ...policy.budget },
    claimedIteration: 0,
    metrics: {
      attempts: [],
      byPattern: {},
      strategiesUsed: {},
      flakes: 0,
      regressions: 0,
      autoFixes: 0,
      workCalls: 0,
      deadLetters: 0,
      timeToGreenMs: null,
    },
  }
}
