/**
 * `command: sweep`, on a schedule: finds the loops whose last job ended without a successor (a failed
 * re-dispatch, or a dispatched iteration no job took for `stale-after-minutes`) and dispatches their next
 * iteration again, once (`app/sweep.ts`), after the slots of `max-loops` (`app/slot-sweep.ts`): a loop whose
 * job died holding one is saved BLOCKED (its comment says so) and the next in line started. It runs no
 * project code: no loop branch, no work, no checks; it reads the `git` store's branch through the
 * checkout's remote and calls the API (dispatches, runs, issues, the loops' comments). With `dashboard: true`
 * it rewrites the dashboard when it changed a loop or the line: no loop job may come to show a loop it BLOCKED.
 */
import { join } from 'node:path'
import { type SweptSlot, sweepSlots } from '../app/slot-sweep.js'
import { type Dispatch, sweepChanged, sweepLoops } from '../app/sweep.js'
import { messageOf } from '../config/errors.js'
import { Outputs } from '../constants.js'
import type { Clock } from '../ports/clock.js'
import type { DashboardIssues } from '../ports/dashboard.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { LoopLister, Store } from '../ports/store.js'
import type { ActionIO } from './actions-io.js'
import { reportBlockedElsewhere } from './closed-in-line.js'
import { updateDashboard } from './dashboard.js'
import { dispatchIteration } from './dispatch.js'
import type { RunContext } from './run-context.js'
import { slotDeps, slotsQueue } from './slots.js'
import { createStore, defaultRunnerTemp } from './stores.js'

export async function sweep(
  run: RunContext,
  root: string,
  deps: {
    github: Pick<GitHubPort, 'dispatchWorkflow' | 'getWorkflowRun' | 'getIssueState' | 'upsertStickyComment'>
    logger: Logger
    io: Pick<ActionIO, 'setOutput' | 'writeSummary' | 'setFailed' | 'info'>
    clock: Clock
    redact: (text: string) => string
    /** The dashboard issue (`dashboard: true`), else null. */
    dashboard: DashboardIssues | null
  },
): Promise<void> {
  const runnerTemp = defaultRunnerTemp(run, root)
  // No audit trail travels with a sweeper's save: the folder it would read stays empty.
  const { store } = await createStore({
    run,
    runnerTemp,
    root,
    loopDir: join(runnerTemp, 'loop-controller', 'sweeper-audit'),
    logger: deps.logger,
  })
  if (!isLister(store)) throw new Error(`store '${store.kind}' cannot list its loops; 'command: sweep' needs 'git'`)
  // The slots of `max-loops` first: a holder whose job died (one that took a dispatched iteration too) is
  // BLOCKED and freed before the loops' sweep would dispatch that iteration again; an admitted loop never
  // started is dispatched again.
  const slots = store.kind === 'git' ? await sweepTheSlots(run, root, store, deps) : []
  const dispatch: Dispatch = (loopId, record) => dispatchIteration(loopId, record, deps)
  const swept = await sweepLoops(
    { staleAfterMs: run.settings.staleAfterMinutes * 60_000, by: `sweeper run ${run.runId ?? 'local'}` },
    { store, dispatch, runOf: (runId) => deps.github.getWorkflowRun(runId), clock: deps.clock, logger: deps.logger },
  )
  // A loop the loops' sweep marked BLOCKED gives its slot to the next in line now, not at the next sweep.
  if (store.kind === 'git' && swept.some((loop) => loop.outcome === 'blocked')) {
    const again = await sweepTheSlots(run, root, store, deps)
    slots.push(...again.filter((slot) => slot.outcome !== 'kept' && slot.outcome !== 'blocked'))
  }
  // A loop the sweep marked BLOCKED has no job left to say so: its comment is rewritten here.
  for (const loop of [...slots, ...swept].filter((swept) => swept.outcome === 'blocked')) {
    const state = (await store.load(loop.loopId).catch(() => null))?.state
    if (state?.status === 'blocked') await reportBlockedElsewhere({ run, root, loopId: loop.loopId }, state, deps)
  }
  // Nor has it a job to rewrite the dashboard. A sweep that changed nothing leaves it alone: even a rewrite
  // that finds the body current lists the issue, asks whether it is pinned and reads it, every schedule.
  if (deps.dashboard && sweepChanged(swept, slots)) {
    const queue = slotsQueue(run, root, store)
    await updateDashboard(run, store, { issues: deps.dashboard, logger: deps.logger, queue, clock: deps.clock })
  }
  const dispatched = swept.filter((loop) => loop.outcome === 'dispatched')
  const failed = swept.filter((loop) => loop.outcome === 'failed')
  deps.io.setOutput(Outputs.Status, 'swept')
  if (run.hasStepSummary) {
    const rows = swept.map(row)
    const slotRows = slots.map(row)
    await deps.io.writeSummary(
      `## loop-controller sweep\n\n${swept.length} loop(s) in ${store.describeAll()}; ${dispatched.length} re-dispatched, ${failed.length} failed.\n\n` +
        (rows.length ? `| loop | outcome | why |\n| --- | --- | --- |\n${rows.join('\n')}\n` : '') +
        (slotRows.length
          ? `\n### Slots (\`max-loops\`)\n\n| loop | slot | why |\n| --- | --- | --- |\n${slotRows.join('\n')}\n`
          : ''),
    )
  }
  if (failed.length > 0) {
    deps.io.setFailed(`The sweeper could not re-dispatch ${failed.map((loop) => loop.loopId).join(', ')}: see the log.`)
  }
}

/** The slots' pass; its trouble is said, and never stops the loops' sweep that ran before it. */
async function sweepTheSlots(
  run: RunContext,
  root: string,
  store: Store,
  deps: Parameters<typeof sweep>[2],
): Promise<SweptSlot[]> {
  try {
    const limit = run.settings.maxLoops
    const { slots, start } = slotDeps(run, root, deps)
    return await sweepSlots(
      // Without its own `max-loops`, the sweeper admits under the limit the record was last changed under.
      { limit: limit === null ? undefined : limit, staleAfterMs: run.settings.staleAfterMinutes * 60_000 },
      {
        slots,
        store,
        runOf: (runId) => deps.github.getWorkflowRun(runId),
        start,
        clock: deps.clock,
        logger: deps.logger,
      },
    )
  } catch (error) {
    deps.logger.warning(`The slots were not swept: ${messageOf(error)}`)
    return []
  }
}

/** A loop's row in the summary's tables: the loops' sweep and the slots' share the columns. */
function row(loop: { loopId: string; outcome: string; reason: string }): string {
  return `| \`${loop.loopId}\` | ${loop.outcome} | ${cell(loop.reason)} |`
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function isLister(store: Store): store is Store & LoopLister {
  return typeof (store as Partial<LoopLister>).listLoops === 'function'
}
