/**
 * A verify leg of a fan-out iteration: one check of the matrix on the candidate, its run recorded as
 * the leg's verdict. The check's pass or failure is the verdict's to say; only a leg that cannot run
 * or report fails its job (and decide then records `no verdict`).
 */
import { delimiter, join } from 'node:path'
import { buildCommandEnv, withPathFirst } from '../../domain/command-env.js'
import type { Leg, PlanFile, RecordedRun, VerdictFile } from '../../domain/fan-out.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { verify } from '../verification.js'

/** The most output a verdict carries (head and tail, as the runner keeps them). */
const MAX_OUTPUT_CHARS = 200 * 1024

/** Runs `leg`'s check in `input.cwd` (the candidate checked out) and returns its verdict. */
export async function verifyLeg(
  input: IterationInput,
  deps: IterationDeps,
  plan: PlanFile & { iteration: number; candidate: string },
  leg: Leg,
): Promise<VerdictFile> {
  if (!input.config.checks.some((check) => check.name === leg.check)) {
    throw new Error(`Leg ${leg.leg} names check '${leg.check}', which the loop config does not have.`)
  }
  // The same environment the single job gives the project's commands: no controller secrets, the
  // repository's own tools first on PATH.
  const checkEnv = buildCommandEnv(input.env, { passEnv: input.config.work['pass-env'], extra: {} })
  const projectEnv = withPathFirst(checkEnv, [join(input.cwd, 'node_modules', '.bin')], delimiter)
  const logDir = join(input.loopDir, 'runs', String(plan.iteration), 'verify')
  const [live] = await verify(input, deps, logDir, projectEnv, plan.iteration, false, [leg.check])
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
  return {
    version: 1,
    loopId: plan.loopId,
    iteration: plan.iteration,
    candidate: plan.candidate,
    leg: leg.leg,
    check: leg.check,
    run,
  }
}

function clamp(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text
  const half = MAX_OUTPUT_CHARS / 2
  return `${text.slice(0, half)}\n[... output cut by loop-controller ...]\n${text.slice(-half)}`
}
