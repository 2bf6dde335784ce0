/**
 * Composition root for the action: one controller iteration per job (DESIGN.md sections 1, 5, 8, 9).
 * Parse inputs → refuse untrusted triggers → apply people's commands (authorized) → run one iteration
 * on the loop's branch → push (fetch, rebase, retry) → pull request → report (summary, annotations,
 * sticky comment, outputs) → re-dispatch while the loop continues. `run()` is the only entry; it holds
 * the one top-level catch.
 */
import { availableParallelism } from 'node:os'
import { join, relative, resolve } from 'node:path'
import * as core from '@actions/core'
import { context } from '@actions/github'
import { actionsLogger } from './adapters/actions-logger.js'
import { AuditTrail } from './adapters/audit-trail.js'
import { GitCli } from './adapters/git-cli.js'
import { OctokitGitHub } from './adapters/github.js'
import { nodeWorkspace } from './adapters/node-workspace.js'
import { ChildProcessRunner } from './adapters/process-runner.js'
import { type IterationResult, runOneIteration } from './app/iteration.js'
import { checkoutLoopBranch, pushAuthEnv, pushLoopBranch } from './app/loop-branch.js'
import { applyPeopleCommand, NoLoopError, type PeopleCommand } from './app/people-commands.js'
import {
  type ActionSettings,
  actionConfigRequest,
  parseActionInputs,
  sanitiseLoopId,
  secretValues,
} from './config/action-inputs.js'
import { ConfigError, messageOf } from './config/errors.js'
import { loadLoopConfig } from './config/load-config.js'
import type { LoopConfig } from './config/loop-config.js'
import { loadUserPatterns } from './config/user-patterns.js'
import { GITHUB_ACTIONS_BOT_LOGIN, loopBranch, Outputs, stickyCommentMarker } from './constants.js'
import { interpretEvent, parseWorkflowRef, subjectOf } from './domain/action-event.js'
import { buildDeadLetter, buildLibrary } from './domain/analysis/index.js'
import { authorizeActor, hasStopLabel, isUntrustedTrigger, type LoopCommand } from './domain/commands.js'
import { markBlocked } from './domain/engine/index.js'
import { createRedactor } from './domain/redact.js'
import {
  buildReportModel,
  type Handoff,
  locationsOf,
  overallVerdict,
  type ReportOutcome,
  renderComment,
  renderSummary,
  selectAnnotations,
} from './domain/report/index.js'
import type { LoopState } from './domain/state.js'
import { systemClock } from './ports/clock.js'
import type { GitHubPort } from './ports/github.js'
import type { Logger } from './ports/logger.js'
import type { Store } from './ports/store.js'
import { VERSION } from './version.js'

/** The identity of the loop's commits (passed per command, never written to git config). */
const COMMIT_IDENTITY = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' }

/** Runs the action. Never throws: a failure fails the step with a message that says what to do. */
export async function run(): Promise<void> {
  try {
    await runAction(process.env)
  } catch (error) {
    core.setFailed(error instanceof ConfigError ? messageOf(error) : `loop-controller failed: ${messageOf(error)}`)
  }
}

function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]
  if (!value) throw new ConfigError(`${name} is not set; loop-controller runs inside a GitHub Actions job.`)
  return value
}

function setOutput(name: string, value: string | number): void {
  core.info(`${name} = ${value}`)
  core.setOutput(name, value)
}

