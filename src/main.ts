/**
 * Composition root for the action: one controller iteration per job, or several within its budget.
 * Read the run context → refuse untrusted triggers → apply people's commands (authorized) → run the
 * iterations on the loop's branch, publishing each (push, pull request) → report (summary,
 * annotations, sticky comment, outputs) → re-dispatch while the loop continues. The jobs themselves
 * live in `src/action/`; `run()` is the only entry and holds the one top-level catch.
 */
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { type ActionIO, actionsIO } from './action/actions-io.js'
import { dashboardIssues, handleDashboardEdit, isDashboardEdit, isOrdinaryIssueEdit } from './action/dashboard.js'
import { dashboardLink, dashboardLinkOnce } from './action/dashboard-link.js'
import { redispatch } from './action/dispatch.js'
import { isFanOutCommand, runFanOut } from './action/fan-out.js'
import { handOverIteration, outsideLoopGroup } from './action/hand-over.js'
import { runIterationInput } from './action/iteration-input.js'
import { runJobIterations } from './action/job-iterations.js'
import {
  announcedIsolation,
  type JobEnd,
  openLoopStore,
  refreshDashboardAtEnd,
  remoteHost,
} from './action/job-setup.js'
import { stopLabelReader } from './action/kill-switch.js'
import { actionSecretValues, loadActionConfig } from './action/loop-config.js'
import { applyCommands } from './action/people-commands.js'
import { removePersistedCredentials } from './action/persisted-credentials.js'
import { agentCliProblem } from './action/plan-agent-cli.js'
import { publishIteration } from './action/publish.js'
import { reportRefusal } from './action/refusal.js'
import { report } from './action/report.js'
import { type RunContext, readRunContext, requireRepository } from './action/run-context.js'
import { guardRunnerFiles } from './action/runner-files.js'
import { readyForMerge } from './action/ship.js'
import { releaseSlot, reopenForSlot, resumeAsksForSlot, takeSlot } from './action/slots.js'
import { auditRestorer } from './action/stores.js'
import { sweep } from './action/sweep.js'
import { actionsLogger } from './adapters/actions-logger.js'
import type { AuditTrail } from './adapters/audit-trail.js'
import { GitCli } from './adapters/git-cli.js'
import { OctokitGitHub } from './adapters/github.js'
import { nodeWorkspace } from './adapters/node-workspace.js'
import { ChildProcessRunner } from './adapters/process-runner.js'
import type { RunnerFileGuard } from './adapters/runner-file-guard.js'
import { type IterationInput, type IterationResult, runOneIteration } from './app/iteration.js'
import { checkoutLoopBranch, pushAuthEnv } from './app/loop-branch.js'
import { sanitiseLoopId } from './config/action-inputs.js'
import { ConfigError, messageOf } from './config/errors.js'
import { loadUserPatterns } from './config/user-patterns.js'
import { loopBranch, Outputs } from './constants.js'
import { buildLibrary } from './domain/analysis/index.js'
import { isUntrustedTrigger } from './domain/commands.js'
import { loopOfPullRequestHead } from './domain/loop-names.js'
import { createRedactor } from './domain/redact.js'
import { agentCliRefusal, type PullRequestWaiting, type Refusal } from './domain/report/index.js'
import { systemClock } from './ports/clock.js'
import type { GitHubPort } from './ports/github.js'
import type { Logger } from './ports/logger.js'
import type { Store } from './ports/store.js'

/** Runs the action. Never throws: a failure fails the step with a message that says what to do. */
export async function run(io: ActionIO = actionsIO): Promise<void> {
  const jobEnd: JobEnd = {}
  try {
    await runAction(io, jobEnd)
  } catch (error) {
    io.setFailed(error instanceof ConfigError ? messageOf(error) : `loop-controller failed: ${messageOf(error)}`)
  } finally {
    try {
      // Whatever the job did to its loop (and however it ended), the dashboard shows it.
      await jobEnd.dashboard?.()
    } finally {
      // The very last thing: the runner's file commands hold the controller's text alone.
      putBackRunnerFiles(io, jobEnd)
    }
  }
}

