/** A verify leg's setup (`verify-setup`, else `install`) and the bounds of what a verdict carries. */
import { join } from 'node:path'
import { type Leg, legSetupOf, type RecordedRun } from '../../domain/fan-out.js'
import { INSTALL_TIMEOUT_MS } from '../iteration/act.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { howItFailed } from '../step-support.js'

/** The most output a verdict carries (head and tail, as the runner keeps them). */
export const MAX_OUTPUT_CHARS = 200 * 1024

/** The longest a leg's setup runs (an install and a build), as the single job's `install`. */
const SETUP_TIMEOUT_MS = INSTALL_TIMEOUT_MS

/**
 * The leg's `verify-setup` (else the config's `install`), run on the leg's fresh runner before its
 * check, as a check runs (the same environment, isolation and log folder): null when there is none.
 * A setup that fails is the check's run, an `error` whose output is the setup's, and the check is not run.
 */
export async function legSetup(
  input: IterationInput,
  deps: IterationDeps,
  leg: Leg,
  env: Record<string, string>,
  logDir: string,
): Promise<{ durationMs: number; failed: RecordedRun | null } | null> {
  const setup = legSetupOf(input.config)
  if (setup === null) return null
  const { key } = setup
  deps.logger.info(`Leg ${leg.leg}: ${key} before the check.`)
  const logFile = join(logDir, `${key}.log`)
  const result = await deps.runner.run({
    command: setup.command,
    cwd: input.cwd,
    env,
    timeoutMs: SETUP_TIMEOUT_MS,
    logFile,
  })
  const durationMs = Math.max(0, Math.round(result.durationMs))
  const how = howItFailed(result, SETUP_TIMEOUT_MS)
  if (how === null) return { durationMs, failed: null }
  const line = `loop-controller: the leg's ${key} ${how}, so check '${leg.check}' did not run in leg ${leg.leg}`
  deps.logger.warning(line)
  const output = `${clamp(deps.redact(result.output))}\n${line}\n`
  return {
    durationMs,
    failed: {
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs: 0,
      output,
      totalBytes: result.totalBytes + line.length + 2,
      truncated: result.truncated || result.output.length > MAX_OUTPUT_CHARS,
      spawnError: line,
    },
  }
}

export function clamp(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text
  const half = MAX_OUTPUT_CHARS / 2
  return `${text.slice(0, half)}\n[... output cut by loop-controller ...]\n${text.slice(-half)}`
}
