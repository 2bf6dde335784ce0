/**
 * The `dashboard` input: the pinned `Loop dashboard` issue, rewritten at the end of every loop job
 * (a failure only warns: the loop's own work is done), and the ticks people make on it, read from
 * the `issues` `edited` event of that issue and applied as people's commands (`app/dashboard.ts`).
 */
import { join } from 'node:path'
import { AuditTrail } from '../adapters/audit-trail.js'
import { OctokitDashboardIssues } from '../adapters/dashboard-issue.js'
import { createOctokit } from '../adapters/github-client.js'
import { applyDashboardTicks, refreshDashboard } from '../app/dashboard.js'
import { applyPeopleCommand } from '../app/people-commands.js'
import { messageOf } from '../config/errors.js'
import { DASHBOARD_LABEL, noteText } from '../domain/report/dashboard.js'
import { link } from '../domain/report/escape.js'
import type { QueueView } from '../domain/report/loops-table.js'
import { type Clock, systemClock } from '../ports/clock.js'
import type { DashboardIssues } from '../ports/dashboard.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { LoopReader, Store } from '../ports/store.js'
import type { ActionIO } from './actions-io.js'
import { redispatch } from './dispatch.js'
import { authorizePerson } from './people-commands.js'
import type { RunContext } from './run-context.js'
import { dashboardResumeAsksForSlot, queueResumed, releaseSlot, slotsQueue } from './slots.js'
import { createStore, defaultRunnerTemp } from './stores.js'

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** The dashboard issue through the job's token. */
export function dashboardIssues(
  run: Pick<RunContext, 'settings' | 'apiUrl'>,
  owner: string,
  repo: string,
  logger: Logger,
): DashboardIssues {
  const octokit = createOctokit({ token: run.settings.githubToken, owner, repo, baseUrl: run.apiUrl, logger })
  return new OctokitDashboardIssues(octokit, owner, repo)
}

function repositoryUrl(run: Pick<RunContext, 'serverUrl' | 'repository'>): string {
  return `${run.serverUrl}/${run.repository}`
}

/** This job's run, which the dashboard names as its last writer (off a runner: none). */
function thisRun(run: Pick<RunContext, 'serverUrl' | 'repository' | 'runId'>): { run?: { id: string; url: string } } {
  return run.runId ? { run: { id: run.runId, url: `${repositoryUrl(run)}/actions/runs/${run.runId}` } } : {}
}

function isLister(store: Store): store is Store & LoopReader {
  return typeof (store as Partial<LoopReader>).readLoops === 'function'
}

/** Rewrites the dashboard from the loops' states; never fails the job. */
export async function updateDashboard(
  run: Pick<RunContext, 'serverUrl' | 'repository' | 'runId'>,
  store: Store,
  deps: { issues: DashboardIssues; logger: Logger; queue?: () => Promise<QueueView | null>; clock?: Clock },
): Promise<void> {
  try {
    if (!isLister(store)) throw new Error(`store '${store.kind}' cannot list its loops; the dashboard needs 'git'`)
    const { issue, writes } = await refreshDashboard(
      { repositoryUrl: repositoryUrl(run), ...thisRun(run) },
      { clock: systemClock, ...deps, store },
    )
    deps.logger.info(`Dashboard #${issue.number}: ${writes === 0 ? 'already current' : `rewritten (${writes})`}.`)
  } catch (error) {
    deps.logger.warning(`The dashboard issue was not updated (the loop is not affected): ${messageOf(error)}`)
  }
}

/** Whether this job is an edit of an issue that carries the dashboard's label (the controller's is checked later). */
export function isDashboardEdit(run: Pick<RunContext, 'settings' | 'event'>): boolean {
  return (
    run.settings.dashboard &&
    run.event.name === 'issues' &&
    text(run.event.payload.action) === 'edited' &&
    !run.event.subject.isPullRequest &&
    run.event.subject.labels.includes(DASHBOARD_LABEL)
  )
}

/**
 * An `issues` `edited` event of any other issue: a workflow that runs on edits for the dashboard's ticks
 * gets one for every edit in the repository, and none of them is for a loop (a `depends-on:` line is
 * read only when the loop starts). The job ends before it reads a config or a state, writing nothing.
 */
export function isOrdinaryIssueEdit(run: Pick<RunContext, 'settings' | 'event'>): boolean {
  return run.event.name === 'issues' && text(run.event.payload.action) === 'edited' && !isDashboardEdit(run)
}

