/** Regression detection: what passed in the baseline and fails now. Pure. */

export type Verdicts = { checks: Record<string, 'pass' | 'fail'>; tests: Record<string, 'pass' | 'fail'> }

/** Checks and single tests that passed in `baseline` and fail in `current`, sorted by name. */
export function detectRegressions(baseline: Verdicts, current: Verdicts): { checks: string[]; tests: string[] } {
  const regressed = (before: Record<string, 'pass' | 'fail'>, now: Record<string, 'pass' | 'fail'>) =>
    Object.keys(now)
      .filter((name) => Object.hasOwn(before, name) && before[name] === 'pass' && now[name] === 'fail')
      .sort()
  return { checks: regressed(baseline.checks, current.checks), tests: regressed(baseline.tests, current.tests) }
}

/** Whether regression detection runs: `auto` turns it on for medium and high complexity. */
export function regressionEnabled(complexity: 'low' | 'medium' | 'high', setting: 'auto' | 'on' | 'off'): boolean {
  if (setting === 'on') return true
  if (setting === 'off') return false
  return complexity !== 'low'
}

/** The checks and tests already counted as regressions in this loop (bounded; state.metrics.regressed). */
export type RegressionTally = { checks: string[]; tests: string[] }

/** At most this many test names are remembered; a test past it is journaled again, never counted (checks are). */
export const MAX_TALLIED_TESTS = 500

/**
 * Folds this iteration's regressions into the loop's tally. A check (or test) that stays red across
 * iterations is the same regression, so each is counted and told once per loop: `fresh` holds those
 * seen for the first time, `tally` the names to remember.
 */
export function tallyRegressions(
  tally: RegressionTally,
  now: { checks: readonly string[]; tests: readonly string[] },
): { tally: RegressionTally; fresh: { checks: string[]; tests: string[] } } {
  const fresh = {
    checks: [...new Set(now.checks)].filter((name) => !tally.checks.includes(name)),
    tests: [...new Set(now.tests)].filter((name) => !tally.tests.includes(name)),
  }
  return {
    tally: {
      checks: [...tally.checks, ...fresh.checks],
      tests: [...tally.tests, ...fresh.tests].slice(0, MAX_TALLIED_TESTS),
    },
    fresh,
  }
}
