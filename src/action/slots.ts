import { GitSlotStore } from '../adapters/stores/git-slot-store.js'
import { GitStore } from '../adapters/stores/git-store.js'
import { type ReopenAskingDeps, reopenAskingForSlot } from '../app/reopen-asking.js'
import { askForSlot, cycleOf, giveBackSlot, type SlotDeps, stillInLine } from '../app/slots.js'
import { ConfigError, messageOf } from '../config/errors.js'
import { Outputs } from '../constants.js'
import { interpretEvent, parseWorkflowRef } from '../domain/action-event.js'
import { nameOfCycle, nameOfLoop } from '../domain/depends-on.js'
import type { LoopConfig } from '../domain/loop-config.js'
import { cycleRefusal, dependsOnRefusal } from '../domain/report/depends-on-refusal.js'
import type { QueueView } from '../domain/report/loops-table.js'
import { notInLineRefusal, queuedReason, TOLD_IN_LINE } from '../domain/report/queued.js'
import type { Refusal } from '../domain/report/refusal.js'
import { ASKING_FOR_SLOT } from '../domain/slot-sweep.js'
import { hasEnded, type Limit, limitUnder } from '../domain/slots.js'
import type { LoopState } from '../domain/state.js'
import type { AuditLog } from '../ports/audit.js'
import type { Clock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import { type Store, StoreConflictError } from '../ports/store.js'
import { VERSION } from '../version.js'
import { keptForRunningJob } from './abort-beside.js'
import { reportAbortedInLine } from './aborted-in-line.js'
import type { ActionIO } from './actions-io.js'
import { blockClosed, closedIssueOf } from './closed-in-line.js'
import { DependsOnRefusedError, dependencyTargetsProblem, readDependencies } from './depends-on.js'
import { dispatchRef } from './dispatch.js'
import { firstState, saveFirstState } from './first-state.js'
import { outsideLoopGroup } from './hand-over.js'
import { reportAdmitted, reportQueued, saveStatus } from './queued-status.js'
import type { RunContext } from './run-context.js'
import { stateBranchOptions } from './stores.js'

export interface SlotJobDeps {
  store: Store
  github: Pick<GitHubPort, 'dispatchWorkflow' | 'upsertStickyComment' | 'getIssueState' | 'getWorkflowRun'>
  io: Pick<ActionIO, 'setOutput' | 'writeSummary' | 'info'>
  logger: Logger
  clock: Clock
  redact: (text: string) => string
  /** Tells the person who started the loop why it did not start (summary and comment). */
  reportRefusal: (refusal: Refusal) => Promise<void>
  /** This loop's journey log, brought back from the store first so the events join its trail. */
  audit: Pick<AuditLog, 'appendEvents'>
  restoreAudit: () => Promise<void>
  /** The dashboard issue (`dashboard: true`), which a queued loop's comment links to: the line as it is now. */
  dashboard?: () => Promise<{ number: number; url: string } | undefined>
}

export function slotStore(run: RunContext, root: string): GitSlotStore {
  return new GitSlotStore({ ...stateBranchOptions(run, root), by: `run ${run.runId ?? 'local'}` })
}

/**
 * The git store for other loops' states (a queued loop's status, read or saved by the job of another
 * loop): it carries no audit trail, where this job's store would commit its own loop's trail there.
 */
function otherLoopsStore(run: RunContext, root: string): Store {
  return new GitStore({
    ...stateBranchOptions(run, root),
    toolVersion: VERSION,
    ...(run.runId !== undefined ? { runId: run.runId } : {}),
    ...(run.runAttempt !== undefined ? { runAttempt: run.runAttempt } : {}),
  })
}

export function slotDeps(
  run: RunContext,
  root: string,
  deps: Pick<SlotJobDeps, 'github' | 'clock' | 'logger' | 'io' | 'redact'>,
): SlotDeps & { slots: GitSlotStore } {
  return {
    slots: slotStore(run, root),
    clock: deps.clock,
    logger: deps.logger,
    start: async (entry) => {
      const store = otherLoopsStore(run, root)
      const state = (await store.load(entry.loopId))?.state
      // A loop whose issue was closed while it waited is not started (nothing reacts to `issues: closed`).
      const closed = state ? await closedIssueOf(state, deps) : null
      if (state && closed !== null) {
        await blockClosed({ run, root, loopId: entry.loopId, issue: closed }, { ...deps, store })
        return { dropped: `its issue #${closed} is closed` }
      }
      const iteration = (state?.iteration ?? 0) + 1
      const dispatched = await deps.github.dispatchWorkflow({
        workflow: entry.workflow,
        ref: entry.ref,
        inputs: { 'loop-id': entry.loopId, iteration: String(iteration) },
      })
      const runId = dispatched.runId !== undefined ? String(dispatched.runId) : undefined
      // Its comment said queued: from its admission on it names the run that starts it.
      if (state && runId !== undefined) await reportAdmitted(run, { loopId: entry.loopId, state, runId }, deps)
      return runId
    },
  }
}

/**
 * How the dashboard reads the slots record (once per listing of the loops), with the job's `max-loops`
 * (without one, the record's); null where the store keeps none (a store other than git).
 */
export function slotsQueue(run: RunContext, root: string, store: Pick<Store, 'kind'>): () => Promise<QueueView | null> {
  return async () => {
    if (store.kind !== 'git') return null
    const record = await slotStore(run, root).current()
    return { record, limit: limitUnder(record, run.settings.maxLoops) }
  }
}

/** What giving a slot back needs of the job: no audit trail (it saves other loops' states only). */
export type ReleaseDeps = Pick<SlotJobDeps, 'store' | 'github' | 'io' | 'logger' | 'clock' | 'redact' | 'dashboard'>

/**
 * A cap given to this job that re-opens a capped loop asks for a slot as a resume does, where the loop
 * must have one (`asksForSlot`): the raised cap is saved with the loop queued, asking, before `takeSlot`
 * asks, for the job that admits the loop from the line (dispatched with no cap). Nothing without a cap.
 */
export async function reopenForSlot(
  input: { loopId: string; capGiven: number | undefined; asksForSlot: boolean },
  deps: ReopenAskingDeps & { io: Pick<ActionIO, 'info'>; restoreAudit: () => Promise<void> },
): Promise<void> {
  if (input.capGiven === undefined || !input.asksForSlot) return
  await deps.restoreAudit()
  const reopened = await reopenAskingForSlot({ loopId: input.loopId, cap: input.capGiven }, deps)
  if (reopened)
    deps.io.info(`Loop ${input.loopId} is re-opened by the cap ${reopened.maxIterations}: it asks for a slot.`)
}

/**
 * Asks for the loop's slot. Returns true when the loop runs now; false when it is queued (saved
 * `queued`, reported) or refused for its `depends-on` (an unreadable line, the config naming the loop's
 * own issue, a cycle: told on the issue), and the job ends here, green.
 */
export async function takeSlot(
  run: RunContext,
  input: { loopId: string; config: LoopConfig; root: string },
  /** `getIssueKind`: a start asks whether each dependency is an issue. */
  deps: SlotJobDeps & { github: Pick<GitHubPort, 'getIssueKind'> },
): Promise<boolean> {
  const limit: Limit = run.settings.maxLoops
  let dependsOn: string[]
  let bodyRead: boolean
  try {
    ;({ loops: dependsOn, bodyRead } = readDependencies(run, input.config, input.loopId))
  } catch (error) {
    if (!(error instanceof DependsOnRefusedError)) throw error
    return refuseDependsOn(input.loopId, error, deps)
  }
  // A queued loop's job is dispatched for iteration 1; it is admitted whatever this workflow's inputs say.
  // A start from its issue may find it queued too (its `depends-on:` line since edited): it asks again.
  // Only the git store keeps a queue, so only there may a loop be queued.
  const mayBeQueued = run.settings.iteration === 1 || (bodyRead && deps.store.kind === 'git')
  if (limit === null && dependsOn.length === 0 && !mayBeQueued) return true
  const loaded = await deps.store.load(input.loopId)
  if (limit === null && dependsOn.length === 0 && loaded?.state.status !== 'queued') return true
  if (deps.store.kind !== 'git') {
    throw new ConfigError(
      `'depends-on' needs 'store: git' (the queue of loops lives on the git store's branch); got 'store: ${deps.store.kind}' with 'depends-on: ${dependsOn.map(nameOfLoop).join(', ')}'. Use the default store, 'git', or remove 'depends-on'.`,
    )
  }
  // A loop that ended is reported as it is; a person's resume (which runs it again) is not queued.
  if (loaded && hasEnded(loaded.state.status)) return true
  // Asked at a start (the issue body read, or the loop's first job, with the config's list): a later
  // job's loop was asked about when it started.
  const asks = bodyRead || !loaded
  const targets = asks ? await dependencyTargetsProblem(dependsOn, run.repository ?? 'this repository', deps) : null
  if (targets !== null) return refuseDependsOn(input.loopId, new DependsOnRefusedError(targets, 'target'), deps)
  const target = parseWorkflowRef(run.workflowRef ?? '')
  if (!target) {
    deps.logger.warning(
      `max-loops and depends-on need GITHUB_WORKFLOW_REF to dispatch queued loops; got '${run.workflowRef}'. The loop runs unqueued.`,
    )
    return true
  }
  const slots = slotDeps(run, input.root, deps)
  // A new loop that would wait in a cycle is refused before it has a state, so a start after the fix is fresh.
  const cycle =
    loaded || dependsOn.length === 0 ? null : await cycleOf({ loopId: input.loopId, dependsOn }, slots.slots)
  if (cycle) return refuseCycle(input.loopId, cycle, deps)
  // The state exists before the loop is in line: a job that admits it later finds its task there.
  let current = loaded ?? (await saveNew(run, input, deps))
  const verdict = await askForSlot(
    {
      loopId: input.loopId,
      dependsOn,
      workflow: target.file,
      ref: dispatchRef(target.ref, run.event.defaultBranch),
      // A person's resume runs a loop that gave its slot back when it ended: it queues like a new one.
      started: current.state.status !== 'queued' && current.state.iteration > 0 && !asksResume(run),
      replacesDependencies: bodyRead,
      // The run that has the loop: not a pull request comment's job, which hands an existing loop's
      // iteration to a dispatch instead of running it.
      ...(run.runId !== undefined && !(outsideLoopGroup(run) && loaded) ? { run: run.runId } : {}),
    },
    limit,
    slots,
  ).catch(async (error: unknown) => {
    // A new or resumed loop saved queued, asking, but not in line: no loop ending would start it, so its
    // issue is told (and the job fails with the error).
    const resumed = loaded?.state.status === 'queued' && loaded.state.statusReason === ASKING_FOR_SLOT
    if (!loaded || resumed) await tellNotInLine(input.loopId, error, deps, resumed ? 'resume' : 'start')
    throw error
  })
  if (verdict.kind === 'cycle') {
    // Out of line (a place it had is given up); its state says why, and a start after the fix asks again.
    if (current.state.status === 'queued') {
      await saveStatus(
        input.loopId,
        'queued',
        `refused: its depends-on would close a cycle, ${nameOfCycle(verdict.cycle)}`,
        deps,
      )
    }
    return refuseCycle(input.loopId, verdict.cycle, deps)
  }
  if (verdict.kind === 'admitted') {
    deps.logger.info(`Loop ${input.loopId} is admitted: ${verdict.reason}.`)
    if (current.state.status === 'queued') {
      await journey(deps, 'admitted', `loop ${input.loopId} admitted: ${verdict.reason}`)
      const admitted = await saveStatus(input.loopId, 'running', '', deps)
      // Its comment said queued: from now on it says which run runs the loop. A pull request comment's
      // job hands the iteration to a dispatch instead, whose job reports it.
      if (!(outsideLoopGroup(run) && loaded)) {
        await reportAdmitted(run, { loopId: input.loopId, state: admitted.state }, deps)
      }
    }
    return true
  }
  const reason = queuedReason(verdict.wait, nameOfLoop)
  const { position, queued } = verdict.wait
  // Before the save, which carries the trail with it.
  await journey(deps, 'queued', `loop ${input.loopId} queued (${position} of ${queued} in line): ${reason}`, {
    position,
    dependsOn,
  })
  // A resumed loop is `running` until here; it waits in line `queued` like any other.
  current = await saveStatus(input.loopId, 'queued', reason, deps, asksResume(run))
  await reportQueued(run, { loopId: input.loopId, state: current.state, wait: verdict.wait }, deps)
  deps.io.setOutput(Outputs.Status, 'queued')
  return false
}

/**
 * The job that ended or stopped the loop gives its slot back, starts the loops admitted in its place,
 * and tells the queued loops whose dependency ended short of COMPLETE. Does nothing when neither
 * `max-loops` nor a queue is in use; a failure only warns (the next change frees the slot).
 */
export async function releaseSlot(
  run: RunContext,
  input: {
    loopId: string
    state?: LoopState
    root: string
    /** This job ran the loop and saved its end (not a person's command applied beside it). */
    endedHere?: boolean
  },
  deps: ReleaseDeps,
): Promise<void> {
  const limit = run.settings.maxLoops
  // Without a state in hand (a person's command), it is read where this workflow uses the queue, or for
  // an abort: a loop queued by `depends-on` alone is to leave the line and be told so.
  if (deps.store.kind !== 'git' || (input.state === undefined && limit === null && !asksAbort(run))) return
  const state = input.state ?? (await deps.store.load(input.loopId))?.state
  if (!state || !hasEnded(state.status)) return
  const slots = slotDeps(run, input.root, deps)
  try {
    // An iteration that runs on in another job keeps the slot until that job ends (it gives it back).
    const abortedBeside = state.status === 'aborted' && !input.endedHere
    if (abortedBeside && (await keptForRunningJob(run, input, state, { ...deps, slots: slots.slots }))) return
    // Its end was saved by this job (a state in hand, or a person's abort): the line may wait on it.
    const endedNow = input.state !== undefined || asksAbort(run)
    const released = await giveBackSlot(input.loopId, limit, slots, { endedNow })
    if (released.released) deps.logger.info(`Loop ${input.loopId} gave its slot back.`)
    // A queued loop aborted: no job of it runs again to say so, so this one does (its comment said queued).
    if (released.leftLine && state.status === 'aborted') {
      const aborted = { loopId: input.loopId, state, wait: released.leftLine, root: input.root }
      await reportAbortedInLine(run, aborted, deps).catch((error: unknown) =>
        deps.logger.warning(
          deps.redact(
            `Loop ${input.loopId} left the line, but its status comment does not say it was aborted (${messageOf(error)}).`,
          ),
        ),
      )
    }
    for (const entry of released.started) deps.io.info(`Loop ${entry.loopId} starts in its place.`)
    // Those still in line learn their new place, or that a dependency ended short (the first few:
    // each costs a state read and a comment update).
    const others = { store: otherLoopsStore(run, input.root), clock: deps.clock }
    for (const { loopId, wait } of released.inLine.slice(0, TOLD_IN_LINE)) {
      const loaded = await others.store.load(loopId)
      if (loaded?.state.status !== 'queued') continue
      const reason = queuedReason(wait, nameOfLoop)
      const state =
        loaded.state.statusReason === reason ? loaded.state : (await saveStatus(loopId, 'queued', reason, others)).state
      if (!(await stillInLine(loopId, slots))) continue
      await reportQueued(run, { loopId, state, wait, summary: false, releasedBy: input.loopId }, deps)
    }
  } catch (error) {
    deps.logger.warning(
      `The slot of loop ${input.loopId} was not given back now (${messageOf(error)}); the next change of the queue frees it.`,
    )
  }
}

async function tellNotInLine(
  loopId: string,
  error: unknown,
  deps: SlotJobDeps,
  asked: 'start' | 'resume',
): Promise<void> {
  await deps
    .reportRefusal(notInLineRefusal(loopId, deps.redact(messageOf(error)), asked))
    .catch((reportError: unknown) =>
      deps.logger.warning(
        deps.redact(`Loop ${loopId} is not in line, and its issue was not told (${messageOf(reportError)}).`),
      ),
    )
}

async function refuseDependsOn(loopId: string, error: DependsOnRefusedError, deps: SlotJobDeps): Promise<false> {
  await deps.reportRefusal(dependsOnRefusal(loopId, error.message, error.source))
  deps.io.setOutput(Outputs.Status, 'refused')
  return false
}

async function refuseCycle(loopId: string, cycle: readonly string[], deps: SlotJobDeps): Promise<false> {
  await deps.reportRefusal(cycleRefusal(loopId, cycle))
  deps.io.setOutput(Outputs.Status, 'refused')
  return false
}

/**
 * Whether a person's `/loop resume` (or `command: resume`) of the loop asks for a slot before it runs:
 * where `takeSlot` would (the git store, a workflow to dispatch, and `max-loops` or `depends-on`), so the
 * resume is saved `queued`, asking, and never `running` with no job should the asking fail.
 */
export function resumeAsksForSlot(
  run: RunContext,
  input: { loopId: string; config: LoopConfig },
  store: Pick<Store, 'kind'>,
): boolean {
  if (store.kind !== 'git' || !parseWorkflowRef(run.workflowRef ?? '')) return false
  if (run.settings.maxLoops !== null) return true
  try {
    return readDependencies(run, input.config, input.loopId).loops.length > 0
  } catch (error) {
    // `takeSlot` refuses the line; the loop stays queued, asking, where the sweeper finds it.
    if (error instanceof DependsOnRefusedError) return true
    throw error
  }
}

/** Whether a dashboard tick's resume asks for a slot (`queueResumed`): `max-loops` only, no `depends-on` read. */
export function dashboardResumeAsksForSlot(run: RunContext, store: Pick<Store, 'kind'>): boolean {
  return run.settings.maxLoops !== null && store.kind === 'git' && parseWorkflowRef(run.workflowRef ?? '') !== null
}

/**
 * A dashboard tick resumed `loopId` (BLOCKED, its slot given back when it ended), saved `queued`,
 * asking for a slot (`dashboardResumeAsksForSlot`): it asks like a new loop before its next iteration is
 * dispatched. Returns the state to go on with: `running` (a slot is its; dispatch it) or `queued` (saved
 * and told so; it starts when a slot frees). Should the asking fail, the loop stays queued, asking, and
 * the error says so: a sweeper marks it BLOCKED after `stale-after-minutes`, and a resume asks again.
 */
export async function queueResumed(
  run: RunContext,
  input: { loopId: string; state: LoopState; root: string },
  /** `audit`: the loop's journey log, its trail already brought back by the caller. */
  deps: ReleaseDeps & Pick<SlotJobDeps, 'audit'>,
): Promise<LoopState> {
  const limit = run.settings.maxLoops
  const target = parseWorkflowRef(run.workflowRef ?? '')
  const asking = input.state.status === 'queued' && input.state.statusReason === ASKING_FOR_SLOT
  if (limit === null || deps.store.kind !== 'git' || !asking || !target) return input.state
  const verdict = await askForSlot(
    {
      loopId: input.loopId,
      dependsOn: [],
      workflow: target.file,
      ref: dispatchRef(target.ref, run.event.defaultBranch),
      started: false,
    },
    limit,
    slotDeps(run, input.root, deps),
  ).catch((error: unknown) => {
    throw new Error(
      `resumed, but its slot was not asked for (${messageOf(error)}); it stays queued, asking for a slot, until a sweeper marks it BLOCKED after stale-after-minutes (resume it again, here or with /loop resume, once the cause is fixed)`,
    )
  })
  // A resumed loop names no dependency here, so it cannot close a cycle.
  if (verdict.kind === 'cycle') return input.state
  if (verdict.kind === 'admitted') {
    await journey(deps, 'admitted', `loop ${input.loopId} admitted: ${verdict.reason}`)
    return (await saveStatus(input.loopId, 'running', '', deps)).state
  }
  const reason = queuedReason(verdict.wait, nameOfLoop)
  const { position, queued } = verdict.wait
  // Before the save, which carries the trail with it: the trail says why it waits, as a `/loop resume` that queues does.
  await journey(deps, 'queued', `loop ${input.loopId} queued (${position} of ${queued} in line): ${reason}`, {
    position,
    dependsOn: [],
  })
  const saved = await saveStatus(input.loopId, 'queued', reason, deps, true)
  await reportQueued(run, { loopId: input.loopId, state: saved.state, wait: verdict.wait, summary: false }, deps)
  return saved.state
}

async function journey(
  deps: Pick<SlotJobDeps, 'audit' | 'clock'> & Partial<Pick<SlotJobDeps, 'restoreAudit'>>,
  type: 'queued' | 'admitted',
  message: string,
  data?: Record<string, unknown>,
): Promise<void> {
  await deps.restoreAudit?.()
  const at = deps.clock.now().toISOString()
  await deps.audit.appendEvents([{ at, iteration: 0, type, message, ...(data ? { data } : {}) }])
}

async function saveNew(
  run: RunContext,
  input: { loopId: string; config: LoopConfig },
  deps: SlotJobDeps,
): Promise<{ state: LoopState; version: string }> {
  const fresh = firstState(run.event, input, deps.clock.now())
  const state: LoopState = { ...fresh, status: 'queued', statusReason: ASKING_FOR_SLOT }
  const saved = await saveFirstState(deps.store, input.loopId, state)
  if (!saved)
    throw new StoreConflictError(`loop ${input.loopId}: another job saved its first state, which is gone again`)
  return saved
}

/** This job's event is a person's abort: the `command` input, fan-out's `person-command`, or a comment or label. */
function asksAbort(run: RunContext): boolean {
  return asksCommand(run, 'abort')
}

/** This job's event is a person's resume (of a loop that ended BLOCKED or capped, or waits). */
function asksResume(run: RunContext): boolean {
  return asksCommand(run, 'resume')
}

function asksCommand(run: RunContext, kind: 'abort' | 'resume'): boolean {
  if (run.settings.command === kind || run.settings.personCommand === kind) return true
  const intent = interpretEvent(run.event.name, run.event.payload)
  return intent.kind === 'command' && intent.command.kind === kind
}
