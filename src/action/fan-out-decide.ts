/**
 * The decide job of a fan-out iteration: the only job with a write token, and it runs no code of the
 * project (no checks, no install, no hooks: every git of the controller runs with hooks off). It
 * applies people's commands, takes the plan and the legs' verdicts (each file validated, the bundle
 * checked, each verdict bound to its leg's own job log), and carries the loop on through the single
 * job's own publish, report and re-dispatch. The plan and verify jobs are the agent's from their first
 * project command on: what decide takes of the plan's report (tasks done or failed, the agent's usage)
 * is the plan's word; the plan job's wall time it takes from GitHub's jobs listing where it can.
 */

import type { AuditTrail } from '../adapters/audit-trail.js'
import { GitCli } from '../adapters/git-cli.js'
import { OctokitGitHub } from '../adapters/github.js'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { type Decided, decideIteration } from '../app/fan-out/decide.js'
import { ProjectCodeRefusedError } from '../app/fan-out/replay-runner.js'
import type { IterationResult } from '../app/iteration.js'
import { checkoutLoopBranch, pushAuthEnv } from '../app/loop-branch.js'
import { loadUserPatterns } from '../config/user-patterns.js'
import { loopBranch, Outputs } from '../constants.js'
import { interpretEvent } from '../domain/action-event.js'
import { buildLibrary } from '../domain/analysis/index.js'
import { FanOutError, type Leg, legsOf, type PlanFile } from '../domain/fan-out.js'
import { failedLegJobs } from '../domain/fan-out-jobs.js'
import type { LoopConfig } from '../domain/loop-config.js'
import type { PullRequestWaiting, Refusal } from '../domain/report/index.js'
import { laterDispatchRecorded } from '../domain/stale-dispatch.js'
import type { LoopState } from '../domain/state.js'
import { systemClock } from '../ports/clock.js'
import type { Store } from '../ports/store.js'
import { dashboardLink, dashboardLinkOnce } from './dashboard-link.js'
import { redispatch } from './dispatch.js'
import { type FanOutShared, type HandOff, readPlan } from './fan-out.js'
import { verdictsByLegJobs } from './fan-out-leg-jobs.js'
import { readVerdicts } from './fan-out-verdicts.js'
import { firstState, saveFirstState } from './first-state.js'
import { runIterationInput } from './iteration-input.js'
import { openLoopStore, refreshDashboardAtEnd, remoteHost } from './job-setup.js'
import { stopLabelReader } from './kill-switch.js'
import { loadActionConfig } from './loop-config.js'
import { applyCommands } from './people-commands.js'
import { removePersistedCredentials } from './persisted-credentials.js'
import { publishIteration } from './publish.js'
import { reportRefusal } from './refusal.js'
import { report } from './report.js'
import { readyForMerge } from './ship.js'
import { releaseSlot, reopenForSlot, resumeAsksForSlot, takeSlot } from './slots.js'
import type { StoreWarnings } from './store-warnings.js'
import { auditRestorer } from './stores.js'

