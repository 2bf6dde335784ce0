/**
 * The decide job of a fan-out iteration: the only job with a write token, and it runs no code of the
 * project (no checks, no install, no hooks: every git of the controller runs with hooks off). It
 * applies people's commands, takes the plan and the legs' verdicts (each file validated, the bundle
 * checked), and carries the loop on through the single job's own publish, report and re-dispatch.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { AuditTrail } from '../adapters/audit-trail.js'
import { GitCli } from '../adapters/git-cli.js'
import { OctokitGitHub } from '../adapters/github.js'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { decideIteration } from '../app/fan-out/decide.js'
import { ProjectCodeRefusedError } from '../app/fan-out/replay-runner.js'
import type { IterationResult } from '../app/iteration.js'
import { checkoutLoopBranch, pushAuthEnv } from '../app/loop-branch.js'
import { loadUserPatterns } from '../config/user-patterns.js'
import { loopBranch, Outputs } from '../constants.js'
import { taskOfEvent } from '../domain/action-event.js'
import { buildLibrary } from '../domain/analysis/index.js'
import { hasStopLabel } from '../domain/commands.js'
import { FanOutError, parseHandOff, type VerdictFile, verdictArtifact, verdictFileSchema } from '../domain/fan-out.js'
import type { PullRequestWaiting, Refusal } from '../domain/report/index.js'
import { systemClock } from '../ports/clock.js'
import type { Store } from '../ports/store.js'
import { VERSION } from '../version.js'
import { COMMIT_IDENTITY } from './commit-identity.js'
import { redispatch } from './dispatch.js'
import { type FanOutShared, type HandOff, readPlan, remoteHost } from './fan-out.js'
import { stopLabelReader } from './kill-switch.js'
import { loadActionConfig, withSecretsPassed } from './loop-config.js'
import { applyCommands } from './people-commands.js'
import { removePersistedCredentials } from './persisted-credentials.js'
import { publishIteration } from './publish.js'
import { reportRefusal } from './refusal.js'
import { report } from './report.js'
import { readyForMerge } from './ship.js'
import { auditRestorer, createStore } from './stores.js'

/** The most verdict files decide reads (GitHub's matrix limit). */
const MAX_VERDICTS = 256

