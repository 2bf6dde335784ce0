/**
 * The loop's baseline in fan-out: measured by the verify legs, each running its check (or shard) at the
 * plan's base as well as on the candidate, and merged here as the single job's baseline is measured:
 * a check passes at the base when each of its legs passed there, and the tests are the union of the
 * legs' JUnit verdicts (a test failing in any shard fails).
 */
import { type Leg, type LegBaseline, legRunKey } from './fan-out.js'
import type { LoopConfig } from './loop-config.js'
import { type TestVerdicts, unionTests } from './shards.js'
import type { LoopState } from './state.js'

export type Baseline = NonNullable<LoopState['baseline']>

export interface MergedBaseline {
  baseline: Baseline
  /** The checks with no verdict at the base, each with the legs that gave none (lost, or unable to run it there). */
  missing: { check: string; legs: string[] }[]
}

/**
 * The baseline of the checks the single job measures (all but the verify-only ones), from the legs'
 * `baselines` (`mergeVerdicts`, under `legRunKey`) taken at `base`. A check any of whose legs gave no
 * baseline at `base` is left out of `checks` and named in `missing`: regression detection then judges
 * it as a check the baseline lacks (never a regression); the tests the other legs saw at the base are kept.
 */
export function mergeLegBaselines(
  legs: readonly Leg[],
  checks: LoopConfig['checks'],
  baselines: ReadonlyMap<string, LegBaseline>,
  base: string,
  takenAt: string,
): MergedBaseline {
  const verdicts: Record<string, 'pass' | 'fail'> = {}
  const testSets: TestVerdicts[] = []
  const missing: MergedBaseline['missing'] = []
  for (const check of checks) {
    if (check['verify-only']) continue
    const own = legs.filter((leg) => leg.check === check.name)
    const measured = own.map((leg) => {
      const found = baselines.get(legRunKey(leg.check, leg.shard))
      return found?.commit === base ? found : undefined
    })
    for (const found of measured) {
      if (!found?.tests) continue
      // A leg speaks for its own check's tests alone.
      testSets.push(Object.fromEntries(Object.entries(found.tests).filter(([id]) => id.startsWith(`${check.name}:`))))
    }
    const lost = own.filter((_, i) => measured[i] === undefined).map((leg) => leg.leg)
    if (own.length === 0 || lost.length > 0) {
      missing.push({ check: check.name, legs: lost })
      continue
    }
    verdicts[check.name] = measured.every((found) => found?.verdict === 'pass') ? 'pass' : 'fail'
  }
  return { baseline: { takenAt, checks: verdicts, tests: unionTests(testSets) }, missing }
}

/** The journey line of a baseline the legs measured: each check's verdict at the base, and the checks without one. */
export function legBaselineMessage(merged: MergedBaseline, base: string): string {
  const named = (verdict: 'pass' | 'fail') =>
    Object.entries(merged.baseline.checks)
      .filter(([, v]) => v === verdict)
      .map(([name]) => name)
  const parts = [`baseline (the verify legs, at ${base.slice(0, 12)}):`]
  const passed = named('pass')
  const failed = named('fail')
  if (passed.length > 0) parts.push(`pass: ${passed.join(', ')}`)
  if (failed.length > 0) parts.push(`${passed.length > 0 ? '· ' : ''}fail: ${failed.join(', ')}`)
  if (merged.missing.length > 0) parts.push(`· ${missingBaselineLine(merged.missing)}`)
  return parts.join(' ')
}

/** The checks the legs gave no baseline for, and what that means for regression detection. */
export function missingBaselineLine(missing: MergedBaseline['missing']): string {
  const each = missing.map(({ check, legs }) =>
    legs.length > 0 ? `${check} (no baseline from ${legs.map((leg) => `'${leg}'`).join(', ')})` : check,
  )
  return `no baseline for ${each.join('; ')}: not judged for regressions as a check, as one the baseline lacks`
}
