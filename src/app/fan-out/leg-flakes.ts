/**
 * Decide's flake step, between verify and analyze, where the single job runs its remedies: a failing
 * check whose every failing leg re-ran it in that leg and passed (`leg-flake-check.ts`) is recorded
 * flaky, with the single job's journey lines, and costs no retry. It runs nothing: whether a flake was
 * possible is judged here on each leg's own recorded run, as the single job judges it, and a leg without
 * a verdict (`infrastructure`) is never flaky by this path.
 */
import { failingTestsIn } from '../../domain/analysis/failing-tests.js'
import type { Analysis } from '../../domain/analysis/index.js'
import { legRunKey } from '../../domain/fan-out.js'
import { flakeRerun } from '../../domain/flake-rerun.js'
import type { JourneyEvent } from '../../domain/journey.js'
import {
  describeLegFlaky,
  describeLegReruns,
  type FailingLeg,
  judgeLegFlakes,
  type LegFlakeCheck,
  legRerunData,
} from '../../domain/leg-flake.js'
import type { CheckConfig, Command } from '../../domain/loop-config.js'
import type { CheckResult } from '../../domain/state.js'
import {
  type IterationRecord,
  type IterationRun,
  type IterationStep,
  verifyNote,
  withEvents,
} from '../iteration/record.js'
import { isFailing } from '../step-support.js'
import type { LiveCheck } from '../verification.js'

/** The step, given the flake checks the legs' verdicts record under `legRunKey(check, shard)` (`mergeVerdicts`). */
export function legFlakes(flakeChecks: ReadonlyMap<string, LegFlakeCheck>): IterationStep {
  return async (run: IterationRun, record: IterationRecord): Promise<IterationRecord> => {
    const events: JourneyEvent[] = []
    const flaky = [...record.flaky]
    const checks = record.checks.map((live): LiveCheck => {
      if (!isFailing(live.result)) return live
      const name = live.check.name
      const shards = live.shards?.[0]?.leg.shards
      const judged = judgeLegFlakes(failingLegs(live, flakeChecks), run.input.config['flake-check'])
      if (judged.reran.length === 0) return live
      const what = describeLegReruns(name, judged.reran, shards)
      events.push(verifyNote(run, 'check', `${name}: flake check: ${what}`, legRerunData(judged.reran, shards)))
      if (!judged.flaky) return live
      flaky.push(name)
      events.push(verifyNote(run, 'flaky', `${name}: ${describeLegFlaky(judged.reran, shards !== undefined)}`))
      return { ...live, result: { ...live.result, verdict: 'flaky' } }
    })
    return withEvents({ ...record, checks, flaky }, ...events)
  }
}

/** A failing check's failing legs: its one leg, or its failing shards, each with its verdict's flake check. */
function failingLegs(live: LiveCheck, flakeChecks: ReadonlyMap<string, LegFlakeCheck>): FailingLeg[] {
  const name = live.check.name
  if (!live.shards) {
    const output = live.outcome.result?.output ?? ''
    return [
      failingLeg(live.check, live.check.run, live.result, live.analysis, output, flakeChecks.get(legRunKey(name))),
    ]
  }
  return live.shards
    .filter((shard) => isFailing(shard.result))
    .map((shard) => ({
      shard: shard.leg.shard,
      ...failingLeg(
        live.check,
        shard.leg.command,
        shard.result,
        shard.analysis,
        shard.output,
        flakeChecks.get(legRunKey(name, shard.leg.shard)),
      ),
    }))
}

function failingLeg(
  check: CheckConfig,
  command: Command,
  result: CheckResult,
  analysis: Analysis | null,
  output: string,
  flakeCheck: LegFlakeCheck | undefined,
): FailingLeg {
  const possible = flakeRerun({
    kind: check.kind,
    run: command,
    pattern: analysis?.pattern ?? null,
    failingTests: failingTestsIn(output),
  })
  return {
    timedOut: result.verdict === 'timeout',
    flakePossible: possible.scope !== 'none',
    ...(flakeCheck ? { flakeCheck } : {}),
  }
}
