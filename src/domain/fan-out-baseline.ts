/**
 * The loop's baseline in fan-out: measured in a baseline round, whose verify legs each run their check
 * (or shard) once at the base, and merged here as the single job's baseline is measured: a check passes
 * at the base when each of its legs passed there, and the tests are the union of the legs' JUnit
 * verdicts (a test failing in any shard fails). The baseline's failures, analysed by decide, are kept
 * with it (bounded) for the first iteration's prompt.
 */
import { isNoVerdict, type Leg, legRunKey, noVerdictLine, type RecordedRun } from './fan-out.js'
import type { LoopConfig } from './loop-config.js'
import type { TestVerdicts } from './shards.js'
import type { LoopState } from './state.js'
import { MAX_BASELINE_FAILURES, MAX_FAILURE_HINT_CHARS, MAX_FAILURE_LOCATIONS } from './state.js'
import type { FailureForAgent } from './work-context.js'

export type Baseline = NonNullable<LoopState['baseline']>

export interface MergedBaseline {
  baseline: Baseline
  /** The checks with no verdict at the base, each with the legs that gave none (lost, or their verdict refused). */
  missing: { check: string; legs: string[] }[]
}

/**
 * The baseline of the checks the single job measures (all but the verify-only ones), from the legs'
 * `runs` at the base (`mergeVerdicts`, under `legRunKey`; a leg without a verdict is a `noVerdict`) and
 * their united JUnit `tests`. A check any of whose legs gave no verdict is left out of `checks` and
 * named in `missing`: regression detection then judges it as a check the baseline lacks (never a
 * regression, never a pass); the tests the other legs saw at the base are kept.
 */
export function mergeLegBaselines(
  legs: readonly Leg[],
  checks: LoopConfig['checks'],
  runs: ReadonlyMap<string, RecordedRun>,
  tests: TestVerdicts,
  takenAt: string,
): MergedBaseline {
  const verdicts: Record<string, 'pass' | 'fail'> = {}
  const missing: MergedBaseline['missing'] = []
  const measuredChecks = new Set<string>()
  for (const check of checks) {
    if (check['verify-only']) continue
    const own = legs.filter((leg) => leg.check === check.name)
    const measured = own.map((leg) => {
      const run = runs.get(legRunKey(leg.check, leg.shard))
      return run && !isNoVerdict(run) ? run : undefined
    })
    const lost = own.filter((_, i) => measured[i] === undefined).map((leg) => leg.leg)
    if (own.some((_, i) => measured[i] !== undefined)) measuredChecks.add(check.name)
    if (own.length === 0 || lost.length > 0) {
      missing.push({ check: check.name, legs: lost })
      continue
    }
    verdicts[check.name] = measured.every((run) => run !== undefined && passed(run)) ? 'pass' : 'fail'
  }
  // A leg speaks for its own check's tests alone, and only a check measured at the base has any.
  const kept = Object.entries(tests).filter(([id]) => [...measuredChecks].some((check) => id.startsWith(`${check}:`)))
  return { baseline: { takenAt, checks: verdicts, tests: Object.fromEntries(kept) }, missing }
}

/** The check's run passed: it started, did not time out and exited 0 (the matrix's own verdict of a run). */
function passed(run: RecordedRun): boolean {
  return run.spawnError === undefined && !run.timedOut && run.exitCode === 0
}

/** The baseline's failures as the state keeps them for the next prompt: bounded as other excerpts are. */
export function keptBaselineFailures(failures: readonly FailureForAgent[]): FailureForAgent[] {
  return failures.slice(0, MAX_BASELINE_FAILURES).map((failure) => ({
    ...failure,
    locations: failure.locations.slice(0, MAX_FAILURE_LOCATIONS),
    excerpt: failure.excerpt.slice(0, 4000),
    ...(failure.hint !== undefined ? { hint: failure.hint.slice(0, MAX_FAILURE_HINT_CHARS) } : {}),
  }))
}

/** The checks the legs gave no baseline for, and what that means for regression detection. */
export function missingBaselineLine(missing: MergedBaseline['missing']): string {
  const each = missing.map(({ check, legs }) =>
    legs.length > 0 ? `${check} (no baseline from ${legs.map((leg) => `'${leg}'`).join(', ')})` : check,
  )
  return `no baseline for ${each.join('; ')}: not judged for regressions as a check, as one the baseline lacks`
}

/** The round's legs that gave no verdict, each with why (its `noVerdict` line), or '' when none was lost. */
export function lostLegsLine(legs: readonly Leg[], runs: ReadonlyMap<string, RecordedRun>): string {
  return legs
    .flatMap((leg) => {
      const run = runs.get(legRunKey(leg.check, leg.shard))
      if (run && !isNoVerdict(run)) return []
      const why = run?.spawnError?.slice(noVerdictLine(leg.leg, '').length) || 'no run recorded'
      return [`'${leg.leg}' (${why})`]
    })
    .join('; ')
}
