/**
 * A verify leg of a fan-out iteration: one check of the matrix (or one shard of a sharded check) on the
 * candidate, its run and its JUnit verdicts recorded as the leg's verdict, with the flake check of a
 * failed check (`leg-flake-check.ts`: decide runs no code, so the re-run happens here). In a baseline
 * round the candidate is the base, and the check runs once, with no flake check, as the single job's
 * baseline. The check's pass or failure is the verdict's to say; only a leg that cannot run or report
 * fails its job (and decide then records `no verdict`).
 */
import { delimiter, join } from 'node:path'
import { buildCommandEnv, withPathFirst } from '../../domain/command-env.js'
import {
  boundedTests,
  type Leg,
  type PlanFile,
  type RecordedRun,
  VERDICT_FILE_VERSION,
  type VerdictFile,
} from '../../domain/fan-out.js'
import type { LoopConfig } from '../../domain/loop-config.js'
import { legCheck, legOf } from '../../domain/shards.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { junitResults, verify } from '../verification.js'
import { flakeCheckInLeg } from './leg-flake-check.js'
import { clamp, legSetup, MAX_OUTPUT_CHARS } from './leg-setup.js'

/** Runs `leg`'s check in `input.cwd` (the plan's candidate checked out) and returns its verdict. */
export async function verifyLeg(
  input: IterationInput,
  deps: IterationDeps,
  plan: PlanFile & { iteration: number; candidate: string },
  leg: Leg,
): Promise<VerdictFile> {
  return verdictOf(plan, leg, await candidateVerdict(input, deps, plan, leg))
}

/** The leg's check on the candidate: its setup, its run, its JUnit verdicts and (but at the baseline) its flake check. */
async function candidateVerdict(
  input: IterationInput,
  deps: IterationDeps,
  plan: PlanFile & { iteration: number; candidate: string },
  leg: Leg,
): Promise<Pick<VerdictFile, 'run' | 'tests' | 'flakeCheck' | 'setupMs'>> {
  const config = legConfig(input.config, leg)
  const legInput = { ...input, config }
  // The same environment the single job gives the project's commands: no controller secrets, the
  // repository's own tools first on PATH.
  const checkEnv = buildCommandEnv(input.env, { passEnv: input.config.work['pass-env'], extra: {} })
  const projectEnv = withPathFirst(checkEnv, [join(input.cwd, 'node_modules', '.bin')], delimiter)
  const logDir = join(input.loopDir, 'runs', String(plan.iteration), plan.baseline ? 'baseline' : 'verify')
  const setup = await legSetup(input, deps, leg, projectEnv, logDir)
  if (setup?.failed) return { run: setup.failed, setupMs: setup.durationMs }
  const [live] = await verify(legInput, deps, logDir, projectEnv, plan.iteration, false, [leg.check])
  const result = live?.outcome.result
  const run: RecordedRun = result
    ? {
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        output: clamp(deps.redact(result.output)),
        totalBytes: result.totalBytes,
        truncated: result.truncated || result.output.length > MAX_OUTPUT_CHARS,
        ...(result.spawnError !== undefined ? { spawnError: deps.redact(result.spawnError) } : {}),
      }
    : {
        exitCode: null,
        signal: null,
        timedOut: false,
        durationMs: 0,
        output: '',
        totalBytes: 0,
        truncated: false,
        spawnError: `the check did not run (${live?.outcome.skippedReason ?? 'no outcome'})`,
      }
  // This check's reports alone, read here where it ran: decide reads none from the candidate.
  const only = { ...legInput, config: { ...config, checks: config.checks.filter((c) => c.name === leg.check) } }
  const firstTests = await junitResults(only, deps)
  // A failed check is re-run here where a flake is possible (decide runs nothing); `run` stays the first
  // run. Not at the baseline: the single job's baseline re-runs nothing either.
  const logName = leg.shard === undefined ? leg.check : `${leg.check}.shard-${leg.shard}`
  const flakeCheck =
    live && !plan.baseline ? await flakeCheckInLeg(legInput, deps, live, logDir, projectEnv, logName) : null
  if (flakeCheck) {
    const how = flakeCheck.passed ? 'passed' : 'failed again'
    deps.logger.info(`Leg ${leg.leg}: flake check: ${how} after ${flakeCheck.attempts} re-run(s).`)
  }
  // A re-run that passed reports its tests as the single job's would: its verdicts over the first run's.
  const { tests, dropped } = boundedTests(
    flakeCheck?.passed ? { ...firstTests, ...(await junitResults(only, deps)) } : firstTests,
  )
  if (dropped > 0) {
    deps.logger.warning(
      `Leg ${leg.leg}: ${dropped} JUnit verdict(s) left out of the verdict file (the passing ones first).`,
    )
  }
  return {
    run,
    ...(Object.keys(tests).length > 0 ? { tests } : {}),
    ...(flakeCheck ? { flakeCheck } : {}),
    ...(setup ? { setupMs: setup.durationMs } : {}),
  }
}

function verdictOf(
  plan: PlanFile & { iteration: number; candidate: string },
  leg: Leg,
  what: Pick<VerdictFile, 'run' | 'tests' | 'flakeCheck' | 'setupMs'>,
): VerdictFile {
  return {
    version: VERDICT_FILE_VERSION,
    loopId: plan.loopId,
    iteration: plan.iteration,
    candidate: plan.candidate,
    leg: leg.leg,
    check: leg.check,
    ...what,
  }
}

/**
 * The config the leg verifies with: its check as the plan named it, a shard's leg as that shard alone
 * (its command, JUnit path and LOOP_SHARD/LOOP_SHARDS, `legCheck`), the other checks as they are.
 */
export function legConfig(config: LoopConfig, leg: Leg): LoopConfig {
  const check = config.checks.find((c) => c.name === leg.check)
  if (!check) throw new Error(`Leg ${leg.leg} names check '${leg.check}', which the loop config does not have.`)
  const shards = check.shards ?? 1
  if ((leg.shards ?? 1) !== shards) {
    throw new Error(
      `Leg ${leg.leg} runs shard ${leg.shard ?? 1} of ${leg.shards ?? 1}; the loop config gives check '${leg.check}' ${shards} shard(s).`,
    )
  }
  if (leg.shard === undefined) return config
  const shard = legCheck(check, legOf(check, leg.shard, shards))
  return { ...config, checks: config.checks.map((c) => (c === check ? shard : c)) }
}