export async function decideJob(shared: FanOutShared, handOff: HandOff): Promise<void> {
  const { runContext, root, loopId, github, logger, io, redact } = shared
  const { settings } = runContext
  const loaded = await loadActionConfig(settings, root, nodeWorkspace, {
    logger,
    io,
    hasStepSummary: runContext.hasStepSummary,
  })
  const { config } = loaded
  const { runnerTemp, loopDir, audit, store, auditSource, storeWarnings } = await openLoopStore(runContext, {
    root,
    loopId,
    logger,
    redact,
  })
  io.setOutput(Outputs.StatePath, store.describe(loopId))
  const restoreAudit = auditRestorer(auditSource, loopId, loopDir, logger)
  // Whatever decide does to the loop, the dashboard shows it, with the queue's places as the single job's.
  refreshDashboardAtEnd(runContext, shared.dashboard, { root, store, logger })

  // The plan and every verdict are read and validated before anything is written.
  // No plan file: this run's plan job made none (a person's event), and nothing of a plan is taken.
  const plan = (await nodeWorkspace.readText(handOff.plan, 1)) === null ? null : await readPlan(handOff)
  const attempt = Number(runContext.runAttempt)
  const legs = configLegs(config)
  const read = await readVerdicts(handOff.verdictsIn, {
    attempt: attempt >= 1 ? attempt : undefined,
    artifacts: new Set(legs.map((leg) => leg.artifact)),
  })
  const { foreign } = read
  if (foreign.length > 0) {
    logger.warning(
      `${foreign.length} artifact(s) the workflow did not name so, or of no leg of this config, not read as verdicts: ${foreign.slice(0, 10).join(', ')}${foreign.length > 10 ? ', ...' : ''}`,
    )
  }
  const bundleFile = (await nodeWorkspace.readText(handOff.bundle, 1)) === null ? null : handOff.bundle

  // People's commands: a comment's `/loop ...` is applied here, the one job that may save.
  // A person's command given to the reusable workflow (`person-command`) is applied as the single job
  // applies `command` (the workflow file and its dispatch need write access already); else the event's.
  const asRun = { ...runContext, settings: { ...settings, command: settings.personCommand } }
  const commandDeps = {
    github,
    store,
    audit,
    logger,
    clock: systemClock,
    restoreAudit,
    reportRefusal: (refusal: Refusal) => reportRefusal(runContext, refusal, { github, io, redact }),
    resumeAsksForSlot: resumeAsksForSlot(runContext, { loopId, config }, store),
    resumeLimits: { cap: loaded.capGiven, budget: loaded.policy.budget },
  }
  const slotJob = {
    ...commandDeps,
    io,
    redact,
    reportRefusal: commandDeps.reportRefusal,
    dashboard: dashboardLinkOnce(shared.dashboard?.issues, logger),
  }
  if (!(await applyCommands(asRun, loopId, commandDeps))) {
    // An abort of a loop that held a slot (or waited for one) gives it to the next in line.
    await releaseSlot(runContext, { loopId, root }, slotJob)
    return
  }
  // A higher cap re-opening a capped loop asks for a slot as a resume does (plan planned nothing for it).
  await reopenForSlot(
    { loopId, capGiven: loaded.capGiven, asksForSlot: commandDeps.resumeAsksForSlot },
    { store, clock: systemClock, audit, io, restoreAudit },
  )
  // The slot is taken before an iteration is recorded, as in the single job; a queued loop's plan is dropped.
  const beforeSlot = plan?.iteration != null ? ((await store.load(loopId))?.version ?? null) : null
  if (!(await takeSlot(runContext, { loopId, config, root }, slotJob))) {
    if (plan?.iteration != null) await sayPlanDropped(shared, plan.iteration)
    return
  }
  const admitted = await planOnSlotState(store, loopId, plan, beforeSlot)

  const git = new GitCli(root, {
    networkEnv: pushAuthEnv(await remoteHost(root, runContext.serverUrl), settings.pushToken),
  })
  await removePersistedCredentials(git, logger)
  const branch = loopBranch(loopId)
  // The patterns file, as the config, is the trusted ref's: read before the loop's branch is checked out.
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
  await checkoutLoopBranch(git, branch)
  await restoreAudit()
  // A verdict counts only as its leg's own job and that job's log vouch for it (the file's sha256 is the
  // last its controller printed there); a leg without a verdict is charged its job's wall time. Only an
  // iteration the plan ran has legs to judge.
  const trusted =
    admitted?.iteration != null
      ? await verdictsByLegJobs(
          {
            legs,
            verdicts: read.verdicts,
            verdictAttempts: read.attempts,
            verdictDigests: read.digests,
            runId: runContext.runId,
            attempt,
          },
          { github, logger, io, hasStepSummary: runContext.hasStepSummary },
        )
      : null
  const deps = {
    store,
    // Replaced by decide's replaying runner: nothing of the project runs here.
    runner: {
      run: async () => {
        throw new ProjectCodeRefusedError('decide runs no project code')
      },
    },
    git,
    clock: systemClock,
    logger,
    workspace: nodeWorkspace,
    audit,
    redact,
    pullRequestMerged: async () => {
      const number = (await store.load(loopId))?.state.pullRequest?.number
      return number !== undefined && (await github.isPullRequestMerged(number))
    },
    stopLabelOn: stopLabelReader(github),
    openPullRequestOf: (head: string) => github.findOpenPullRequest(head, runContext.event.defaultBranch),
  }
  const decided = await decideIteration(
    {
      ...runIterationInput(runContext, loaded, { library, loopId, root, runnerTemp, commit: true }),
      // Decide runs no command of the project: no environment to pass, nothing to run side by side.
      env: {},
      maxParallel: 1,
      branchFromRemote: branch,
      ...(settings.iteration !== undefined ? { dispatchedIteration: settings.iteration } : {}),
      plan: admitted,
      bundleFile,
      verdicts: trusted?.verdicts ?? read.verdicts,
      unreadableVerdicts: new Map([...read.unreadable, ...(trusted?.untrusted ?? [])]),
      legJobWallMs: trusted?.jobWallMs ?? new Map(),
      planJobWallMs: trusted?.planJobWallMs,
      verifyResult: settings.verifyResult,
    },
    deps,
  )
  if (decided.kind === 'stale') return endWithoutIteration(shared, decided, { config, store, plan })
  await carryOn(shared, decided.result, {
    git,
    store,
    audit,
    storeWarnings,
    branch,
    releaseSlot: (state) => releaseSlot(runContext, { loopId, state, root, endedHere: true }, slotJob),
    failedLegs: trusted ? failedLegJobs(trusted.verdicts, trusted.legJobIds) : [],
  })
}

