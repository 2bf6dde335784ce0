/**
 * Fan-out mode's jobs (`command: plan | verify | decide`), composed here so `main.ts` only branches.
 * `plan` and `verify` run the agent and the project's code with a read-only token and hand their
 * results on as files (the workflow carries them as artifacts); `decide` (`fan-out-decide.ts`) holds
 * the write token and runs no project code. See docs/security.md, "Single job or fan-out".
 */
import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { GitCli } from '../adapters/git-cli.js'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { ChildProcessRunner } from '../adapters/process-runner.js'
import type { RunnerFileGuard } from '../adapters/runner-file-guard.js'
import { CANDIDATE_REF, receiveCandidate } from '../app/fan-out/candidate.js'
import { type Planned, planIteration } from '../app/fan-out/plan.js'
import { verifyLeg } from '../app/fan-out/verify-leg.js'
import type { IterationDeps, IterationInput } from '../app/iteration.js'
import { checkoutLoopBranch, pushAuthEnv } from '../app/loop-branch.js'
import type { ActionCommand } from '../config/action-inputs.js'
import { ConfigError, messageOf } from '../config/errors.js'
import { loadUserPatterns } from '../config/user-patterns.js'
import { loopBranch, Outputs } from '../constants.js'
import { buildLibrary } from '../domain/analysis/index.js'
import {
  FanOutError,
  legsOf,
  matrixOf,
  noIterationPlan,
  type PlanFile,
  parseHandOff,
  planFileSchema,
  verdictArtifact,
} from '../domain/fan-out.js'
import type { LegErrorFile } from '../domain/fan-out-attempts.js'
import { verdictDigestLine } from '../domain/fan-out-verdict-log.js'
import { systemClock } from '../ports/clock.js'
import type { GitHubPort } from '../ports/github.js'
import type { Logger } from '../ports/logger.js'
import type { ActionIO } from './actions-io.js'
import { decideJob } from './fan-out-decide.js'
import { admittedView, planGate } from './fan-out-plan-gate.js'
import { runIterationInput } from './iteration-input.js'
import { announcedIsolation, type JobDashboard, openLoopStore, remoteHost } from './job-setup.js'
import { loadActionConfig } from './loop-config.js'
import { removePersistedCredentials } from './persisted-credentials.js'
import { refuseAgentWithoutCli } from './plan-agent-cli.js'
import type { RunContext } from './run-context.js'
import { defaultRunnerTemp } from './stores.js'

export type FanOutCommand = Extract<ActionCommand, 'plan' | 'verify' | 'decide'>

export function isFanOutCommand(command: ActionCommand): command is FanOutCommand {
  return command === 'plan' || command === 'verify' || command === 'decide'
}

/**
 * Where a fan-out job's hand-off files are, each in a folder of its own so that nothing one job hands on
 * lands where another job's files are read: `plan/` (plan.json and the candidate's bundle, the artifact
 * `loop-plan.attempt-<n>`), `verdict/` (a leg's own verdict, its artifact), `verdicts/<artifact>/` (every leg's,
 * as decide downloads them, one folder per artifact).
 */
export interface HandOff {
  dir: string
  /** The folder the plan job writes (emptied first) and the others download the plan artifact to. */
  planDir: string
  plan: string
  bundle: string
  /** The folder a verify leg writes its verdict to (emptied first; the workflow uploads it as the leg's artifact). */
  verdictOut: string
  /** The folder decide reads every leg's verdict from, one subfolder per artifact. */
  verdictsIn: string
}

export interface FanOutShared {
  runContext: RunContext
  root: string
  loopId: string
  github: GitHubPort
  logger: Logger
  io: ActionIO
  redact: (text: string) => string
  /** Puts back the runner's file commands after each project command (plan's and a verify leg's). */
  runnerFiles: RunnerFileGuard
  /**
   * `dashboard: true`: the dashboard issue, and where decide leaves its refresh for the end of the job
   * (plan and verify, whose token cannot write, never refresh it).
   */
  dashboard?: JobDashboard | undefined
}

export async function runFanOut(command: FanOutCommand, shared: FanOutShared): Promise<void> {
  const { runContext, root } = shared
  const runnerTemp = defaultRunnerTemp(runContext, root)
  const dir = runContext.settings.handOff
    ? resolve(root, runContext.settings.handOff)
    : join(runnerTemp, 'loop-fan-out')
  const handOff: HandOff = {
    dir,
    planDir: join(dir, 'plan'),
    plan: join(dir, 'plan', 'plan.json'),
    bundle: join(dir, 'plan', 'candidate.bundle'),
    verdictOut: join(dir, 'verdict'),
    verdictsIn: join(dir, 'verdicts'),
  }
  if (command === 'decide') return decideJob(shared, handOff)
  if (command === 'plan') return planJob(shared, await readOnlyJob(shared), handOff)
  try {
    await verifyJob(shared, await readOnlyJob(shared), handOff)
  } catch (error) {
    await handOnLegError(shared, handOff, error).catch(() => undefined)
    throw error
  }
}