async function runAction(env: NodeJS.ProcessEnv): Promise<void> {
  const payload = context.payload as Record<string, unknown>
  const settings = parseActionInputs(
    (name) => core.getInput(name),
    {
      eventName: context.eventName,
      payload,
      runId: context.runId,
    },
    env,
  )
  const secrets = secretValues(settings)
  for (const secret of secrets) core.setSecret(secret)
  const redact = createRedactor(secrets)
  const logger = actionsLogger(redact)
  for (const name of settings.missingSecrets) logger.warning(`Secret ${name} is listed in 'secrets' but has no value.`)

  const [owner = '', repo = ''] = requireEnv(env, 'GITHUB_REPOSITORY').split('/')
  const github = new OctokitGitHub({
    token: settings.githubToken,
    owner,
    repo,
    baseUrl: env.GITHUB_API_URL || 'https://api.github.com',
    logger,
  })
  const root = resolve(env.GITHUB_WORKSPACE || process.cwd(), settings.workingDirectory)
  const subject = subjectOf(payload)
  let loopId = settings.loopId
  // A comment on a pull request only carries the number; the loop's branch names the loop.
  if (settings.loopIdSource === 'pull-request' && subject.number !== null && subject.headRef === null) {
    const pull = await github.getPullRequest(subject.number)
    if (pull.headRef.startsWith('loop/')) loopId = sanitiseLoopId(pull.headRef.slice('loop/'.length)) || loopId
  }
  setOutput(Outputs.LoopId, loopId)

  // The loop config comes from the trusted ref that was checked out, before the loop's branch is.
  const { config, configPathRelative } = await loadConfig(settings, root)
  const trigger = isUntrustedTrigger(context.eventName, payload, settings.allowUntrusted || config['allow-untrusted'])
  if (trigger.refuse) throw new ConfigError(trigger.reason)
  if (trigger.untrusted) logger.warning(trigger.reason)

  const runnerTemp = env.RUNNER_TEMP || join(root, '..', '_loop-temp')
  const loopDir = join(runnerTemp, 'loop-controller', 'audit', loopId)
  const audit = new AuditTrail(loopDir, redact)
  const { store, auditSource } = await createStore({ settings, env, runnerTemp, root, loopDir, logger })
  setOutput(Outputs.StatePath, store.describe(loopId))
  // The audit trail lives on the runner, which starts empty: bring back the trail the newest snapshot
  // carries, so it accumulates across jobs and the last snapshot holds all of it. Done once, lazily:
  // a job with nothing for the loop downloads nothing.
  let auditRestored: Promise<void> | null = null
  const restoreAudit = (): Promise<void> => {
    auditRestored ??= (async () => {
      if (!auditSource) return
      try {
        const restored = await auditSource.restoreAudit(loopId, loopDir)
        if (restored > 0) logger.info(`Audit trail: ${restored} file(s) restored from the newest snapshot.`)
      } catch (error) {
        logger.warning(`Audit trail not restored from the newest snapshot (it starts afresh here): ${messageOf(error)}`)
      }
    })()
    return auditRestored
  }

  // People's commands: from the `command` input (a dispatch, which needs write access) or the event.
  // Asked only when a person's command needs authorizing, so a plain dispatch makes no extra call.
  const controllerLogin = () => github.getAuthenticatedLogin(GITHUB_ACTIONS_BOT_LOGIN)
  const proceed = await applyCommands(settings, loopId, {
    github,
    store,
    audit,
    logger,
    controllerLogin,
    restoreAudit,
  })
  if (!proceed) return

  const git = new GitCli(root)
  const branch = loopBranch(loopId)
  const useGit = config.commit.enabled && (await git.isRepository())
  if (useGit) {
    await core.group(`Check out ${branch}`, async () => {
      const checkout = await checkoutLoopBranch(git, branch)
      core.info(`${checkout.created ? 'Started' : 'Continuing'} ${branch} at ${checkout.head ?? 'an empty history'}.`)
    })
  }

  await restoreAudit()
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
  const iterationConfig: LoopConfig = {
    ...config,
    work: { ...config.work, 'pass-env': [...new Set([...config.work['pass-env'], ...Object.keys(settings.secrets)])] },
  }
  // One iteration per job, or several while `budget-minutes` allows (each costs no runner start-up).
  const jobStarted = Date.now()
  const jobBudgetMs = (settings.budgetMinutes ?? 0) * 60_000
  let slowestIterationMs = 0
  let dispatchedIteration = settings.iteration
  let result: IterationResult
  let state: LoopState
  let outcome: ReportOutcome
  for (;;) {
    const iterationStarted = Date.now()
    result = await runOneIteration(
      {
        config: iterationConfig,
        library,
        loopId,
        cwd: root,
        // Raw logs and prompt files stay outside the uploaded audit trail: only redacted text leaves the runner.
        loopDir: join(runnerTemp, 'loop-controller', 'runs', loopId),
        excludeFromCommits: [],
        ...(dispatchedIteration !== undefined ? { dispatchedIteration } : {}),
        commit: useGit,
        identity: COMMIT_IDENTITY,
        env: { ...env, ...settings.secrets },
        maxParallel: availableParallelism(),
        stopRequested: hasStopLabel(subject.labels),
        toolVersion: VERSION,
        ...(configPathRelative ? { configPathRelative } : {}),
      },
      {
        store,
        runner: new ChildProcessRunner(),
        git: useGit ? git : null,
        clock: systemClock,
        logger,
        workspace: nodeWorkspace,
        audit,
        redact,
        pullRequestMerged: async () => {
          const number = (await store.load(loopId))?.state.pullRequest?.number
          return number !== undefined && (await github.isPullRequestMerged(number))
        },
      },
    )
    if (result.outcome === 'superseded') {
      logger.info(
        `Iteration ${dispatchedIteration ?? 'next'} was already claimed by another job: superseded, nothing to do.`,
      )
      setOutput(Outputs.Status, 'superseded')
      return
    }

    state = result.state
    outcome = result.outcome
    const hasRemote = useGit && (await git.exec(['remote', 'get-url', 'origin'], { allowFailure: true })).exitCode === 0
    if (useGit && !hasRemote) logger.info(`No remote 'origin': the work stays on the local branch ${branch}.`)
    if (hasRemote && result.commit !== null) {
      const published = await publish({ settings, env, git, github, store, loopId, branch, result, logger })
      state = published.state
      if (published.blocked) outcome = 'blocked'
    }
    slowestIterationMs = Math.max(slowestIterationMs, Date.now() - iterationStarted)
    const elapsedMs = Date.now() - jobStarted
    // Continue here only when another iteration like the slowest one so far still fits the job's budget.
    if (outcome !== 'continue' || elapsedMs + slowestIterationMs > jobBudgetMs) break
    logger.info(`Continuing in this job: ${Math.round(elapsedMs / 1000)} s of ${settings.budgetMinutes} min used.`)
    dispatchedIteration = state.iteration + 1
  }

  await report({ settings, github, state, outcome, result, loopId, redact, root, env, subjectNumber: subject.number })

  if (outcome === 'continue' && settings.dispatch) await redispatch(github, env, loopId, state, logger)
  if (outcome === 'blocked')
    core.setFailed(`The loop is BLOCKED: ${redact(state.statusReason)}. See the handoff in the comment or summary.`)
}