/**
 * An iteration decide does not carry on (its plan is stale, or there was none): a start recorded, a slot
 * taken, a person's command applied or a superseded run, said as such; then the loop's next iteration is
 * dispatched, unless another run carried the loop on already.
 */
async function endWithoutIteration(
  shared: FanOutShared,
  decided: Extract<Decided, { kind: 'stale' }>,
  input: { config: LoopConfig; store: Store; plan: PlanFile | null },
): Promise<void> {
  const { runContext, loopId, github, logger, io, redact } = shared
  const { settings } = runContext
  const { config, store, plan } = input
  // A start with no plan (`/loop start`, a comment: its run plans nothing) is recorded here, the one job
  // that can save: the issue (and the comment's words) become the task, and iteration 1 goes to plan.
  const started = decided.state === null ? await recordStart(runContext, { loopId, config }, store) : null
  // Plan works only for a loop that holds its slot: one that asked for it in this run (decideJob took it) has
  // its iteration planned by the next run, as planned; nothing was dropped.
  const tookSlot = !started && plan !== null && plan.iteration === null && decided.state?.status === 'running'
  // A person's event (its run plans nothing): what decide applied is the outcome, not a stale plan.
  const applied = !started && plan === null && decided.state !== null
  if (started) io.info(`Loop ${loopId} is recorded from its start; its first iteration is dispatched to plan.`)
  else if (tookSlot) io.info(`Loop ${loopId} holds its slot now; its iteration is dispatched to plan with it.`)
  else if (applied && decided.state) await sayApplied(shared, decided.state)
  else logger.warning(decided.message)
  const status = started ? started.status : tookSlot ? 'running' : applied ? decided.state?.status : 'superseded'
  io.setOutput(Outputs.Status, status ?? 'superseded')
  const state = started ?? decided.state
  if (
    state &&
    !started &&
    laterDispatchRecorded(state, {
      dispatchedIteration: settings.iteration,
      plannedIteration: plan?.iteration,
      baselineRound: plan?.baseline === true,
    })
  ) {
    io.info(
      `Loop ${loopId} was carried on by another run, which dispatched iteration ${state.dispatch?.iteration} (${state.dispatch?.by}): nothing is dispatched again.`,
    )
    return
  }
  if (state && state.status === 'running' && settings.dispatch) {
    const failed = await redispatch(runContext, { loopId, state }, { github, logger, store, clock: systemClock })
    if (failed) io.setFailed(redact(failed.message))
  }
}

/**
 * The plan, taken as made on the state the slot left: the slot's own save (a new loop's first state,
 * `queued` to `running`) changes the version the plan was made on and nothing the iteration reads, so
 * a plan made on the version just before the slot was taken holds on the version after it.
 */
async function planOnSlotState(
  store: Store,
  loopId: string,
  plan: PlanFile | null,
  beforeSlot: string | null,
): Promise<PlanFile | null> {
  if (plan?.iteration == null || plan.stateVersion !== beforeSlot) return plan
  const afterSlot = (await store.load(loopId))?.version ?? null
  return afterSlot === beforeSlot ? plan : { ...plan, stateVersion: afterSlot }
}

/** The loop's first state, saved when this event starts it (authorized already); null for any other event. */
async function recordStart(
  run: FanOutShared['runContext'],
  input: { loopId: string; config: LoopConfig },
  store: Store,
): Promise<LoopState | null> {
  if (interpretEvent(run.event.name, run.event.payload).kind !== 'start') return null
  // Another job recorded it first: its state is the loop's.
  return (await saveFirstState(store, input.loopId, firstState(run.event, input, systemClock.now())))?.state ?? null
}

