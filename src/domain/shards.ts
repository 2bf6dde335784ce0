/**
 * Sharded checks: a check with `shards: N` runs as N legs, each with `{shard}` (1-based) and `{shards}`
 * put into its command and JUnit path and `LOOP_SHARD` / `LOOP_SHARDS` in its environment; the legs'
 * results merge into ONE check result, so regressions, progress and flake re-runs see one check. A leg
 * that reported nothing is never a pass: the check is `error`, with a line the `infrastructure` pattern
 * matches. Pure: the single-job matrix and the fan-out mode both expand and merge through here.
 */
import { unanalyzedResult } from './check-result.js'
import type { CheckConfig, Command } from './loop-config.js'
import type { CheckResult, Location } from './state.js'

export const MAX_SHARDS = 64
export const SHARD_PLACEHOLDER = '{shard}'
export const SHARDS_PLACEHOLDER = '{shards}'
/** How a leg without a verdict is told in the check's excerpt; the `infrastructure` pattern matches it. */
export const NO_VERDICT_PREFIX = 'loop-controller: no verdict from'

/** The part of a check that sharding reads. */
export type ShardableCheck = Pick<CheckConfig, 'name' | 'run' | 'junit' | 'shards'>

/** One shard of a check, ready to run: its own command, JUnit path and environment. */
export interface ShardLeg {
  check: string
  /** 1-based. */
  shard: number
  shards: number
  command: Command
  junit?: string
  /** `LOOP_SHARD` and `LOOP_SHARDS`, set over the check's own `env`. */
  env: Record<string, string>
}

export type TestVerdicts = Record<string, 'pass' | 'fail'>

/** One leg's report: its result as a check of its own, or null with the reason it gave none. */
export type ShardReport =
  | { shard: number; result: CheckResult; tests?: TestVerdicts }
  | { shard: number; result: null; reason: string }

export interface MergedShards {
  /** The check's one result: the worst verdict, each failing shard's excerpt under its heading. */
  result: CheckResult
  /** The union of the shards' JUnit verdicts (`<check>:<test id>`); a test failing in any shard fails. */
  tests: TestVerdicts
  /** The shards that did not pass (failed, timed out, errored, skipped or reported nothing), ascending. */
  failing: number[]
  /** The shard whose failure leads (the first with the worst verdict); its pattern is the check's. */
  leading: number
}

/** How many legs a check runs as: its `shards`, 1 when absent. */
export function shardCount(check: Pick<CheckConfig, 'shards'>): number {
  return check.shards ?? 1
}

export function isSharded(check: Pick<CheckConfig, 'shards'>): boolean {
  return shardCount(check) > 1
}

/** `text` with `{shard}` and `{shards}` replaced by the leg's numbers. */
export function substituteShard(text: string, shard: number, shards: number): string {
  return text.replaceAll(SHARD_PLACEHOLDER, String(shard)).replaceAll(SHARDS_PLACEHOLDER, String(shards))
}

/** The environment a leg adds: `LOOP_SHARD` (1-based) and `LOOP_SHARDS`. */
export function shardEnv(shard: number, shards: number): Record<string, string> {
  return { LOOP_SHARD: String(shard), LOOP_SHARDS: String(shards) }
}

/**
 * Why a check's sharding cannot work, or null when it can: `shards` outside 1..64 or not whole, a
 * sharded `run` that names neither `{shard}` nor `LOOP_SHARD` (every leg would run the whole suite), a
 * sharded `junit` path without `{shard}` (every leg would write the same file).
 */
export function shardConfigProblem(check: ShardableCheck): string | null {
  const key = `checks.${check.name}.shards`
  const shards = check.shards
  if (shards === undefined) return null
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    return `${key}: expected a whole number from 1 to ${MAX_SHARDS} (1: not sharded); got ${JSON.stringify(shards)}`
  }
  if (shards === 1) return null
  const run = typeof check.run === 'string' ? check.run : check.run.join(' ')
  if (!run.includes(SHARD_PLACEHOLDER) && !run.includes('LOOP_SHARD')) {
    return (
      `${key}: ${shards} shards, but the check's run (${JSON.stringify(run)}) names neither ${SHARD_PLACEHOLDER} ` +
      `nor LOOP_SHARD, so every shard would run the whole suite; expected a run such as ` +
      `'vitest run --shard=${SHARD_PLACEHOLDER}/${SHARDS_PLACEHOLDER}', or one that hands "$LOOP_SHARD" to the ` +
      `runner ('./split-tests.sh "$LOOP_SHARD" "$LOOP_SHARDS"')`
    )
  }
  const argvProblem = argvShardProblem(check.name, check.run)
  if (argvProblem) return argvProblem
  if (check.junit !== undefined && !check.junit.includes(SHARD_PLACEHOLDER)) {
    return (
      `${key}: ${shards} shards, but checks.${check.name}.junit (${JSON.stringify(check.junit)}) has no ` +
      `${SHARD_PLACEHOLDER}, so every shard would write the same file; expected a path such as ` +
      `'reports/junit-${SHARD_PLACEHOLDER}.xml'`
    )
  }
  return null
}

