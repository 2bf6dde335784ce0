/**
 * A verify leg's run of its check at the baseline (the plan's `baselineAt`, the loop's first
 * iteration): in a scratch checkout of that commit apart from the leg's workspace, which stays the
 * candidate's, before the candidate's code runs in the leg. Its verdict there is the baseline's, never
 * the candidate's: a check failing at the base only says it failed before the work, as the single job's baseline.
 */
import { delimiter, join } from 'node:path'
import { buildCommandEnv, withPathFirst } from '../../domain/command-env.js'
import { boundedTests, type Leg, type LegBaseline, type PlanFile } from '../../domain/fan-out.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { junitResults, verify } from '../verification.js'
import { legSetup } from './leg-setup.js'

/**
 * Runs `leg`'s check (as `input.config` gives it: the leg's shard alone) at `plan.baselineAt`, checked
 * out in `scratchDir` (a git worktree, removed after). Null when the plan asks for no baseline, the check
 * is verify-only (the baseline leaves those out), or the base cannot be checked out (said in the log:
 * decide then records no baseline for the check).
 */
export async function baselineInLeg(
  input: IterationInput,
  deps: IterationDeps,
  plan: PlanFile & { iteration: number },
  leg: Leg,
  scratchDir: string,
): Promise<LegBaseline | null> {
  const base = plan.baselineAt
  const check = input.config.checks.find((c) => c.name === leg.check)
  if (!base || !check || check['verify-only']) return null
  const git = deps.git
  if (!git) {
    deps.logger.warning(`Leg ${leg.leg}: no baseline: the leg has no git checkout to check the base out from.`)
    return null
  }
  await deps.workspace.remove(scratchDir)
  const added = await git.exec(['worktree', 'add', '--detach', '--force', scratchDir, base], { allowFailure: true })
  if (added.exitCode !== 0) {
    deps.logger.warning(
      `Leg ${leg.leg}: no baseline: the base ${base.slice(0, 12)} cannot be checked out apart (${added.stderr.trim().split('\n')[0] ?? ''}).`,
    )
    return null
  }
  try {
    deps.logger.info(`Leg ${leg.leg}: the baseline: ${leg.check} at ${base.slice(0, 12)}, checked out apart.`)
    const at: IterationInput = { ...input, cwd: scratchDir }
    const checkEnv = buildCommandEnv(input.env, { passEnv: input.config.work['pass-env'], extra: {} })
    const env = withPathFirst(checkEnv, [join(scratchDir, 'node_modules', '.bin')], delimiter)
    const logDir = join(input.loopDir, 'runs', String(plan.iteration), 'verify-baseline')
    const setup = await legSetup(at, deps, leg, env, logDir, ' at the baseline')
    const setupMs = setup?.durationMs ?? 0
    if (setup?.failed) return { commit: base, verdict: 'fail', durationMs: setupMs }
    const [live] = await verify(at, deps, logDir, env, plan.iteration, false, [leg.check])
    const verdict = live?.result.verdict === 'pass' ? 'pass' : 'fail'
    const only = { ...at, config: { ...at.config, checks: [check] } }
    const { tests } = boundedTests(await junitResults(only, deps))
    const ranMs = Math.max(0, Math.round(live?.outcome.result?.durationMs ?? 0))
    deps.logger.info(
      `Leg ${leg.leg}: the baseline: ${leg.check} ${verdict === 'pass' ? 'passed' : 'failed'} at the base.`,
    )
    return {
      commit: base,
      verdict,
      ...(Object.keys(tests).length > 0 ? { tests } : {}),
      durationMs: setupMs + ranMs,
    }
  } finally {
    await git.exec(['worktree', 'remove', '--force', scratchDir], { allowFailure: true })
    await deps.workspace.remove(scratchDir)
    await git.exec(['worktree', 'prune'], { allowFailure: true })
  }
}