/** The last put-back of the runner's file commands; one that fails fails the step, so no later step runs. */
function putBackRunnerFiles(io: ActionIO, jobEnd: JobEnd): void {
  try {
    jobEnd.runnerFiles?.()
  } catch (error) {
    io.setFailed(`loop-controller could not put back the runner's file commands: ${messageOf(error)}`)
  }
}

async function runAction(unguardedIo: ActionIO, jobEnd: JobEnd): Promise<void> {
  const runContext = readRunContext(unguardedIo.getInput)
  const { settings } = runContext
  const secrets = actionSecretValues(settings, runContext.env)
  for (const secret of secrets) unguardedIo.setSecret(secret)
  const redact = createRedactor(secrets)
  const logger = actionsLogger(redact)
  // Before any project command runs: the runner's file commands are held for the controller from here.
  const { guard: runnerFiles, io } = guardRunnerFiles(runContext, { io: unguardedIo, logger, jobEnd })
  for (const name of settings.missingSecrets) logger.warning(`Secret ${name} is listed in 'secrets' but has no value.`)

  const { owner, repo } = requireRepository(runContext)
  const github = new OctokitGitHub({ token: settings.githubToken, owner, repo, baseUrl: runContext.apiUrl, logger })
  const root = resolve(runContext.workspace, settings.workingDirectory)
  const loopId = await loopIdOf(runContext, github)
  io.setOutput(Outputs.LoopId, loopId)

  // Decided from the event and the workflow file alone, before any checked-out file is read: under
  // pull_request_target the checkout (and so the loop config) may be the fork's own.
  const trigger = isUntrustedTrigger(runContext.event.name, runContext.event.payload, settings.allowUntrusted)
  if (trigger.refuse) throw new ConfigError(trigger.reason)
  if (trigger.untrusted) logger.warning(trigger.reason)
  // Fan-out's plan and verify hold a read-only token: the dashboard is decide's alone.
  const readOnly = settings.command === 'plan' || settings.command === 'verify'
  const issues = settings.dashboard && !readOnly ? dashboardIssues(runContext, owner, repo, logger) : null
  // The sweeper reads the loops' states and dispatches; it loads no loop config and runs no project code.
  if (settings.command === 'sweep') {
    return sweep(runContext, root, { github, logger, io, clock: systemClock, redact, dashboard: issues })
  }
  // A tick on the dashboard acts on the loops it names, not on this event's loop.
  if (issues && isDashboardEdit(runContext)) {
    return handleDashboardEdit(runContext, root, { github, issues, logger, clock: systemClock, redact, io })
  }
  // Fan-out's jobs: plan and verify (read-only token, the project's code), decide (write token, no project code).
  const dashboard = issues ? { issues, jobEnd } : undefined
  if (isFanOutCommand(settings.command)) {
    return runFanOut(settings.command, { runContext, root, loopId, github, logger, io, redact, dashboard, runnerFiles })
  }
  // The workflow runs on every issue's edits for the dashboard's ticks: any other edit ends here.
  if (isOrdinaryIssueEdit(runContext)) return io.info('Nothing for the loop in this issues event: issues edited.')

  // The loop config comes from the ref that was checked out, before the loop's branch is.
  const loaded = await loadActionConfig(settings, root, nodeWorkspace, {
    logger,
    io,
    hasStepSummary: runContext.hasStepSummary,
  })
  const { config } = loaded

  const isolation = announcedIsolation(settings.isolation, { logger, io })

  const { runnerTemp, loopDir, audit, store, auditSource, storeWarnings } = await openLoopStore(runContext, {
    root,
    loopId,
    logger,
    redact,
  })
  io.setOutput(Outputs.StatePath, store.describe(loopId))
  refreshDashboardAtEnd(runContext, dashboard, { root, store, logger })
  const restoreAudit = auditRestorer(auditSource, loopId, loopDir, logger)

  const refuse = (refusal: Refusal) => reportRefusal(runContext, refusal, { github, io, redact })
  const commandDeps = {
    github,
    store,
    audit,
    logger,
    clock: systemClock,
    restoreAudit,
    reportRefusal: refuse,
    resumeAsksForSlot: resumeAsksForSlot(runContext, { loopId, config }, store),
    resumeLimits: { cap: loaded.capGiven, budget: loaded.policy.budget },
    // Before a person's command is saved (a resume would leave the loop running with no job) or a new loop
    // is: a preset named in the config alone, whose CLI no step installed, is refused (the issue is told)
    // and fails the job with what to set, as fan-out's plan does. An abort needs no agent.
    beforeRun: async () => {
      const problem = agentCliProblem(config.agent, settings.agent, settings.config, runContext.env.PATH ?? '')
      if (problem === null) return
      await refuse(agentCliRefusal(loopId, problem)).catch((error: unknown) =>
        logger.warning(redact(`The refusal was not posted: ${messageOf(error)}`)),
      )
      throw new ConfigError(problem)
    },
  }
  const slotJob = {
    store,
    github,
    io,
    logger,
    clock: systemClock,
    redact,
    audit,
    restoreAudit,
    reportRefusal: refuse,
    dashboard: dashboardLinkOnce(dashboard?.issues, logger),
  }
  if (!(await applyCommands(runContext, loopId, commandDeps))) {
    // An abort of a loop that held a slot (or waited for one) gives it to the next in line.
    await releaseSlot(runContext, { loopId, root }, slotJob)
    return
  }
  // A higher cap re-opening a capped loop asks for a slot as a resume does.
  await reopenForSlot(
    { loopId, capGiven: loaded.capGiven, asksForSlot: commandDeps.resumeAsksForSlot },
    { store, clock: systemClock, audit, io, restoreAudit },
  )
  // Past `max-loops`, or waiting on `depends-on`: saved queued and reported; its job ends here, green.
  // Before a hand-over, so a resumed loop queues like a new one and is dispatched only with a slot.
  if (!(await takeSlot(runContext, { loopId, config, root }, slotJob))) return
  if (outsideLoopGroup(runContext)) {
    const handedOver = await handOverIteration(runContext, loopId, { store, github, logger, clock: systemClock })
    if (handedOver) {
      io.setOutput(Outputs.Status, handedOver.state.status)
      if (handedOver.failed) io.setFailed(redact(handedOver.failed))
      return
    }
  }

  // The token goes only to the host the trusted checkout fetched from, read before any project code runs.
  const git = new GitCli(root, {
    networkEnv: pushAuthEnv(await remoteHost(root, runContext.serverUrl), settings.pushToken),
  })
  const branch = loopBranch(loopId)
  // The patterns file, as the config, is the trusted ref's: read before the loop's branch is checked out.
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
  const useGit = config.commit.enabled && (await git.isRepository())
  if (useGit) await removePersistedCredentials(git, logger)
  if (useGit) {
    await io.group(`Check out ${branch}`, async () => {
      const checkout = await checkoutLoopBranch(git, branch)
      io.info(`${checkout.created ? 'Started' : 'Continuing'} ${branch} at ${checkout.head ?? 'an empty history'}.`)
    })
  }

  await restoreAudit()
  const iterate = iterationRunner({
    input: {
      ...runIterationInput(runContext, loaded, { library, loopId, root, runnerTemp, commit: useGit }),
      env: { ...runContext.env, ...settings.secrets },
      maxParallel: availableParallelism(),
      agentSandbox: isolation.report.nestedSandbox,
      ...(runContext.runId
        ? {
            run: {
              id: runContext.runId,
              url: `${runContext.serverUrl}/${runContext.repository}/actions/runs/${runContext.runId}`,
            },
          }
        : {}),
      ...(useGit ? { branchFromRemote: branch } : {}),
    },
    git: useGit ? git : null,
    store,
    github,
    logger,
    audit,
    redact,
    isolationPrefix: isolation.prefix,
    pullRequestBase: runContext.event.defaultBranch,
    runnerFiles,
  })
  // A push-token (a person's or an app's) also opens the pull request: GitHub's setting that refuses
  // workflows' tokens a pull request does not apply to it, and the pull request's checks then run.
  const pullRequestGitHub =
    settings.pushToken !== settings.githubToken
      ? new OctokitGitHub({ token: settings.pushToken, owner, repo, baseUrl: runContext.apiUrl, logger })
      : github
  const publishDeps = {
    git: useGit ? git : null,
    github: pullRequestGitHub,
    store,
    audit,
    logger,
    io,
    clock: systemClock,
  }
  let pullRequestWaiting: PullRequestWaiting | undefined
  const job = await runJobIterations(
    { firstIteration: settings.iteration, budgetMinutes: settings.budgetMinutes },
    {
      iterate,
      publish: async (result) => {
        const published = await publishIteration(runContext, { loopId, branch, result }, publishDeps)
        // The latest word on the pull request: refused by the setting, or opened since.
        if (result.commit !== null) pullRequestWaiting = published.pullRequestWaiting
        return published
      },
      now: () => Date.now(),
      logger,
    },
  )
  if (job.kind === 'superseded') {
    io.setOutput(Outputs.Status, 'superseded')
    return
  }

  const { state, outcome, result } = job
  await readyForMerge(state, { github: pullRequestGitHub, logger })
  const reportInput = {
    loopId,
    state,
    outcome,
    result,
    root,
    isolation: isolation.report,
    pullRequestWaiting,
    failOn: settings.failOn,
    storeWarnings: storeWarnings.messages,
    dashboard: await dashboardLink(dashboard?.issues, logger),
  }
  await report(runContext, reportInput, { github, io, redact })
  await releaseSlot(runContext, { loopId, state, root, endedHere: true }, slotJob)
  if (outcome === 'continue' && settings.dispatch) {
    const failed = await redispatch(runContext, { loopId, state }, { github, logger, store, clock: systemClock })
    if (failed) {
      if (failed.state) {
        const again = { ...reportInput, state: failed.state, afterFailedDispatch: true }
        await report(runContext, again, { github, io, redact }).catch((error) =>
          logger.warning(`The status comment does not say the re-dispatch failed: ${messageOf(error)}`),
        )
      }
      io.setFailed(redact(failed.message))
    }
  }
}