/** The shells whose `-c` script expands `$LOOP_SHARD` when the run is an argument list. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh'])

/**
 * An argument-list `run` is started without a shell: `"$LOOP_SHARD"` in its words stays literal, so every
 * leg would get the same words. Only `{shard}`/`{shards}` (filled in before the run) work there, or a
 * shell's own `-c` script.
 */
function argvShardProblem(name: string, run: ShardableCheck['run']): string | null {
  if (typeof run === 'string' || run.some((word) => word.includes(SHARD_PLACEHOLDER))) return null
  if (!run.some((word) => word.includes('LOOP_SHARD'))) return null
  const program = run[0]?.slice(run[0].lastIndexOf('/') + 1) ?? ''
  if (SHELLS.has(program) && run.includes('-c')) return null
  return (
    `checks.${name}.run: an argument list (${JSON.stringify(run)}) is run without a shell, so LOOP_SHARD in ` +
    `it is never expanded and every shard would get the same words; expected ${SHARD_PLACEHOLDER}/` +
    `${SHARDS_PLACEHOLDER} in its words (["vitest", "run", "--shard=${SHARD_PLACEHOLDER}/${SHARDS_PLACEHOLDER}"]) ` +
    `or a string run, which a shell runs ('pytest --splits "$LOOP_SHARDS" --group "$LOOP_SHARD"')`
  )
}

/** The legs of a check, shard 1 to N (one leg, placeholders filled, for a check that is not sharded). */
export function expandShards(check: ShardableCheck): ShardLeg[] {
  const shards = shardCount(check)
  return Array.from({ length: shards }, (_, index) => legOf(check, index + 1, shards))
}

/** One leg of a check (shard is 1-based, at most the check's count). */
export function legOf(check: ShardableCheck, shard: number, shards = shardCount(check)): ShardLeg {
  if (!Number.isInteger(shard) || shard < 1 || shard > shards) {
    throw new RangeError(`shard: expected a whole number from 1 to ${shards} for check '${check.name}'; got ${shard}`)
  }
  const command =
    typeof check.run === 'string'
      ? substituteShard(check.run, shard, shards)
      : check.run.map((word) => substituteShard(word, shard, shards))
  return {
    check: check.name,
    shard,
    shards,
    command,
    ...(check.junit !== undefined ? { junit: substituteShard(check.junit, shard, shards) } : {}),
    env: shardEnv(shard, shards),
  }
}

/**
 * The check that runs one leg alone, as any unsharded check runs: same name and settings, the leg's
 * command and JUnit path, `LOOP_SHARD`/`LOOP_SHARDS` over its `env`. A job that runs one leg (a matrix
 * leg of the fan-out mode) verifies with it, then its result goes to `mergeShards` as that shard's report.
 */
export function legCheck(check: CheckConfig, leg: ShardLeg): CheckConfig {
  const { junit: _junit, shards: _shards, ...rest } = check
  return {
    ...rest,
    run: leg.command,
    ...(leg.junit !== undefined ? { junit: leg.junit } : {}),
    env: { ...check.env, ...leg.env },
  }
}

/** `test shard 3/4`: how a leg is named in excerpts, logs and progress. */
export function shardLabel(check: string, shard: number, shards: number): string {
  return `${check} shard ${shard}/${shards}`
}

/** The excerpt line of a leg without a verdict, which the `infrastructure` pattern matches. */
export function noVerdictLine(check: string, shard: number, shards: number, reason: string): string {
  return `${NO_VERDICT_PREFIX} ${shardLabel(check, shard, shards)}: ${reason}`
}

/** Exit codes a shell (or the isolation's first process) gives a command killed by a signal: 128 + its number. */
const KILLED_EXIT_CODES: Readonly<Record<number, string>> = { 137: 'SIGKILL', 143: 'SIGTERM' }

/**
 * Why a finished leg's process gave no verdict, or null when its exit is one: killed by a signal the
 * controller did not send (the OOM killer, a runner shutting down), seen as the signal or as the exit
 * code 128 + its number a shell reports, or cancelled. A timeout is the controller's own verdict
 * (`timeout`), as for any check.
 */
export function noVerdictReason(run: {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  cancelled: boolean
}): string | null {
  if (run.cancelled) return 'cancelled before it reported'
  if (run.timedOut) return null
  if (run.signal) return `killed by ${run.signal} before it reported`
  const killedBy = run.exitCode === null ? undefined : KILLED_EXIT_CODES[run.exitCode]
  return killedBy ? `killed by ${killedBy} (exit ${run.exitCode}) before it reported` : null
}

/**
 * The result of a leg that never reported (killed, cancelled, its job timed out, missing): `error`,
 * never a pass, its excerpt the no-verdict line. Unclassified: the analyzer gives it its pattern.
 */
export function missingShardResult(
  check: Pick<CheckConfig, 'name' | 'kind' | 'required'>,
  shard: number,
  shards: number,
  reason: string,
): CheckResult {
  return unanalyzedResult(check, {
    verdict: 'error',
    durationMs: 0,
    exitCode: null,
    excerpt: noVerdictLine(check.name, shard, shards, reason),
  })
}

