/**
 * Cheaper remedies before anyone is woken, for each failing check: a re-run where a flake is possible
 * (the whole check, or only its failing tests when the runner can select them), the check's own fix
 * command (whenever one is declared), the install command (dependency_check). Each ends with the check
 * passing, or leaves the failure for the analysis and the retry rules. No remedy command runs twice in
 * one iteration: one the act step already ran was measured by the matrix that followed it.
 */

import { failingTestsIn } from '../../domain/analysis/failing-tests.js'
import { type FlakeRerun, flakeRerun } from '../../domain/flake-rerun.js'
import type { JourneyEvent } from '../../domain/journey.js'
import type { CheckConfig, Command } from '../../domain/loop-config.js'
import { expandShards, isSharded } from '../../domain/shards.js'
import type { RunResult } from '../../ports/process.js'
import { describeShardFlakePlans, flakeLegReruns, rerunLegs, shardFlakePlans } from '../shard-rerun.js'
import { isFailing, usage } from '../step-support.js'
import { type LiveCheck, rerunCheck } from '../verification.js'
import { command, INSTALL_TIMEOUT_MS } from './act.js'
import { beforeFix, type IterationRecord, type IterationRun, verifyNote, withEvents } from './record.js'

export async function remedies(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, iteration } = run
  const { config } = input
  const installedBeforeVerify = record.remediesRun.install
  let installed = installedBeforeVerify
  const fixes = [...record.remediesRun.fixes]
  const fixSnapshots = [...record.fixSnapshots]
  const flaky = [...record.flaky]
  const autoFixed = [...record.autoFixed]
  const events: JourneyEvent[] = []
  const checks: LiveCheck[] = []

  for (const live of record.checks) {
    // A passing check is left as it is (one fixed before the work is marked so by `fixed-first.ts`).
    if (!isFailing(live.result)) {
      checks.push(live)
      continue
    }
    const name = live.check.name
    // A sharded check's flake check re-runs only its failing shards.
    if (live.shards && (await flakeCheckShards(run, live, events))) {
      checks.push({ ...live, result: { ...live.result, verdict: 'flaky' } })
      flaky.push(name)
      events.push(
        verifyNote(run, 'flaky', `${name}: failed, then its failing shards passed when re-run (flaky, no retry spent)`),
      )
      continue
    }
    // Flake check, where a flake is possible: a pass is recorded as flaky and costs no retry.
    const rerun = live.shards ? null : flakeCheck(run, live)
    if (rerun) {
      const narrowed = rerun.scope === 'tests'
      events.push(verifyNote(run, 'check', `${name}: flake check: ${rerunWhat(rerun)}`, flakeData(rerun)))
      let passed = false
      for (let attempt = 1; attempt <= config['flake-check'].reruns && !passed; attempt++) {
        passed = await recheck(run, live.check, `rerun-${attempt}`, narrowed ? rerun.command : undefined)
      }
      if (passed) {
        checks.push({ ...live, result: { ...live.result, verdict: 'flaky' } })
        flaky.push(name)
        const what = narrowed ? `its failing tests passed when re-run` : 'then passed when re-run'
        events.push(verifyNote(run, 'flaky', `${name}: failed, ${what} (flaky, no retry spent)`))
        continue
      }
    }
    const pattern = live.analysis?.pattern
    // A declared fix runs whatever the analysis said (a bare `gofmt -l` file list matches no pattern),
    // then the check again, without the agent. A timeout is not something a fix command repairs.
    if (live.check.fix && live.result.verdict !== 'timeout' && !fixes.includes(name)) {
      const why = pattern ? `auto_fix for ${pattern}` : 'its declared fix'
      fixSnapshots.push(...(await beforeFix(run, name, live.check.fix)))
      const fix = await deps.runner.run(command(run, live.check.fix, `${name}.fix.log`, live.check.timeout * 1000))
      usage(record.state, iteration, `fix ${name}`, why, fix)
      fixes.push(name)
      if (await recheck(run, live.check, 'after-fix')) {
        checks.push({ ...live, result: { ...live.result, verdict: 'pass', autoFixed: true } })
        autoFixed.push(name)
        const what = pattern ? `${pattern} fixed` : 'fixed'
        events.push(verifyNote(run, 'auto-fix', `${name}: ${what} by its fix command (no agent call)`))
        continue
      }
    }
    // dependency_check: the configured install command (once an iteration), then the check again.
    if (live.analysis?.strategy === 'dependency_check' && config.install && !installedBeforeVerify) {
      if (!installed) {
        const install = await deps.runner.run(command(run, config.install, 'install.log', INSTALL_TIMEOUT_MS))
        usage(record.state, iteration, 'install', `dependency_check for ${name}`, install)
        installed = true
      }
      if (await recheck(run, live.check, 'after-install')) {
        checks.push({ ...live, result: { ...live.result, verdict: 'pass' } })
        events.push(verifyNote(run, 'auto-fix', `${name}: ${pattern} resolved by the install command (no agent call)`))
        continue
      }
    }
    // The analysis line is told by the analyze step, once regressions are known.
    checks.push(live)
  }
  return withEvents(
    { ...record, checks, flaky, autoFixed, fixSnapshots, remediesRun: { install: installed, fixes } },
    ...events,
  )
}