/**
 * The loop's id; a comment on a pull request only carries the number, and the loop's branch (in this
 * repository, never a fork's) names the loop.
 */
async function loopIdOf(runContext: RunContext, github: GitHubPort): Promise<string> {
  const { settings } = runContext
  const subject = runContext.event.subject
  if (settings.loopIdSource !== 'pull-request' || subject.number === null || subject.headRef !== null) {
    return settings.loopId
  }
  const pull = await github.getPullRequest(subject.number)
  const headLoop = loopOfPullRequestHead(
    { ref: pull.headRef, repository: pull.headRepo },
    `${github.owner}/${github.repo}`,
  )
  return (headLoop !== null && sanitiseLoopId(headLoop)) || settings.loopId
}

/** Runs one iteration of the loop: the iteration this job was dispatched for, or the next. */
function iterationRunner(parts: {
  input: Omit<IterationInput, 'dispatchedIteration'>
  git: GitCli | null
  store: Store
  github: GitHubPort
  logger: Logger
  audit: AuditTrail
  redact: (text: string) => string
  isolationPrefix: readonly string[]
  /** The branch the loop's pull request goes into (the repository's default branch). */
  pullRequestBase: string
  /** Puts back the runner's file commands after each project command. */
  runnerFiles: RunnerFileGuard
}): (dispatchedIteration: number | undefined) => Promise<IterationResult> {
  const { input, git, store, github, logger, audit, redact, isolationPrefix, runnerFiles } = parts
  return (dispatchedIteration) =>
    runOneIteration(
      { ...input, ...(dispatchedIteration !== undefined ? { dispatchedIteration } : {}) },
      {
        store,
        runner: runnerFiles.runner(new ChildProcessRunner({ redact, isolationPrefix })),
        git,
        clock: systemClock,
        logger,
        workspace: nodeWorkspace,
        audit,
        redact,
        pullRequestMerged: async () => {
          const number = (await store.load(input.loopId))?.state.pullRequest?.number
          return number !== undefined && (await github.isPullRequestMerged(number))
        },
        stopLabelOn: stopLabelReader(github),
        openPullRequestOf: (branch) => github.findOpenPullRequest(branch, parts.pullRequestBase),
      },
    )
}
