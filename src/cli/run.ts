/** `loop-controller run` and `next`: iterations on this machine, with live progress and a closing line. */
import { availableParallelism } from 'node:os'
import { join, relative } from 'node:path'
import { GitCli } from '../adapters/git-cli.js'
import { chooseIsolation, type IsolationPlan, IsolationUnavailableError } from '../adapters/isolation.js'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { ChildProcessRunner } from '../adapters/process-runner.js'
import { RunnerFileGuard, runnerFileCommandPaths } from '../adapters/runner-file-guard.js'
import { type IterationResult, runOneIteration } from '../app/iteration.js'
import { shadowedConfigNotice } from '../config/simple-mode-inputs.js'
import { loadUserPatterns } from '../config/user-patterns.js'
import { buildLibrary } from '../domain/analysis/index.js'
import { ISOLATION_MODES, type IsolationMode, isolationLine } from '../domain/isolation.js'
import { systemClock } from '../ports/clock.js'
import { VERSION } from '../version.js'
import { loadCliConfig } from './config.js'
import { EXIT, exitFor, UsageError } from './exit-codes.js'
import { type CliIo, cliLogger } from './io.js'
import type { LoopPlace } from './loop-place.js'
import type { Values } from './options.js'
import { plainProgress, ttyProgress } from './progress.js'
import { closingLine } from './render.js'
import { isGitRepository, keepStateOutOfGit } from './repository.js'

/** Runs one iteration (`next`) or iterations until the loop stops (`run`); returns the exit code. */
export async function runIterations(
  command: 'next' | 'run',
  place: LoopPlace,
  values: Values,
  io: CliIo,
): Promise<number> {
  const { root, stateDir, loopId, store, audit, redact } = place
  // Loading checks the policy too, so a bad cap is a configuration error before anything runs.
  const { config, configPath, capGiven, shadowedFile } = await loadCliConfig(root, values, io)
  // Checked before anything is printed or written: a bad --isolation is refused on its own.
  const isolation = cliIsolation(values)
  if (shadowedFile !== null) io.stderr(`warning: ${shadowedConfigNotice(shadowedFile, '--work/--verify')}\n`)
  const library = buildLibrary(await loadUserPatterns(config.patterns, root))
  await keepStateOutOfGit(root, stateDir)
  const git = (await isGitRepository(root)) ? new GitCli(root) : null
  const excluded = relative(root, stateDir)
  const progress = io.isTTY ? ttyProgress(io) : plainProgress(io)
  const logger = cliLogger(io)
  const started = Date.now()
  let last: IterationResult | null = null
  const header = await store.load(loopId)
  io.stdout(
    `loop ${loopId} · ${typeof config.pipeline === 'string' ? config.pipeline : config.pipeline.join(' -> ')} · cap ${capGiven ?? header?.state.maxIterations ?? config['max-iterations']}${header ? ` · resuming at iteration ${header.state.iteration}` : ''}\n`,
  )
  io.stdout(`${isolationLine(isolation.report)}\n`)
  // Run in a workflow step, the step's file commands are put back after each project command and at the end.
  const runnerFiles = new RunnerFileGuard(runnerFileCommandPaths(io.env), {
    warn: (message) => logger.warning(message),
    info: (message) => logger.info(message),
  })
  try {
    for (;;) {
      last = await runOneIteration(
        {
          config,
          library,
          loopId,
          cwd: root,
          loopDir: join(stateDir, loopId),
          excludeFromCommits: excluded.startsWith('..') ? [] : [excluded],
          commit: !values['no-commit'] && config.commit.enabled,
          identity: { name: 'loop-controller', email: 'loop-controller@users.noreply.github.com' },
          env: io.env,
          maxParallel: availableParallelism(),
          agentSandbox: isolation.report.nestedSandbox,
          toolVersion: VERSION,
          ...(capGiven !== undefined ? { capGiven } : {}),
          ...(configPath ? { configPathRelative: relative(root, configPath) } : {}),
        },
        {
          store,
          runner: runnerFiles.runner(new ChildProcessRunner({ redact, isolationPrefix: isolation.prefix })),
          git,
          clock: systemClock,
          logger,
          workspace: nodeWorkspace,
          audit,
          redact,
          progress,
        },
      )
      if (last.outcome !== 'continue' || command === 'next') break
    }
  } finally {
    runnerFiles.putBackAtExit()
  }
  io.stdout(`${closingLine(last, Date.now() - started, relative(io.cwd, join(stateDir, loopId)) || '.')}\n`)
  if (command === 'next' && last.outcome === 'continue') return EXIT.complete
  return exitFor(last.outcome)
}

/** `--isolation` (default `auto`); a mode this machine cannot give is a usage error. */
function cliIsolation(values: Values): IsolationPlan {
  const mode = values.isolation ?? 'auto'
  const modes: readonly string[] = ISOLATION_MODES
  if (!modes.includes(mode)) {
    throw new UsageError(`--isolation: expected one of ${ISOLATION_MODES.join(', ')}; got '${mode}'.`)
  }
  try {
    return chooseIsolation(mode as IsolationMode)
  } catch (error) {
    if (error instanceof IsolationUnavailableError) throw new UsageError(`--isolation: ${error.message}`)
    throw error
  }
}