/** What the flake check re-runs for a failing check, or null: off, a timeout, or no flake possible. */
function flakeCheck(run: IterationRun, live: LiveCheck): Exclude<FlakeRerun, { scope: 'none' }> | null {
  if (!run.input.config['flake-check'].enabled || live.result.verdict === 'timeout') return null
  const plan = flakeRerun({
    kind: live.check.kind,
    run: live.check.run,
    pattern: live.analysis?.pattern ?? null,
    failingTests: failingTestsIn(live.outcome.result?.output ?? ''),
  })
  return plan.scope === 'none' ? null : plan
}

function rerunWhat(rerun: Exclude<FlakeRerun, { scope: 'none' }>): string {
  if (rerun.scope === 'check') return `re-running the whole check (${rerun.reason})`
  const tests =
    rerun.runner === 'pytest'
      ? 'the last failed tests'
      : `only the ${rerun.tests.length} failing test${rerun.tests.length === 1 ? '' : 's'}`
  return `re-running ${tests} (${rerun.runner})`
}

function flakeData(rerun: Exclude<FlakeRerun, { scope: 'none' }>): Record<string, unknown> {
  return rerun.scope === 'tests'
    ? { scope: 'tests', runner: rerun.runner, tests: rerun.tests.slice(0, 20), command: rerun.command }
    : { scope: 'check', reason: rerun.reason }
}

/** The flake check of a sharded check: its failing shards re-run; true when they all pass. */
async function flakeCheckShards(run: IterationRun, live: LiveCheck, events: JourneyEvent[]): Promise<boolean> {
  if (!run.input.config['flake-check'].enabled) return false
  const plans = shardFlakePlans(live)
  if (plans.length === 0) return false
  const name = live.check.name
  const shards = plans.map((plan) => plan.leg.shard)
  events.push(
    verifyNote(run, 'check', `${name}: flake check: ${describeShardFlakePlans(name, plans)}`, {
      scope: 'shards',
      shards,
    }),
  )
  for (let attempt = 1; attempt <= run.input.config['flake-check'].reruns; attempt++) {
    const legs = flakeLegReruns(plans)
    if (await rerunLegs(run.input, run.deps, live.check, legs, run.iterationDir, run.projectEnv, `rerun-${attempt}`))
      return true
  }
  return false
}

/**
 * Runs the check once more (or `command`, its failing tests only), unchanged; true when it passes. A
 * sharded check runs every shard again (a fix or an install may change what any of them sees).
 */
async function recheck(run: IterationRun, check: CheckConfig, label: string, command?: Command): Promise<boolean> {
  if (isSharded(check) && command === undefined) {
    const legs = expandShards(check).map((leg) => ({ leg }))
    return rerunLegs(run.input, run.deps, check, legs, run.iterationDir, run.projectEnv, label)
  }
  const result = await rerunCheck(
    run.input,
    run.deps,
    command === undefined ? check : { ...check, run: command },
    run.iterationDir,
    run.projectEnv,
    `${check.name}.${label}`,
  )
  return passes(result)
}

function passes(result: RunResult): boolean {
  return result.exitCode === 0 && !result.timedOut
}
