/**
 * The first steps of every run: restore the loop's state (or start it) and decide what this run does.
 */
import {
  abort,
  changeCap,
  type Decision,
  decide,
  forgetLostCheckpoint,
  initialState,
  markBlocked,
  reopenIfCapRaised,
} from '../../domain/engine/index.js'
import { Labels } from '../../domain/loop-names.js'
import { lostStateReason } from '../../domain/lost-state.js'
import type { Policy } from '../../domain/policy.js'
import { hasEnded } from '../../domain/slots.js'
import type { LoopState } from '../../domain/state.js'
import { withWatchedPullRequest } from './lost-state-watch.js'
import { event, finish, type LoopRecord, savedMarker, withEvents } from './record.js'
import type { IterationDeps, IterationInput, IterationResult } from './types.js'

export type Restored =
  | { kind: 'decided'; record: LoopRecord; decision: Decision; now: Date }
  /** A dispatch for an iteration that already ran: nothing is decided or saved. */
  | { kind: 'superseded'; result: IterationResult }

/** Loads (or starts) the loop's state and decides this run. */
export async function restoreAndDecide(input: IterationInput, deps: IterationDeps, policy: Policy): Promise<Restored> {
  const { config, loopId } = input
  const now = deps.clock.now()
  const loaded = await deps.store.load(loopId)
  // Events staged by a run that died between its save and its journey append are recovered here.
  await deps.audit.recoverPending(loaded ? savedMarker(loaded.state) : null)
  let record: LoopRecord
  if (loaded) {
    record = { state: loaded.state, events: [], loaded: true, version: loaded.version }
    if (input.capGiven !== undefined && input.capGiven !== loaded.state.maxIterations) {
      // The reason the run was given with it (a cap above 25 was refused without one) is kept with it.
      const changed = changeCap(loaded.state, input.capGiven, now, policy.capReason)
      // A cap given above the iterations run re-opens a loop its iteration cap capped.
      const reopened = reopenIfCapRaised(changed.state, now)
      record = withEvents({ ...record, state: reopened.state }, ...changed.events, ...reopened.events)
    }
  } else {
    const fresh = initialState({ loopId, goal: config.goal, task: input.task ?? null, policy, now })
    // The cap is structural: a lost state restarts counting from the dispatched iteration, never from 0.
    const restarted = input.dispatchedIteration ?? 0
    const state = restarted > 1 ? { ...fresh, iteration: restarted - 1, claimedIteration: restarted - 1 } : fresh
    record = {
      state,
      events: [event(now, state.iteration, 'loop-started', `loop ${loopId} started: ${state.goal}`)],
      loaded: false,
      version: null,
    }
  }

  record = await withLostState(record, input, deps, now)
  record = await withLostCheckpoint(record, input, deps, now)
  const { state } = record
  if (input.dispatchedIteration !== undefined && input.dispatchedIteration <= state.iteration) {
    const decision: Decision = {
      kind: 'WAIT_FOR_HUMAN',
      reason: `iteration ${input.dispatchedIteration} already ran (state is at ${state.iteration})`,
    }
    await deps.audit.appendEvents([
      event(now, state.iteration, 'superseded', `a dispatch of iteration ${input.dispatchedIteration} was superseded`),
    ])
    return { kind: 'superseded', result: finish('superseded', state, decision, decision, {}, record.version) }
  }

  record = await withStopLabel(record, deps, now)
  const decision = decide(
    record.state,
    { now, stopRequested: input.stopRequested || config.stop, pullRequestMerged: await pullRequestMerged(state, deps) },
    policy,
  )
  return {
    kind: 'decided',
    record: withEvents(
      record,
      event(now, record.state.iteration, 'decision', `${decision.kind}: ${decision.reason}`, { decision }),
    ),
    decision,
    now,
  }
}

/**
 * A dispatched iteration whose state the store lost (none at all, or one older than the iteration
 * before it) stops BLOCKED, saying so, instead of starting over or repeating iterations quietly, and
 * says it on the loop's pull request, found again by its branch.
 */
async function withLostState(
  loaded: LoopRecord,
  input: IterationInput,
  deps: IterationDeps,
  now: Date,
): Promise<LoopRecord> {
  const reason = lostStateReason(
    deps.store.kind,
    input.dispatchedIteration,
    loaded.loaded ? loaded.state.iteration : null,
  )
  if (reason === null || hasEnded(loaded.state.status)) return loaded
  deps.logger.warning(`Loop ${loaded.state.loopId}: ${reason}.`)
  const record = await withWatchedPullRequest(loaded, deps, now)
  const blocked = markBlocked(record.state, reason, now)
  return withEvents({ ...record, state: blocked.state }, ...blocked.events)
}

/**
 * The kill switch on the loop's own issue or pull request, read afresh at the start of every
 * iteration: a dispatched job's event carries no labels, so the label is seen only if the loop asks.
 * A loop that finds it is aborted as a person's abort would, saying where the label is.
 */
async function withStopLabel(record: LoopRecord, deps: IterationDeps, now: Date): Promise<LoopRecord> {
  const { state } = record
  if (!deps.stopLabelOn || state.status === 'complete' || state.status === 'aborted' || state.status === 'capped') {
    return record
  }
  const where = await deps.stopLabelOn(state)
  if (where === null) return record
  const aborted = abort(state, `the ${Labels.Stop} label on ${where}`, now)
  return withEvents({ ...record, state: aborted.state }, ...aborted.events)
}

/** Whether the loop's pull request is merged; asked only in SHIP, and only where it can be known. */
export async function pullRequestMerged(state: LoopState, deps: IterationDeps): Promise<boolean | undefined> {
  if (state.stage !== 'SHIP' || !deps.pullRequestMerged) return undefined
  return deps.pullRequestMerged()
}

/**
 * State and branch agree: a last checkpoint that the freshly fetched loop branch does not hold (by
 * commit, or by subject when a push rebased it) was lost with its job, and the state forgets it.
 */
async function withLostCheckpoint(
  record: LoopRecord,
  input: IterationInput,
  deps: IterationDeps,
  now: Date,
): Promise<LoopRecord> {
  const last = record.state.checkpoints.at(-1)
  if (!record.loaded || !last || !deps.git || !input.commit || !input.branchFromRemote) return record
  const log = await deps.git.exec(['log', '--format=%H %s', '-n', '1000', 'HEAD'], { allowFailure: true })
  if (log.exitCode !== 0) return record
  const reached = log.stdout
    .split('\n')
    .some((line) => line.startsWith(`${last.commit} `) || line.slice(41) === last.message)
  if (reached) return record
  const forgotten = forgetLostCheckpoint(record.state, input.branchFromRemote, now)
  deps.logger.warning(forgotten.events[0]?.message ?? '')
  return withEvents({ ...record, state: forgotten.state }, ...forgotten.events)
}