async function loadConfig(
  settings: ActionSettings,
  root: string,
): Promise<{ config: LoopConfig; configPathRelative: string | null }> {
  // A bad config, cap or pipeline is the user's to fix, before anything runs.
  const loaded = await loadLoopConfig(actionConfigRequest(settings, root), (path) => nodeWorkspace.readText(path))
  return { config: loaded.config, configPathRelative: loaded.configPath && relative(root, loaded.configPath) }
}

/**
 * The store the `store` input names. The stores' modules (the cache and artifact clients and the Azure
 * blob SDK under them are most of the bundle) are loaded only here, when one is needed, so a job that
 * stops early (a bad input, an ignored event) starts fast.
 */
/** A store that carries the audit trail and can bring it back onto a fresh runner. */
interface AuditSource {
  restoreAudit(loopId: string, dir: string): Promise<number>
}

async function createStore(input: {
  settings: ActionSettings
  env: NodeJS.ProcessEnv
  runnerTemp: string
  root: string
  loopDir: string
  logger: Logger
}): Promise<{ store: Store; auditSource: AuditSource | null }> {
  const { settings, env, runnerTemp, root, loopDir, logger } = input
  const { ArtifactStore, AutoStore, CacheStore, GitStore } = await import('./adapters/stores/index.js')
  const cache = () => new CacheStore({ root: join(runnerTemp, 'loop-controller', 'state'), env })
  const artifact = () =>
    new ArtifactStore({
      token: settings.githubToken,
      repository: requireEnv(env, 'GITHUB_REPOSITORY'),
      runId: Number(requireEnv(env, 'GITHUB_RUN_ID')),
      apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
      workDir: join(runnerTemp, 'loop-controller', 'artifacts'),
      auditDir: () => loopDir,
      env,
      onNote: (note) => logger.info(note),
    })
  switch (settings.store) {
    case 'cache':
      return { store: cache(), auditSource: null }
    case 'artifact': {
      const store = artifact()
      return { store, auditSource: store }
    }
    case 'git': {
      // The states (and the audit trail, committed with each save) on a branch of the checkout's remote.
      const store = new GitStore({
        repoDir: root,
        remote: 'origin',
        branch: settings.stateBranch,
        identity: COMMIT_IDENTITY,
        token: settings.pushToken,
        workDir: join(runnerTemp, 'loop-controller', 'git-state'),
        auditDir: () => loopDir,
        toolVersion: VERSION,
      })
      return { store, auditSource: store }
    }
    default: {
      const mirror = artifact()
      return { store: new AutoStore(cache(), mirror, { onNote: (note) => logger.info(note) }), auditSource: mirror }
    }
  }
}

function toPeopleCommand(command: LoopCommand): PeopleCommand {
  return command.kind === 'abort' ? { kind: 'abort' } : command
}

/**
 * Applies people's commands. Returns false when the job should stop here (nothing for the loop,
 * an unauthorized actor, or an abort).
 */