/**
 * An edit of the dashboard issue: the ticks it made (the body before, `changes.body.from`, against the
 * body now) are authorized like people's comments and applied; a loop a tick makes run again gets its
 * next iteration dispatched. The dashboard is then rewritten, saying any tick that was refused.
 */
export async function handleDashboardEdit(
  run: RunContext,
  root: string,
  deps: {
    github: Pick<
      GitHubPort,
      | 'getPermission'
      | 'getAuthenticatedLogin'
      | 'dispatchWorkflow'
      | 'upsertStickyComment'
      | 'getIssueState'
      | 'getWorkflowRun'
    >
    issues: DashboardIssues
    logger: Logger
    clock: Clock
    redact: (text: string) => string
    io: Pick<ActionIO, 'writeSummary' | 'setOutput' | 'info'>
  },
): Promise<void> {
  const { logger } = deps
  const payload = run.event.payload
  const issue = record(payload.issue)
  const before = text(record(record(payload.changes).body).from)
  const after = text(issue.body) ?? ''
  if (before === null) {
    logger.info('The edit of the dashboard changed no body (its title, perhaps): no tick to read.')
    return
  }
  const number = typeof issue.number === 'number' ? issue.number : 0
  // The dashboard itself: the queued loops this job tells their new place link it, and so does the summary.
  const here = { number, url: text(issue.html_url) ?? `${run.serverUrl}/${run.repository}/issues/${number}` }
  if (!(await deps.issues.list()).some((own) => own.number === number)) {
    logger.info(`Issue #${number} carries the label ${DASHBOARD_LABEL} but is not the controller's dashboard: ignored.`)
    return
  }
  const runnerTemp = defaultRunnerTemp(run, root)
  const auditDir = (loopId: string) => join(runnerTemp, 'loop-controller', 'audit', loopId)
  // Each ticked loop's save carries its own audit trail, brought back first (the git store's folders).
  const { store, auditSource } = await createStore({ run, runnerTemp, root, loopDir: auditDir, logger })
  if (!isLister(store)) throw new Error(`store '${store.kind}' cannot list its loops; the dashboard needs 'git'`)
  const sender = record(payload.sender)
  const outcomes = await applyDashboardTicks(
    {
      before,
      after,
      actor: text(sender.login) ?? '',
      actorType: text(sender.type) ?? 'User',
      repositoryUrl: repositoryUrl(run),
      ...thisRun(run),
    },
    {
      store,
      issues: deps.issues,
      logger,
      clock: deps.clock,
      queue: slotsQueue(run, root, store),
      authorize: (actor, actorType) => authorizePerson(deps.github, actor, actorType),
      apply: async (loopId, command, by) => {
        let dir = auditDir(loopId)
        try {
          await auditSource?.restoreAudit(loopId, dir)
        } catch (error) {
          // The store saves the folder as the loop's whole trail: a trail not brought back must not be replaced.
          logger.warning(
            `Audit trail of ${loopId} not restored (${messageOf(error)}): the command's event stays out of it.`,
          )
          dir = join(runnerTemp, 'loop-controller', 'audit-unrestored', loopId)
        }
        const audit = new AuditTrail(dir, deps.redact)
        // A resume that must ask for a slot is saved queued, asking, so a failed ask leaves no loop running with no job.
        const resumeAsksForSlot = dashboardResumeAsksForSlot(run, store)
        const state = await applyPeopleCommand(
          command,
          { loopId, by, resumeAsksForSlot },
          { store, clock: deps.clock, audit },
        )
        // An aborted loop gives its slot, or its place in line, to the next (as a `/loop abort` does).
        if (command.kind === 'abort') {
          await releaseSlot(run, { loopId, state, root }, { ...deps, store, dashboard: async () => here })
        }
        // A resumed loop gave its slot back when it ended: it asks for one like a new loop (queued: no dispatch).
        if (command.kind === 'resume') return queueResumed(run, { loopId, state, root }, { ...deps, store, audit })
        return state
      },
      dispatch: async (loopId, state) =>
        (await redispatch(run, { loopId, state }, { github: deps.github, logger, store, clock: deps.clock }))
          ?.message ?? null,
    },
  )
  logger.info(`Dashboard edit by ${text(sender.login) ?? 'someone'}: ${outcomes.length} tick(s) read.`)
  if (run.hasStepSummary && outcomes.length > 0) {
    const lines = outcomes.map((outcome) => `- ${noteText(outcome.note)}`)
    await deps.io.writeSummary(
      `## loop-controller dashboard\n\nTicks on ${link(`#${number}`, here.url)}:\n\n${lines.join('\n')}\n`,
    )
  }
}