/**
 * A leg whose controller fails hands its error on in its own folder (the workflow uploads it under a
 * `.failed` name, which decide never takes as a pass), so decide names why the leg gave no verdict.
 */
async function handOnLegError(shared: FanOutShared, handOff: HandOff, error: unknown): Promise<void> {
  const leg = shared.runContext.settings.leg
  if (!leg) return
  const message = shared.redact(messageOf(error)).slice(0, 4000)
  const file: LegErrorFile = { version: 1, loopId: shared.loopId, leg, error: message }
  // Emptied first: the failed leg's artifact holds its error alone, nothing the check left in the folder.
  await nodeWorkspace.remove(handOff.verdictOut)
  await nodeWorkspace.makeDir(handOff.verdictOut)
  await nodeWorkspace.writeText(join(handOff.verdictOut, `${verdictArtifact(leg)}.json`), `${JSON.stringify(file)}\n`)
}

/** What plan and verify share: the loop's branch checked out with the job's own (read-only) token. */
interface ReadOnlyJob {
  input: IterationInput
  deps: IterationDeps
  git: GitCli
  branch: string
}

async function readOnlyJob(shared: FanOutShared): Promise<ReadOnlyJob> {
  const { runContext, root, loopId, logger, io, redact } = shared
  const { settings } = runContext
  const loaded = await loadActionConfig(settings, root, nodeWorkspace, {
    logger,
    io,
    hasStepSummary: runContext.hasStepSummary,
  })
  const { config } = loaded
  const isolation = announcedIsolation(settings.isolation, { logger, io })
  const { runnerTemp, audit, store } = await openLoopStore(runContext, { root, loopId, logger, redact })
  const git = new GitCli(root, {
    networkEnv: pushAuthEnv(await remoteHost(root, runContext.serverUrl), settings.githubToken),
  })
  if (!config.commit.enabled || !(await git.isRepository())) {
    throw new ConfigError('fan-out needs a git checkout and commit.enabled: the candidate travels as commits')
  }
  await removePersistedCredentials(git, logger)
  const branch = loopBranch(loopId)
  // The patterns file, as the config, is the trusted ref's: read before the loop's branch is checked out.
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
  const checkout = await checkoutLoopBranch(git, branch)
  io.info(`${checkout.created ? 'Started' : 'Continuing'} ${branch} at ${checkout.head ?? 'an empty history'}.`)
  const input: IterationInput = {
    ...runIterationInput(runContext, loaded, { library, loopId, root, runnerTemp, commit: true }),
    env: { ...runContext.env, ...settings.secrets },
    maxParallel: availableParallelism(),
    agentSandbox: isolation.report.nestedSandbox,
    branchFromRemote: branch,
    ...(settings.iteration !== undefined ? { dispatchedIteration: settings.iteration } : {}),
  }
  // No kill switch or pull request here: the labels and the merge are decide's to read (this token reads code alone).
  const deps: IterationDeps = {
    store,
    runner: shared.runnerFiles.runner(new ChildProcessRunner({ redact, isolationPrefix: isolation.prefix })),
    git,
    clock: systemClock,
    logger,
    workspace: nodeWorkspace,
    audit,
    redact,
  }
  return { input, deps, git, branch }
}