async function applyCommands(
  settings: ActionSettings,
  loopId: string,
  deps: {
    github: GitHubPort
    store: Store
    audit: AuditTrail
    logger: Logger
    controllerLogin: () => Promise<string>
    restoreAudit: () => Promise<void>
  },
): Promise<boolean> {
  const { logger } = deps
  const apply = async (command: PeopleCommand, by: string): Promise<LoopState | null> => {
    await deps.restoreAudit()
    try {
      return await applyPeopleCommand(
        command,
        { loopId, by },
        { store: deps.store, clock: systemClock, audit: deps.audit },
      )
    } catch (error) {
      if (error instanceof NoLoopError) {
        logger.warning(`'${command.kind}' for loop ${loopId}, which has not started: ${error.message}`)
        return null
      }
      throw error
    }
  }
  if (settings.command !== 'run') {
    // The command input comes from the workflow file or a dispatch, which needs write access already.
    const by = process.env.GITHUB_ACTOR ?? 'workflow'
    const command: PeopleCommand =
      settings.command === 'approve'
        ? { kind: 'approve', gate: settings.gate ?? '' }
        : settings.command === 'skip'
          ? { kind: 'skip', task: settings.task ?? '', reason: settings.reason ?? '' }
          : { kind: settings.command }
    const state = await apply(command, by)
    return state !== null && command.kind !== 'abort'
  }
  const intent = interpretEvent(context.eventName, context.payload as Record<string, unknown>)
  if (intent.kind === 'run') return true
  if (intent.kind === 'none') {
    logger.info(`Nothing for the loop in this ${context.eventName} event: ${intent.why}.`)
    return false
  }
  const permission = await deps.github.getPermission(intent.actor)
  const authorization = authorizeActor({
    permission,
    actorType: intent.actorType,
    actor: intent.actor,
    controllerLogin: await deps.controllerLogin(),
  })
  logger.info(`Command from @${intent.actor}: ${authorization.reason}`)
  if (!authorization.allowed) return false
  if (intent.kind === 'problem') {
    logger.warning(intent.problem)
    return false
  }
  if (intent.kind === 'review-approval') {
    const loaded = await deps.store.load(loopId)
    const pending = Object.entries(loaded?.state.gates ?? {}).filter(([, gate]) => gate.status === 'pending')
    if (pending.length === 0) {
      logger.info('The review approves no pending gate.')
      return false
    }
    for (const [gate] of pending) await apply({ kind: 'approve', gate }, intent.actor)
    return true
  }
  const state = await apply(toPeopleCommand(intent.command), intent.actor)
  return state !== null && intent.command.kind !== 'abort'
}

/** Pushes the loop's work and opens (or finds) its pull request; a push conflict blocks the loop. */
async function publish(input: {
  settings: ActionSettings
  env: NodeJS.ProcessEnv
  git: GitCli
  github: GitHubPort
  store: Store
  loopId: string
  branch: string
  result: IterationResult
  logger: Logger
}): Promise<{ state: LoopState; blocked: boolean }> {
  const { settings, env, git, github, store, loopId, branch, result, logger } = input
  let state = result.state
  let version = result.version
  const serverUrl = env.GITHUB_SERVER_URL || 'https://github.com'
  const pushEnv = settings.pushToken !== settings.githubToken ? pushAuthEnv(serverUrl, settings.pushToken) : undefined
  const pushed = await core.group(`Push ${branch}`, () =>
    pushLoopBranch(git, { branch, identity: COMMIT_IDENTITY, ...(pushEnv ? { env: pushEnv } : {}) }),
  )
  if (pushed.kind !== 'pushed') {
    const reason =
      pushed.kind === 'conflict'
        ? `merge-conflict: ${branch} changed on the remote and conflicts in ${pushed.paths.join(', ')}`
        : `git-error: pushing ${branch} failed: ${pushed.message.split('\n')[0]}`
    logger.error(pushed.message)
    const blocked = markBlocked(state, reason, systemClock.now())
    version = await store.save(loopId, blocked.state, version)
    return { state: blocked.state, blocked: true }
  }
  if (!state.pullRequest) {
    const base = String(
      (context.payload.repository as { default_branch?: string } | undefined)?.default_branch ?? 'main',
    )
    const issue = context.payload.issue as { number?: number; pull_request?: unknown } | undefined
    const closes = issue?.number && !issue.pull_request ? `\n\nCloses #${issue.number}.` : ''
    const pull = await github.findOrCreatePullRequest({
      head: branch,
      base,
      title: `loop: ${state.goal.split('\n')[0]?.slice(0, 200) ?? loopId}`,
      body: `The work of loop \`${loopId}\`, made by loop-controller and checked by its verification matrix.${closes}`,
      draft: true,
    })
    logger.info(`Pull request #${pull.number} ${pull.created ? 'opened' : 'found'}: ${pull.url}`)
    state = { ...state, pullRequest: { number: pull.number, url: pull.url, merged: pull.merged } }
    version = await store.save(loopId, state, version)
  }
  return { state, blocked: false }
}