/** What a person's event did to a loop that runs on: said at info and in the summary, with the loop's status now. */
async function sayApplied(shared: FanOutShared, state: LoopState): Promise<void> {
  const { runContext, loopId, io } = shared
  const line = `Applied ${personCommandOf(runContext)} to loop ${loopId}: it is ${state.status} in ${state.stage}; its iteration ${state.iteration + 1} is dispatched to plan.`
  io.info(line)
  if (runContext.hasStepSummary) await io.writeSummary(`${line}\n`)
}

/** The person's command this run carries, as they gave it (the command input, a comment, a label, a review). */
function personCommandOf(run: FanOutShared['runContext']): string {
  const given = run.settings.personCommand
  if (given !== 'run') return `the command '${given}'${run.actor ? ` of @${run.actor}` : ''}`
  const intent = interpretEvent(run.event.name, run.event.payload)
  if (intent.kind === 'command') return `\`/loop ${intent.command.kind}\` of @${intent.actor} (${intent.via})`
  if (intent.kind === 'review-approval') return `the approving review of @${intent.actor}`
  return `the ${run.event.name} event`
}

/** The plan of a loop that does not run now had work in it: the summary says it is not kept. */
async function sayPlanDropped(shared: FanOutShared, iteration: number): Promise<void> {
  const line = `The plan's work for iteration ${iteration} is dropped: the loop did not get its slot (above); a queued loop's iteration is planned again when it is admitted.`
  shared.logger.info(line)
  if (shared.runContext.hasStepSummary) await shared.io.writeSummary(`${line}\n`)
}

/** After the iteration: push and the pull request, the report, the re-dispatch (the single job's own code). */
async function carryOn(
  shared: FanOutShared,
  result: IterationResult,
  parts: {
    git: GitCli
    store: Store
    audit: AuditTrail
    branch: string
    releaseSlot: (state: LoopState) => Promise<void>
    storeWarnings: StoreWarnings
    /** The legs whose check failed, with their own jobs: the report links their logs. */
    failedLegs: readonly { leg: string; jobId: number }[]
  },
): Promise<void> {
  const { runContext, root, loopId, github, logger, io, redact } = shared
  const { settings } = runContext
  const { git, store, audit, branch } = parts
  const { owner, repo } = github
  if (result.outcome === 'superseded') {
    io.setOutput(Outputs.Status, 'superseded')
    return
  }
  const pullRequestGitHub =
    settings.pushToken !== settings.githubToken
      ? new OctokitGitHub({ token: settings.pushToken, owner, repo, baseUrl: runContext.apiUrl, logger })
      : github
  const publishDeps = { git, github: pullRequestGitHub, store, audit, logger, io, clock: systemClock }
  const published = await publishIteration(runContext, { loopId, branch, result }, publishDeps)
  const pullRequestWaiting: PullRequestWaiting | undefined =
    result.commit !== null ? published.pullRequestWaiting : undefined
  const state = published.state
  const outcome = published.blocked ? 'blocked' : result.outcome
  await readyForMerge(state, { github: pullRequestGitHub, logger })
  const reportInput = {
    ...{ loopId, state, outcome, result, root, pullRequestWaiting, failOn: settings.failOn },
    storeWarnings: parts.storeWarnings.messages,
    dashboard: await dashboardLink(shared.dashboard?.issues, logger),
    failedLegs: parts.failedLegs,
  }
  await report(runContext, reportInput, { github, io, redact })
  await parts.releaseSlot(state)
  if (outcome === 'continue' && settings.dispatch) {
    const failed = await redispatch(runContext, { loopId, state }, { github, logger, store, clock: systemClock })
    if (failed) {
      if (failed.state) {
        const again = { ...reportInput, state: failed.state, afterFailedDispatch: true }
        await report(runContext, again, { github, io, redact }).catch(() => undefined)
      }
      io.setFailed(redact(failed.message))
    }
  }
}

/** The config's legs, or none when it makes no matrix (plan refused it; decide judges no iteration of it). */
function configLegs(config: LoopConfig): Leg[] {
  try {
    return legsOf(config)
  } catch (error) {
    if (error instanceof FanOutError) return []
    throw error
  }
}
