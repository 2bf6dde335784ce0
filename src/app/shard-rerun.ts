/**
 * Re-running a sharded check: the flake check re-runs only its failing shards (each with only its own
 * failing tests where its runner can select them), a re-check after a fix or an install runs every
 * shard; either way the legs run side by side, at most max-parallel at once, each with its own timeout.
 */
import { join } from 'node:path'
import { failingTestsIn } from '../domain/analysis/failing-tests.js'
import { type FlakeRerun, flakeRerun } from '../domain/flake-rerun.js'
import type { CheckConfig, Command } from '../domain/loop-config.js'
import { type ShardLeg, shardLabel } from '../domain/shards.js'
import type { RunResult } from '../ports/process.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'
import { removeReport } from './junit-reports.js'
import { isFailing, safeName } from './step-support.js'
import type { LiveCheck } from './verification.js'

/** One leg to re-run: its own command, or `command` (its failing tests only) in its place. */
export interface LegRerun {
  leg: ShardLeg
  command?: Command
}

/** What the flake check re-runs of one failing shard. */
export interface ShardFlakePlan {
  leg: ShardLeg
  rerun: Exclude<FlakeRerun, { scope: 'none' }>
}

/**
 * The flake check's plan for a sharded check: each failing shard, judged on its own command, pattern
 * and output; empty when one of them cannot be a flake or timed out (the check stays failing whatever
 * the others do, so re-running them would only cost time).
 */
export function shardFlakePlans(live: LiveCheck): ShardFlakePlan[] {
  const failing = (live.shards ?? []).filter((shard) => isFailing(shard.result))
  const plans: ShardFlakePlan[] = []
  for (const shard of failing) {
    if (shard.result.verdict === 'timeout') return []
    const rerun = flakeRerun({
      kind: live.check.kind,
      run: shard.leg.command,
      pattern: shard.analysis?.pattern ?? null,
      failingTests: failingTestsIn(shard.output),
    })
    if (rerun.scope === 'none') return []
    plans.push({ leg: shard.leg, rerun })
  }
  return plans
}

/** How the flake check's plan is told: `re-running shard 3/4 only (its 2 failing tests, vitest)`. */
export function describeShardFlakePlans(check: string, plans: readonly ShardFlakePlan[]): string {
  const shards = plans[0]?.leg.shards ?? 0
  const which = plans.map((plan) => `${plan.leg.shard}/${shards}`).join(', ')
  const how = plans.map((plan) =>
    plan.rerun.scope === 'tests'
      ? `${shardLabel(check, plan.leg.shard, shards)}: only its failing tests (${plan.rerun.runner})`
      : `${shardLabel(check, plan.leg.shard, shards)}: the whole shard`,
  )
  return `re-running only the failing shard${plans.length === 1 ? '' : 's'} ${which} of ${shards} (${how.join('; ')})`
}

/** The legs the flake check runs again, each narrowed to its failing tests where it can be. */
export function flakeLegReruns(plans: readonly ShardFlakePlan[]): LegRerun[] {
  return plans.map((plan) =>
    plan.rerun.scope === 'tests' ? { leg: plan.leg, command: plan.rerun.command } : { leg: plan.leg },
  )
}

/**
 * Runs the legs again, side by side up to `maxParallel`, each logged to `<check>.shard-<i>.<label>.log`;
 * true when every one passes.
 */
export async function rerunLegs(
  input: IterationInput,
  deps: IterationDeps,
  check: CheckConfig,
  legs: readonly LegRerun[],
  logDir: string,
  env: Record<string, string>,
  label: string,
): Promise<boolean> {
  const maxParallel = input.config.matrix['max-parallel'] ?? input.maxParallel
  const results: RunResult[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < legs.length) {
      const { leg, command } = legs[next++]!
      if (leg.junit !== undefined) await removeReport(input, deps, leg.junit)
      results.push(
        await deps.runner.run({
          command: command ?? leg.command,
          cwd: input.cwd,
          env: { ...env, ...check.env, ...leg.env },
          timeoutMs: Math.round(check.timeout * 1000),
          logFile: join(logDir, `${safeName(`${check.name}.shard-${leg.shard}.${label}`)}.log`),
        }),
      )
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(maxParallel, legs.length)) }, worker))
  return results.every((result) => result.exitCode === 0 && !result.timedOut)
}
