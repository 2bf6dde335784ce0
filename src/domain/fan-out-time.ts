/**
 * The time a fan-out iteration spends outside decide. One iteration runs as jobs one after another:
 * plan (the work), then the verify legs side by side, then decide. The loop's minutes budget counts
 * the time iterations spend (`usage.wallMs`), so decide adds to its own time the plan's and that of
 * the slowest leg, the iteration's critical path through the matrix.
 */

/** The longest a job runs on GitHub (5 days, on a self-hosted runner): no job's measured time is longer. */
export const MAX_JOB_WALL_MS = 5 * 24 * 60 * 60_000

/**
 * The plan's wall time plus the slowest leg's time, each bounded to what a job can run (`legTimeMs`
 * gives a leg's).
 */
export function fanOutTimeElsewhereMs(planWallMs: number, legDurationsMs: readonly number[]): number {
  const slowestLeg = Math.max(0, ...legDurationsMs.map(boundedMs))
  return boundedMs(planWallMs) + slowestLeg
}

/** A measured time as a whole number of ms within what a job can run (not a number: 0). */
export function boundedMs(ms: number): number {
  return Number.isFinite(ms) ? Math.min(MAX_JOB_WALL_MS, Math.max(0, Math.round(ms))) : 0
}

/**
 * A leg's time on the critical path: what its verdict measured (its setup, its check, its flake
 * check's re-runs) or, for a leg without a verdict, its job's wall time from the Jobs API (the caller
 * passes either as `measuredMs`); where neither is known (the jobs could not be listed), its check's
 * `timeout`, since counting it 0 would leave a hung leg's time out of the loop's minutes.
 */
export function legTimeMs(measuredMs: number | undefined, checkTimeoutSeconds: number): number {
  return boundedMs(measuredMs ?? checkTimeoutSeconds * 1000)
}
