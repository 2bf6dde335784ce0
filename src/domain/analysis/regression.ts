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
