/**
 * A verify leg's flake check: the leg's check failed, and decide (the only job with a write token) runs
 * no code of the project, so the leg re-runs the check itself, on the candidate, judged as the single
 * job's flake check judges it (`flakeRerun`: enabled, not a timeout, only where a flake is possible; only
 * the failing tests where the runner can select them), up to `flake-check.reruns` times, logged next to
 * the leg's run. Its verdict records what ran and whether it passed; decide calls the check flaky.
 */
import { failingTestsIn } from '../../domain/analysis/failing-tests.js'
import { flakeRerun } from '../../domain/flake-rerun.js'
import { type LegFlakeCheck, legFlakeCheck } from '../../domain/leg-flake.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { isFailing } from '../step-support.js'
import { type LiveCheck, rerunCheck } from '../verification.js'

/**
 * Re-runs `live`'s failed check where a flake is possible; null when it re-ran nothing (flake check off
 * or no re-runs, the check passed or timed out, or its failure cannot be a flake). `logName` names the
 * re-runs' logs in `logDir` (`<logName>.rerun-<n>.log`).
 */
export async function flakeCheckInLeg(
  input: IterationInput,
  deps: IterationDeps,
  live: LiveCheck,
  logDir: string,
  env: Record<string, string>,
  logName: string,
): Promise<LegFlakeCheck | null> {
  const { enabled, reruns } = input.config['flake-check']
  if (!enabled || reruns < 1 || !isFailing(live.result) || live.result.verdict === 'timeout') return null
  const rerun = flakeRerun({
    kind: live.check.kind,
    run: live.check.run,
    pattern: live.analysis?.pattern ?? null,
    failingTests: failingTestsIn(live.outcome.result?.output ?? ''),
  })
  if (rerun.scope === 'none') return null
  const check = rerun.scope === 'tests' ? { ...live.check, run: rerun.command } : live.check
  let attempts = 0
  let passed = false
  let rerunMs = 0
  while (attempts < reruns && !passed) {
    attempts++
    const result = await rerunCheck(input, deps, check, logDir, env, `${logName}.rerun-${attempts}`)
    rerunMs += result.durationMs
    passed = result.exitCode === 0 && !result.timedOut
  }
  return legFlakeCheck(rerun, attempts, passed, deps.redact, rerunMs)
}
