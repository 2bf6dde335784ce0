/**
 * Fan-out's flake check. Decide runs no code of the project, so a verify leg whose check failed re-runs
 * it where it ran, as the single job's flake check would (`flakeRerun`: the whole check, or only its
 * failing tests), and records in its verdict what it re-ran and whether that passed. Decide then calls
 * the check flaky when every failing leg of it (one for a plain check, its failing shards for a sharded
 * one) passed its re-run, and only where it would have re-run that leg itself. Pure.
 */
import { z } from 'zod'
import { boundedMs, MAX_JOB_WALL_MS } from './fan-out-time.js'
import { type FlakeRerun, MAX_SELECTED_TESTS, type TestRunner } from './flake-rerun.js'
import { shardLabel } from './shards.js'

/** The most re-runs a flake check makes (the loop config's `flake-check.reruns` allows 0 to 3). */
export const MAX_FLAKE_RERUNS = 3
/** The longest test name a leg's flake check names (longer ones are left out of its verdict). */
export const MAX_FLAKE_TEST_CHARS = 200

const TEST_RUNNERS = ['vitest', 'jest', 'pytest', 'go'] as const satisfies readonly TestRunner[]
// Every runner the flake check can narrow to is one a verdict may name: a new runner fails to compile here.
const everyRunner: Record<Exclude<TestRunner, (typeof TEST_RUNNERS)[number]>, never> = {}
void everyRunner

const attempts = z.number().int().min(1).max(MAX_FLAKE_RERUNS)
/** The re-runs' time together, counted in the leg's (the iteration's time is its slowest leg's). */
const durationMs = z.number().int().min(0).max(MAX_JOB_WALL_MS)

/** A leg's flake check, as its verdict file records it. */
export const legFlakeCheckSchema = z.discriminatedUnion('scope', [
  z.strictObject({
    /** The whole check (or shard) ran again. */
    scope: z.literal('check'),
    reason: z.string().min(1).max(500),
    attempts,
    passed: z.boolean(),
    durationMs: durationMs.optional(),
  }),
  z.strictObject({
    /** Only the failing tests ran again, with the runner's own filter. */
    scope: z.literal('tests'),
    runner: z.enum(TEST_RUNNERS),
    tests: z.array(z.string().min(1).max(MAX_FLAKE_TEST_CHARS)).max(MAX_SELECTED_TESTS),
    attempts,
    passed: z.boolean(),
    durationMs: durationMs.optional(),
  }),
])
export type LegFlakeCheck = z.infer<typeof legFlakeCheckSchema>

/** What a leg records of its flake check: the re-run's plan (names bounded, `redact`ed), its attempts, its outcome. */
export function legFlakeCheck(
  rerun: Exclude<FlakeRerun, { scope: 'none' }>,
  attempts: number,
  passed: boolean,
  redact: (text: string) => string,
  rerunMs = 0,
): LegFlakeCheck {
  const durationMs = boundedMs(rerunMs)
  if (rerun.scope === 'check') {
    return { scope: 'check', reason: redact(rerun.reason).slice(0, 500), attempts, passed, durationMs }
  }
  const tests = rerun.tests
    .map(redact)
    .filter((test) => test.length > 0 && test.length <= MAX_FLAKE_TEST_CHARS)
    .slice(0, MAX_SELECTED_TESTS)
  return { scope: 'tests', runner: rerun.runner, tests, attempts, passed, durationMs }
}

/** One failing leg of a check as decide sees it: its own verdict, and the flake check its verdict records. */
export interface FailingLeg {
  /** The shard the leg ran (1-based), absent for a plain check's one leg. */
  shard?: number
  /** Its verdict is `timeout`: a re-run is not worth it, as in the single job. */
  timedOut: boolean
  /** Whether a flake is possible, judged by decide on the leg's own run (`flakeRerun` is not `none`). */
  flakePossible: boolean
  /** What its verdict file says it re-ran; absent when it re-ran nothing or gave no verdict. */
  flakeCheck?: LegFlakeCheck
}