/** Higher is worse: a verdict nobody can trust, then one that ran out of time, then a failure, then none. */
const SEVERITY: Record<CheckResult['verdict'], number> = {
  error: 5,
  timeout: 4,
  fail: 3,
  skipped: 2,
  flaky: 1,
  pass: 0,
}

/** The worst of some verdicts (`pass` for none): what a check of these legs is. */
export function worstVerdict<V extends CheckResult['verdict']>(verdicts: readonly V[]): V | 'pass' {
  return verdicts.reduce<V | 'pass'>(
    (worst, verdict) => (SEVERITY[verdict] > SEVERITY[worst] ? verdict : worst),
    'pass',
  )
}

const MAX_EXCERPT_CHARS = 4000
const MAX_LOCATIONS = 20

/**
 * Merges the legs' reports into one result for the check. A shard from 1 to `shards` with no report
 * counts as one that reported nothing (`missing`); a report for a shard outside that range is refused.
 */
export function mergeShards(
  check: Pick<CheckConfig, 'name' | 'kind' | 'required'>,
  shards: number,
  reports: readonly ShardReport[],
): MergedShards {
  const byShard = new Map<number, ShardReport>()
  for (const report of reports) {
    if (!Number.isInteger(report.shard) || report.shard < 1 || report.shard > shards) {
      throw new RangeError(
        `mergeShards: a report for shard ${report.shard} of check '${check.name}'; expected shards 1 to ${shards}`,
      )
    }
    byShard.set(report.shard, report)
  }
  const legs = Array.from({ length: shards }, (_, index) => {
    const shard = index + 1
    const report = byShard.get(shard)
    const result =
      report?.result ?? missingShardResult(check, shard, shards, report ? report.reason : 'no result reported')
    return { shard, result, tests: report?.result ? (report.tests ?? {}) : {} }
  })
  const leading = legs.reduce((worst, leg) =>
    SEVERITY[leg.result.verdict] > SEVERITY[worst.result.verdict] ? leg : worst,
  )
  const failed = legs.filter((leg) => leg.result.verdict !== 'pass' && leg.result.verdict !== 'flaky')
  const ordered = [leading, ...failed.filter((leg) => leg !== leading)]
  const result: CheckResult = {
    ...leading.result,
    name: check.name,
    kind: check.kind,
    required: check.required,
    durationMs: Math.max(...legs.map((leg) => leg.result.durationMs)),
    locations: uniqueLocations(ordered.flatMap((leg) => leg.result.locations)).slice(0, MAX_LOCATIONS),
    excerpt: mergedExcerpt(
      check.name,
      shards,
      ordered.filter(
        (leg) => leg.result.verdict !== 'pass' && leg.result.verdict !== 'flaky' && leg.result.verdict !== 'skipped',
      ),
    ),
    autoFixed: false,
  }
  delete result.regression
  if (leading.result.verdict !== 'skipped') delete result.skippedReason
  return {
    result,
    tests: unionTests(legs.map((leg) => leg.tests)),
    failing: failed.map((leg) => leg.shard),
    leading: leading.shard,
  }
}

/** The union of test verdicts: a test failing in any of them fails. */
export function unionTests(sets: readonly TestVerdicts[]): TestVerdicts {
  const union: TestVerdicts = {}
  for (const tests of sets) {
    for (const [id, verdict] of Object.entries(tests)) {
      if (union[id] !== 'fail') union[id] = verdict
    }
  }
  return union
}

/**
 * Each failing shard's excerpt under `### <check> shard i/n: <verdict>`, the leading shard's first (its
 * failure is the check's pattern) with up to half the room, the others sharing the rest fairly.
 */
function mergedExcerpt(
  check: string,
  shards: number,
  failed: readonly { shard: number; result: CheckResult }[],
): string {
  const parts = failed.map((leg) => {
    const heading = `### ${shardLabel(check, leg.shard, shards)}: ${leg.result.verdict}`
    const body = leg.result.excerpt.trim()
    return body ? `${heading}\n${body}` : heading
  })
  const [first, ...rest] = parts
  if (first === undefined) return ''
  const separators = 2 * rest.length
  const firstRoom = rest.length === 0 ? MAX_EXCERPT_CHARS : Math.floor(MAX_EXCERPT_CHARS / 2)
  const lead = clip(first, Math.max(firstRoom, MAX_EXCERPT_CHARS - separators - rest.join('').length))
  const room = rest.length === 0 ? 0 : Math.floor((MAX_EXCERPT_CHARS - lead.length - separators) / rest.length)
  return [lead, ...rest.map((part) => clip(part, room))].join('\n\n').slice(0, MAX_EXCERPT_CHARS)
}

function clip(text: string, room: number): string {
  if (text.length <= room) return text
  return room <= 1 ? text.slice(0, Math.max(room, 0)) : `${text.slice(0, room - 1)}…`
}

function uniqueLocations(locations: readonly Location[]): Location[] {
  const seen = new Set<string>()
  return locations.filter((location) => {
    const key = `${location.file}:${location.line ?? ''}:${location.column ?? ''}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