async function planJob(shared: FanOutShared, job: ReadOnlyJob, handOff: HandOff): Promise<void> {
  const { io } = shared
  // A matrix GitHub would not run is the config's to change, said plainly (plan checks it again first thing).
  try {
    legsOf(job.input.config)
  } catch (error) {
    if (error instanceof FanOutError) throw new ConfigError(error.message)
    throw error
  }
  refuseAgentWithoutCli(
    job.input.config.agent,
    shared.runContext.settings.agent,
    shared.runContext.settings.config,
    job.input.env.PATH ?? '',
  )
  // Emptied first: what the plan hands on is its own two files, nothing the work left in the folder.
  await nodeWorkspace.remove(handOff.planDir)
  await nodeWorkspace.makeDir(handOff.planDir)
  const { runContext, root, loopId, github } = shared
  const gate = await planGate(runContext, { loopId, config: job.input.config, root }, { ...job.deps, github })
  const deps = gate.kind === 'plan' && gate.admitted ? { ...job.deps, store: admittedView(job.deps.store) } : job.deps
  const planned =
    gate.kind === 'skip'
      ? await noPlan(job, gate.reason)
      : await planIteration({ ...job.input, branch: job.branch, bundleFile: handOff.bundle }, deps)
  await nodeWorkspace.writeText(handOff.plan, `${JSON.stringify(planned.plan, null, 2)}\n`)
  // A plan with no leg (every check is verify-only, and the stage cannot reach VERIFY) runs no verify job:
  // GitHub refuses an empty matrix. Decide judges the iteration with no check run.
  const verify = planned.nothing === null && planned.plan.legs.length > 0
  io.setOutput(Outputs.Matrix, JSON.stringify(matrixOf(planned.plan.legs)))
  io.setOutput(Outputs.Verify, String(verify))
  if (planned.plan.iteration !== null) io.setOutput(Outputs.Iteration, String(planned.plan.iteration))
  if (verify && planned.plan.baseline) {
    const { base, legs, iteration } = planned.plan
    io.info(
      `Planned the baseline round before iteration ${iteration}: no work; ${legs.length} verify leg(s) measure the baseline at ${base?.slice(0, 12)}.`,
    )
  } else if (planned.nothing === null) {
    const { base, candidate, legs } = planned.plan
    const legsSaid = verify
      ? `${legs.length} verify leg(s)`
      : 'no verify leg (no check runs in this stage: each is verify-only); decide judges it'
    io.info(
      `Planned iteration ${planned.plan.iteration}: candidate ${candidate?.slice(0, 12)} on ${base?.slice(0, 12)}${planned.bundled ? '' : ' (the work changed nothing)'}; ${legsSaid}.`,
    )
  } else io.info(`No iteration to verify: ${planned.nothing}. Decide settles the loop.`)
}

/** A plan with no iteration in it, on the state as it is: decide settles the loop on its own. */
async function noPlan(job: ReadOnlyJob, reason: string): Promise<Planned> {
  const loaded = await job.deps.store.load(job.input.loopId)
  const plan = noIterationPlan(job.input.loopId, loaded?.version ?? null)
  return { plan, nothing: `no work planned: ${reason}`, bundled: false }
}

async function verifyJob(shared: FanOutShared, job: ReadOnlyJob, handOff: HandOff): Promise<void> {
  const { io, runContext } = shared
  const plan = await readPlan(handOff)
  const legName = runContext.settings.leg ?? ''
  const leg = plan.legs.find((l) => l.leg === legName)
  if (!leg) {
    throw new ConfigError(
      `Input 'leg' must name a leg of the plan's matrix; got '${legName}'. The plan's legs: ${plan.legs.map((l) => l.leg).join(', ') || '(none)'}.`,
    )
  }
  if (plan.iteration === null || !plan.base || !plan.candidate) {
    throw new FanOutError(
      'The plan has no candidate to verify (the workflow runs verify only when plan outputs verify: true).',
    )
  }
  const head = await job.git.head()
  if (head !== plan.base) {
    throw new FanOutError(`The plan built on ${plan.base}; the loop's branch here is at ${head ?? 'no commit'}.`)
  }
  if (plan.candidate !== plan.base) {
    await receiveCandidate(job.git, handOff.bundle, plan.base, plan.candidate)
    await job.git.exec(['merge', '--ff-only', '-q', CANDIDATE_REF])
  }
  const verdict = await verifyLeg(
    job.input,
    job.deps,
    { ...plan, iteration: plan.iteration, candidate: plan.candidate },
    leg,
  )
  // Emptied first: the leg's artifact holds its own verdict, nothing the check left in the folder.
  await nodeWorkspace.remove(handOff.verdictOut)
  await nodeWorkspace.makeDir(handOff.verdictOut)
  const text = `${JSON.stringify(verdict)}\n`
  await nodeWorkspace.writeText(join(handOff.verdictOut, `${leg.artifact}.json`), text)
  const { run } = verdict
  const how = run.spawnError ?? (run.timedOut ? 'timed out' : `exit ${run.exitCode ?? run.signal}`)
  const where = plan.baseline
    ? `at the base ${plan.base.slice(0, 12)} (the baseline)`
    : `on ${plan.candidate.slice(0, 12)}`
  io.info(`Leg ${leg.leg}: ${leg.check} ${where}: ${how}.`)
  // In this job's own log, which no other job can write, after the check's processes ended: decide takes
  // the leg's verdict only if its file is the one named here last (another job's upload in its place is not).
  io.info(verdictDigestLine(leg.leg, createHash('sha256').update(text, 'utf8').digest('hex')))
}

/** The plan's hand-off file, validated. */
export async function readPlan(handOff: HandOff): Promise<PlanFile> {
  const text = await nodeWorkspace.readText(handOff.plan, 16 * 1024 * 1024)
  if (text === null)
    throw new FanOutError(`The plan's hand-off file ${handOff.plan} is missing (was the plan artifact downloaded?).`)
  return parseHandOff(planFileSchema, text, `The plan's hand-off file ${handOff.plan}`)
}