export interface LegFlakeJudgement {
  /** The failing legs that re-ran their check, as their verdicts say. */
  reran: readonly (FailingLeg & { flakeCheck: LegFlakeCheck })[]
  /** Every failing leg could be a flake and passed its re-run, within the config's re-runs. */
  flaky: boolean
}

/**
 * Decide's judgement of a failing check from its failing legs. Flaky only with the flake check enabled,
 * at least one failing leg, and every failing one not timed out, a possible flake, and passed on a re-run
 * within `flake-check.reruns` attempts: a leg without a verdict, or one that could not be a flake, keeps
 * the check failing, as the single job would.
 */
export function judgeLegFlakes(
  failing: readonly FailingLeg[],
  config: { enabled: boolean; reruns: number },
): LegFlakeJudgement {
  if (!config.enabled) return { reran: [], flaky: false }
  const reran = failing.filter((leg): leg is FailingLeg & { flakeCheck: LegFlakeCheck } => leg.flakeCheck !== undefined)
  const flaky =
    failing.length > 0 &&
    failing.every(
      (leg) =>
        !leg.timedOut &&
        leg.flakePossible &&
        leg.flakeCheck?.passed === true &&
        leg.flakeCheck.attempts <= config.reruns,
    )
  return { reran, flaky }
}

/**
 * The journey's line of what the legs re-ran: `re-running only the 2 failing tests (vitest) in its leg`,
 * or for a sharded check `re-running only the failing shard 3 of 4 in its leg (test shard 3/4: the whole shard)`.
 */
export function describeLegReruns(
  check: string,
  reran: readonly { shard?: number; flakeCheck: LegFlakeCheck }[],
  shards?: number,
): string {
  if (shards === undefined) {
    const only = reran[0]?.flakeCheck
    return only ? `${rerunWhat(only)} in its leg` : 'nothing re-run'
  }
  const which = reran.map((leg) => `${leg.shard}/${shards}`).join(', ')
  const how = reran.map(
    (leg) =>
      `${shardLabel(check, leg.shard ?? 0, shards)}: ${leg.flakeCheck.scope === 'tests' ? `only its failing tests (${leg.flakeCheck.runner})` : 'the whole shard'}`,
  )
  const legs = reran.length === 1 ? 'its leg' : 'their legs'
  return `re-running only the failing shard${reran.length === 1 ? '' : 's'} ${which} of ${shards} in ${legs} (${how.join('; ')})`
}

/** The journey's line of a check found flaky in its legs. */
export function describeLegFlaky(reran: readonly { flakeCheck: LegFlakeCheck }[], sharded: boolean): string {
  if (sharded) {
    const legs = reran.length === 1 ? 'its leg' : 'their legs'
    return `failed, then its failing shard${reran.length === 1 ? '' : 's'} passed when re-run in ${legs} (flaky, no retry spent)`
  }
  const what = reran[0]?.flakeCheck.scope === 'tests' ? 'its failing tests passed' : 'then passed'
  return `failed, ${what} when re-run in its leg (flaky, no retry spent)`
}

/** The journey event's data of what the legs re-ran, as the single job's flake check gives it. */
export function legRerunData(
  reran: readonly { shard?: number; flakeCheck: LegFlakeCheck }[],
  shards?: number,
): Record<string, unknown> {
  if (shards !== undefined) return { scope: 'shards', shards: reran.map((leg) => leg.shard), inLegs: true }
  const only = reran[0]?.flakeCheck
  if (only?.scope === 'tests')
    return { scope: 'tests', runner: only.runner, tests: only.tests.slice(0, 20), inLegs: true }
  return { scope: 'check', reason: only?.reason ?? '', inLegs: true }
}

function rerunWhat(flake: LegFlakeCheck): string {
  if (flake.scope === 'check') return `re-running the whole check (${flake.reason})`
  const tests =
    flake.runner === 'pytest'
      ? 'the last failed tests'
      : `only the ${flake.tests.length} failing test${flake.tests.length === 1 ? '' : 's'}`
  return `re-running ${tests} (${flake.runner})`
}
