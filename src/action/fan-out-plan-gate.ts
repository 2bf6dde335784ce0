import { interpretEvent, parseWorkflowRef } from '../domain/action-event.js'
import { nameOfLoop } from '../domain/depends-on.js'
import type { LoopConfig } from '../domain/loop-config.js'
import { queuedReason } from '../domain/report/queued.js'
import { hasEnded, requestSlot } from '../domain/slots.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Store } from '../ports/store.js'
import { authorizePerson } from './people-commands.js'
import type { RunContext } from './run-context.js'
import { DependsOnRefusedError, dependenciesOf, slotStore } from './slots.js'

/**
 * What plan does for this event: `skip` (no work; decide settles the loop), or `plan`; `admitted` when
 * the loop's state is still `queued` though the loop holds its slot (decide marks it running first).
 */
export type PlanGate = { kind: 'skip'; reason: string } | { kind: 'plan'; admitted: boolean }

export async function planGate(
  run: RunContext,
  input: { loopId: string; config: LoopConfig; root: string },
  deps: { github: Pick<GitHubPort, 'getPermission' | 'getAuthenticatedLogin'>; store: Store; clock: Clock },
): Promise<PlanGate> {
  const intent = interpretEvent(run.event.name, run.event.payload)
  if (intent.kind !== 'run' && intent.kind !== 'start') {
    const what = intent.kind === 'none' ? intent.why : intent.kind
    return {
      kind: 'skip',
      reason: `this ${run.event.name} event runs no iteration (${what}); decide applies what it asks`,
    }
  }
  if (intent.kind === 'start') {
    const authorization = await authorizePerson(deps.github, intent.actor, intent.actorType)
    if (!authorization.allowed)
      return { kind: 'skip', reason: `the start is refused (${authorization.reason}); decide says so` }
  }
  return slotGate(run, input, deps)
}

/**
 * Whether the loop would be queued if it asked for a slot now: a dry run of the request on the slots
 * record as it is on the state branch; nothing is written (the record is handed back unchanged).
 */
async function slotGate(
  run: RunContext,
  input: { loopId: string; config: LoopConfig; root: string },
  deps: { store: Store; clock: Clock },
): Promise<PlanGate> {
  let dependsOn: string[]
  try {
    dependsOn = dependenciesOf(run, input.config)
  } catch (error) {
    // A line decide refuses: it reports the refusal, and the work would be dropped.
    if (error instanceof DependsOnRefusedError)
      return { kind: 'skip', reason: `${error.message} (decide refuses the start)` }
    throw error
  }
  const limit = run.settings.maxLoops
  const plan: PlanGate = { kind: 'plan', admitted: false }
  // An admitted loop's job is dispatched for iteration 1: only then may a loop without a limit be queued.
  if (limit === null && dependsOn.length === 0 && run.settings.iteration !== 1) return plan
  const loaded = await deps.store.load(input.loopId)
  const status = loaded?.state.status
  if (limit === null && dependsOn.length === 0 && status !== 'queued') return plan
  if (hasEnded(status) || deps.store.kind !== 'git' || !parseWorkflowRef(run.workflowRef ?? '')) return plan
  const slots = slotStore(run, input.root)
  const request = {
    loopId: input.loopId,
    dependsOn,
    workflow: '',
    ref: '',
    at: deps.clock.now().toISOString(),
    started: status !== undefined && status !== 'queued' && (loaded?.state.iteration ?? 0) > 0,
  }
  const verdict = await slots.update([...dependsOn, input.loopId], (record, statuses) => ({
    record,
    result: requestSlot(record, request, statuses, limit).verdict,
  }))
  if (verdict.kind === 'queued') {
    return { kind: 'skip', reason: `the loop would be queued: ${queuedReason(verdict.wait, nameOfLoop)}` }
  }
  return { kind: 'plan', admitted: status === 'queued' }
}

/**
 * The store as plan reads it once its queued loop is admitted: the state `running`, as decide saves it
 * (and nothing else) when it takes the slot before it takes the plan. Plan saves nothing.
 */
export function admittedView(store: Store): Store {
  return {
    kind: store.kind,
    load: async (loopId) => {
      const loaded = await store.load(loopId)
      if (loaded?.state.status !== 'queued') return loaded
      return { ...loaded, state: { ...loaded.state, status: 'running', statusReason: '' } }
    },
    save: (loopId, state, expectedVersion) => store.save(loopId, state, expectedVersion),
    reset: (loopId) => store.reset(loopId),
    describe: (loopId) => store.describe(loopId),
  }
}
