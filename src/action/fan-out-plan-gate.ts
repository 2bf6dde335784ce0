import { interpretEvent, parseWorkflowRef } from '../domain/action-event.js'
import { nameOfLoop } from '../domain/depends-on.js'
import { capReopens } from '../domain/engine/index.js'
import type { LoopConfig } from '../domain/loop-config.js'
import { queuedReason } from '../domain/report/queued.js'
import { hasEnded, holdsSlot, limitUnder, requestSlot } from '../domain/slots.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { SlotStore } from '../ports/slots.js'
import type { Store } from '../ports/store.js'
import { DependsOnRefusedError, readDependencies } from './depends-on.js'
import { authorizePerson } from './people-commands.js'
import type { RunContext } from './run-context.js'
import { slotStore } from './slots.js'

/**
 * What plan does for this event: `skip` (no work; decide settles the loop), or `plan`; `admitted` when
 * the loop's state is still `queued` though the loop holds its slot (decide marks it running first).
 */
export type PlanGate = { kind: 'skip'; reason: string } | { kind: 'plan'; admitted: boolean }

export async function planGate(
  run: RunContext,
  input: { loopId: string; config: LoopConfig; root: string },
  deps: {
    github: Pick<GitHubPort, 'getPermission' | 'getAuthenticatedLogin'>
    store: Store
    clock: Clock
    /** The slots record (default: `queue.json` on the state branch, read with the job's token). */
    slots?: Pick<SlotStore, 'update'>
  },
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
 * No work without a slot: under `max-loops` or `depends-on`, plan works only for a loop that holds its
 * slot in the slots record as it is on the state branch. This token cannot write the record, so a loop
 * that could take a free slot is not planned either: decide takes the slot under compare-and-swap and
 * dispatches the iteration to plan again (one short run per start), so two loops started at once never
 * both spend an agent call. A capped loop a higher cap re-opens is not planned either: it asks for a slot
 * as a resume does, in decide. Nothing is written here (the record is handed back unchanged).
 */
async function slotGate(
  run: RunContext,
  input: { loopId: string; config: LoopConfig; root: string },
  deps: { store: Store; clock: Clock; slots?: Pick<SlotStore, 'update'> },
): Promise<PlanGate> {
  let dependsOn: string[]
  let bodyRead: boolean
  try {
    ;({ loops: dependsOn, bodyRead } = readDependencies(run, input.config, input.loopId))
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
  if (deps.store.kind !== 'git' || !parseWorkflowRef(run.workflowRef ?? '')) return plan
  // A higher cap re-opening a capped loop asks for a slot as a resume does: decide saves the raised cap
  // with the loop asking, and takes the slot or queues it, before an iteration is planned.
  const cap = run.settings.maxIterations
  if (loaded && cap !== undefined && capReopens(loaded.state, cap)) {
    return {
      kind: 'skip',
      reason: `the cap ${cap} re-opens the capped loop, which asks for its slot first: decide asks for it (this job cannot write), then the iteration is planned with it`,
    }
  }
  if (hasEnded(status)) return plan
  const slots = deps.slots ?? slotStore(run, input.root)
  const request = {
    loopId: input.loopId,
    dependsOn,
    workflow: '',
    ref: '',
    at: deps.clock.now().toISOString(),
    started: status !== undefined && status !== 'queued' && (loaded?.state.iteration ?? 0) > 0,
    // As decide judges the start: a body read afresh replaces the dependencies the line had named.
    replacesDependencies: bodyRead,
  }
  const verdict = await slots.update([...dependsOn, input.loopId], (record, statuses) => ({
    record,
    result: holdsSlot(record, input.loopId)
      ? null
      : requestSlot(record, request, statuses, limitUnder(record, limit)).verdict,
  }))
  if (verdict === null) return { kind: 'plan', admitted: status === 'queued' }
  if (verdict.kind === 'queued') {
    return { kind: 'skip', reason: `the loop would be queued: ${queuedReason(verdict.wait, nameOfLoop)}` }
  }
  return {
    kind: 'skip',
    reason: `the loop does not hold a slot yet (${verdict.reason}): decide takes the slot first, then the iteration is planned with it`,
  }
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