async function report(input: {
  settings: ActionSettings
  github: GitHubPort
  state: LoopState
  outcome: ReportOutcome
  result: IterationResult
  loopId: string
  redact: (text: string) => string
  root: string
  env: NodeJS.ProcessEnv
  subjectNumber: number | null
}): Promise<void> {
  const { github, state, outcome, result, loopId, redact, env } = input
  const serverUrl = env.GITHUB_SERVER_URL || 'https://github.com'
  const runUrl = `${serverUrl}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
  const model = buildReportModel(state, {
    checks: result.checks,
    next: result.next,
    nextAction: result.nextAction,
    outcome,
    ...(outcome === 'blocked' ? { handoff: handoffOf(state, loopId) } : {}),
    links: {
      run: runUrl,
      auditTrail: `${runUrl}#artifacts`,
      branch: { name: loopBranch(loopId), url: `${serverUrl}/${env.GITHUB_REPOSITORY}/tree/${loopBranch(loopId)}` },
      ...(state.pullRequest ? { pullRequest: { number: state.pullRequest.number, url: state.pullRequest.url } } : {}),
    },
  })
  const { annotations, overflow } = selectAnnotations(locationsOf(result.checks), 10, input.root)
  for (const a of annotations) {
    core.error(redact(a.message), {
      title: a.title,
      file: a.file,
      ...(a.line !== undefined ? { startLine: a.line } : {}),
      ...(a.column !== undefined ? { startColumn: a.column } : {}),
    })
  }
  if (env.GITHUB_STEP_SUMMARY)
    await core.summary.addRaw(renderSummary(model, { redact, overflowLocations: overflow })).write()
  else core.info('GITHUB_STEP_SUMMARY is not set (not on a runner): no job summary written.')
  const commentOn = input.subjectNumber ?? state.pullRequest?.number
  if (commentOn !== undefined) {
    const comment = await github.upsertStickyComment({
      issueNumber: commentOn,
      marker: stickyCommentMarker(loopId),
      body: renderComment(model, { redact }),
    })
    core.info(`Status comment ${comment.created ? 'posted' : 'updated'}: ${comment.url}`)
  }
  setOutput(Outputs.Iteration, state.iteration)
  setOutput(Outputs.Stage, state.stage)
  setOutput(Outputs.Verdict, overallVerdict(result.checks))
  setOutput(Outputs.Status, state.status)
  setOutput(Outputs.Pattern, result.checks.find((check) => check.pattern)?.pattern ?? '')
  setOutput(Outputs.NextAction, redact(result.nextAction))
  setOutput(Outputs.PrNumber, state.pullRequest?.number ?? '')
}

async function redispatch(
  github: GitHubPort,
  env: NodeJS.ProcessEnv,
  loopId: string,
  state: LoopState,
  logger: Logger,
): Promise<void> {
  const target = parseWorkflowRef(env.GITHUB_WORKFLOW_REF ?? '')
  if (!target) {
    logger.warning(`Cannot tell which workflow to re-dispatch from GITHUB_WORKFLOW_REF '${env.GITHUB_WORKFLOW_REF}'.`)
    return
  }
  const next = state.iteration + 1
  const run = await github.dispatchWorkflow({
    workflow: target.file,
    ref: target.ref,
    inputs: { 'loop-id': loopId, iteration: String(next) },
  })
  logger.info(`Dispatched iteration ${next} of loop ${loopId}${run.htmlUrl ? `: ${run.htmlUrl}` : ''}.`)
}

/**
 * The BLOCKED handoff's ask of a person, from the dead letter's suggestions (likely root cause, where to
 * look, an alternative approach) when a failure is open; otherwise the report's default for the reason.
 */
function handoffOf(state: LoopState, loopId: string): Handoff | undefined {
  const failure = state.failures.current
  if (!failure) return undefined
  const { suggestions } = buildDeadLetter({
    loopId,
    failure,
    history: state.failures.history,
    tried: state.failures.tried,
  })
  return {
    reason: state.statusReason,
    humanAction: `${suggestions.rootCause} Fix the cause on \`${loopBranch(loopId)}\` or clarify the goal.`,
    suggestion: `${suggestions.whereToLook} ${suggestions.alternative}`.trim(),
  }
}