export async function decideJob(shared: FanOutShared, handOff: HandOff): Promise<void> {
  const { runContext, root, loopId, github, logger, io, redact } = shared
  const { settings } = runContext
  const { config, configPathRelative, capGiven } = await loadActionConfig(settings, root, nodeWorkspace)
  const runnerTemp = runContext.runnerTemp ?? join(root, '..', '_loop-temp')
  const loopDir = join(runnerTemp, 'loop-controller', 'audit', loopId)
  const audit = new AuditTrail(loopDir, redact)
  const { store, auditSource } = await createStore({ run: runContext, runnerTemp, root, loopDir, logger })
  io.setOutput(Outputs.StatePath, store.describe(loopId))
  const restoreAudit = auditRestorer(auditSource, loopId, loopDir, logger)

  // The plan and every verdict are read and validated before anything is written.
  // No plan file: this run's plan job made none (a person's event), and nothing of a plan is taken.
  const plan = (await nodeWorkspace.readText(handOff.plan, 1)) === null ? null : await readPlan(handOff)
  const { verdicts, unreadable } = await readVerdicts(handOff.verdictsIn)
  const bundleFile = (await nodeWorkspace.readText(handOff.bundle, 1)) === null ? null : handOff.bundle

  // People's commands: a comment's `/loop ...` is applied here, the one job that may save.
  const asRun = { ...runContext, settings: { ...settings, command: 'run' as const } }
  const commandDeps = {
    github,
    store,
    audit,
    logger,
    clock: systemClock,
    restoreAudit,
    reportRefusal: (refusal: Refusal) => reportRefusal(runContext, refusal, { github, io, redact }),
  }
  if (!(await applyCommands(asRun, loopId, commandDeps))) return

  const git = new GitCli(root, {
    networkEnv: pushAuthEnv(await remoteHost(root, runContext.serverUrl), settings.pushToken),
  })
  await removePersistedCredentials(git, logger)
  const branch = loopBranch(loopId)
  await checkoutLoopBranch(git, branch)
  await restoreAudit()
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
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
  }
  const decided = await decideIteration(
    {
      config: withSecretsPassed(config, settings.secrets),
      library,
      loopId,
      cwd: root,
      loopDir: join(runnerTemp, 'loop-controller', 'runs', loopId),
      excludeFromCommits: [],
      commit: true,
      identity: COMMIT_IDENTITY,
      env: {},
      maxParallel: 1,
      task: taskOfEvent(runContext.event.name, runContext.event.payload),
      stopRequested: hasStopLabel(runContext.event.subject.labels),
      toolVersion: VERSION,
      branchFromRemote: branch,
      ...(settings.iteration !== undefined ? { dispatchedIteration: settings.iteration } : {}),
      ...(capGiven !== undefined ? { capGiven } : {}),
      ...(configPathRelative ? { configPathRelative } : {}),
      plan,
      bundleFile,
      verdicts,
      unreadableVerdicts: unreadable,
      verifyResult: settings.verifyResult,
    },
    deps,
  )
  if (decided.kind === 'stale') {
    logger.warning(decided.message)
    io.setOutput(Outputs.Status, 'superseded')
    const state = decided.state
    if (state && state.status === 'running' && settings.dispatch) {
      const failed = await redispatch(runContext, { loopId, state }, { github, logger, store, clock: systemClock })
      if (failed) io.setFailed(redact(failed.message))
    }
    return
  }
  await carryOn(shared, decided.result, { git, store, audit, branch })
}

/** After the iteration: push and the pull request, the report, the re-dispatch (the single job's own code). */
async function carryOn(
  shared: FanOutShared,
  result: IterationResult,
  parts: { git: GitCli; store: Store; audit: AuditTrail; branch: string },
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
  const reportInput = { loopId, state, outcome, result, root, pullRequestWaiting, failOn: settings.failOn }
  await report(runContext, reportInput, { github, io, redact })
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

/**
 * Every leg's verdict, from its own artifact's folder (`<dir>/<artifact>/<artifact>.json`), validated.
 * A verdict is taken only from the artifact of the leg it names, so no leg (nor the plan) can speak for
 * another. A file that is not valid is its leg's `no verdict` (named by its artifact), not the end of
 * the job: a broken upload must not stall the loop.
 */
async function readVerdicts(dir: string): Promise<{ verdicts: VerdictFile[]; unreadable: Map<string, string> }> {
  const verdicts: VerdictFile[] = []
  const unreadable = new Map<string, string>()
  let artifacts: string[]
  try {
    artifacts = (await readdir(dir)).filter((name) => name.startsWith('loop-verdict-')).sort()
  } catch {
    return { verdicts, unreadable }
  }
  if (artifacts.length > MAX_VERDICTS) {
    throw new Error(`${dir} holds ${artifacts.length} verdict artifacts; at most ${MAX_VERDICTS} legs run`)
  }
  for (const artifact of artifacts) {
    const file = `${artifact}/${artifact}.json`
    const text = (await nodeWorkspace.readText(join(dir, file), 4 * 1024 * 1024)) ?? ''
    try {
      const verdict = parseHandOff(verdictFileSchema, text, `The verdict file ${file}`)
      if (verdictArtifact(verdict.leg) !== artifact) {
        throw new FanOutError(`The verdict file ${file} speaks for leg ${verdict.leg}, not for its own artifact's`)
      }
      verdicts.push(verdict)
    } catch (error) {
      unreadable.set(artifact, error instanceof Error ? error.message : String(error))
    }
  }
  return { verdicts, unreadable }
}
