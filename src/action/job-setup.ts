/**
 * What every job of a loop sets up alike, whichever command it runs (the single job, fan-out's plan,
 * verify and decide): the isolation the input asks for, the host the push token may go to, the loop's
 * audit trail and store, and the dashboard's refresh at the job's end.
 */
import { join } from 'node:path'
import { AuditTrail } from '../adapters/audit-trail.js'
import { GitCli } from '../adapters/git-cli.js'
import { chooseIsolation, type IsolationPlan, IsolationUnavailableError } from '../adapters/isolation.js'
import { ConfigError } from '../config/errors.js'
import { interpretEvent } from '../domain/action-event.js'
import { type IsolationMode, isolationLine } from '../domain/isolation.js'
import type { DashboardIssues } from '../ports/dashboard.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import type { ActionIO } from './actions-io.js'
import { updateDashboard } from './dashboard.js'
import type { RunContext } from './run-context.js'
import { slotsQueue } from './slots.js'
import { StoreWarnings } from './store-warnings.js'
import { type AuditSource, createStore, defaultRunnerTemp } from './stores.js'

/** What runs when the job ends, once the loop's store is known. */
export interface JobEnd {
  dashboard?: () => Promise<void>
  /** The last put-back of the runner's file commands (`runner-files.ts`), after everything else. */
  runnerFiles?: () => void
}

/** The dashboard a loop job keeps: its issues and the job's end, where the refresh is registered. */
export interface JobDashboard {
  issues: DashboardIssues
  jobEnd: JobEnd
}

/** The isolation the input asks for, said in the log (loudly when there is none). */
export function announcedIsolation(mode: IsolationMode, deps: { logger: Logger; io: ActionIO }): IsolationPlan {
  const isolation = isolationFor(mode)
  if (isolation.report.level === 'none') deps.logger.warning(isolationLine(isolation.report))
  else deps.io.info(isolationLine(isolation.report))
  return isolation
}

/** The isolation the input asks for; one that cannot be had here is the user's to change. */
function isolationFor(mode: IsolationMode): IsolationPlan {
  try {
    return chooseIsolation(mode)
  } catch (error) {
    if (error instanceof IsolationUnavailableError) throw new ConfigError(`Input 'isolation': ${error.message}`)
    throw error
  }
}

/** The origin (`https://github.com`) of the checkout's `origin` remote when it is on HTTP(S), else `fallback`. */
export async function remoteHost(root: string, fallback: string): Promise<string> {
  const url = await new GitCli(root).exec(['remote', 'get-url', 'origin'], { allowFailure: true })
  try {
    const parsed = new URL(url.stdout.trim())
    return /^https?:$/.test(parsed.protocol) ? parsed.origin : fallback
  } catch {
    return fallback
  }
}

/** The loop's audit trail (under the runner's temporary folder) and the store that carries its state. */
export async function openLoopStore(
  run: RunContext,
  parts: { root: string; loopId: string; logger: Logger; redact: (text: string) => string },
): Promise<{
  runnerTemp: string
  loopDir: string
  audit: AuditTrail
  store: Store
  auditSource: AuditSource | null
  storeWarnings: StoreWarnings
}> {
  const runnerTemp = defaultRunnerTemp(run, parts.root)
  const loopDir = join(runnerTemp, 'loop-controller', 'audit', parts.loopId)
  const audit = new AuditTrail(loopDir, parts.redact)
  const storeWarnings = new StoreWarnings()
  const { store, auditSource } = await createStore({
    run,
    runnerTemp,
    root: parts.root,
    loopDir,
    logger: parts.logger,
    warnings: storeWarnings,
  })
  return { runnerTemp, loopDir, audit, store, auditSource, storeWarnings }
}

/**
 * Registers the dashboard's rewrite for the job's end, with the queue's places; an event with nothing
 * for any loop (another issue edited, an unrelated label) leaves it alone.
 */
export function refreshDashboardAtEnd(
  run: RunContext,
  dashboard: JobDashboard | undefined,
  deps: { root: string; store: Store; logger: Logger },
): void {
  if (!dashboard || interpretEvent(run.event.name, run.event.payload).kind === 'none') return
  const queue = slotsQueue(run, deps.root, deps.store)
  dashboard.jobEnd.dashboard = () =>
    updateDashboard(run, deps.store, { issues: dashboard.issues, logger: deps.logger, queue })
}
