/**
 * The verification matrix: schedules the checks of the loop config, independent ones in parallel up to
 * `maxParallel`, pre checks first, honouring `needs` and `fail-fast`; each check runs through the
 * process port.
 */
import { join } from 'node:path'
import type { CheckConfig } from '../domain/loop-config.js'
import { planMatrix } from '../domain/matrix-plan.js'
import { expandShards, isSharded, noVerdictReason, type ShardLeg, worstVerdict } from '../domain/shards.js'
import type { ProcessRunner, RunResult } from '../ports/process.js'

export type MatrixVerdict = 'pass' | 'fail' | 'timeout' | 'skipped' | 'error'

export interface MatrixCheckOutcome {
  check: CheckConfig
  verdict: MatrixVerdict
  /** A sharded check's: its leading leg's run, with the output of every leg that did not pass. */
  result?: RunResult
  skippedReason?: string
  /** A sharded check's legs, by shard; its verdict is the worst of theirs. */
  legs?: MatrixLegOutcome[]
}

/** One shard of a sharded check, run as a process of its own. */
export interface MatrixLegOutcome {
  leg: ShardLeg
  /** `error` when the leg gave no verdict. */
  verdict: Exclude<MatrixVerdict, 'skipped'>
  result: RunResult
  /** Why the leg gave no verdict (killed by a signal, cancelled), null when it gave one. */
  noVerdict: string | null
}

export interface MatrixInput {
  checks: CheckConfig[]
  cwd: string
  /** The environment every check sees (already filtered); a check's own `env` is merged over it. */
  env: Record<string, string>
  /** At least 1; the caller decides the default (the CPU count). */
  maxParallel: number
  failFast: boolean
  runner: ProcessRunner
  /** Each check's full log goes to `<logDir>/<check>.log`. */
  logDir: string
  onCheckStart?(check: CheckConfig): void
  onCheckEnd?(outcome: MatrixCheckOutcome): void
  /** `shard` is set for the output of one leg of a sharded check. */
  onOutput?(check: string, chunk: Buffer, shard?: number): void
  /**
   * Run only these checks (e.g. a flake re-run or a re-verify after an auto-fix). Checks outside the
   * list are neither run nor reported, and a `needs` outside the list counts as met.
   */
  only?: string[]
  /**
   * Every selected check runs whatever failed before it: no `pre` stop, no `fail-fast`, no skip for a
   * failed `needs` (a replay of runs that each happened, as fan-out's baseline round's legs did).
   */
  runAll?: boolean
  signal?: AbortSignal
}

/** The log file of a check's run in the log folder, or of one shard's (`<check>.shard-<n>.log`). */
export function checkLogName(check: string, shard?: number): string {
  return shard === undefined ? `${check}.log` : `${check}.shard-${shard}.log`
}

/** The verdict of a finished run: a start failure is an `error`, not a failing check. */
export function verdictOf(result: RunResult): Exclude<MatrixVerdict, 'skipped'> {
  if (result.spawnError !== undefined) return 'error'
  if (result.timedOut) return 'timeout'
  return result.exitCode === 0 ? 'pass' : 'fail'
}

/**
 * Runs the matrix and returns one outcome per selected check, in plan order. Throws `MatrixPlanError`
 * for an unplannable matrix and a plain Error for an unknown name in `only`; a failing check never throws.
 */
export async function runMatrix(input: MatrixInput): Promise<MatrixCheckOutcome[]> {
  const plan = planMatrix(input.checks)
  const byName = new Map(input.checks.map((check) => [check.name, check]))
  if (input.only) {
    const unknown = input.only.filter((name) => !byName.has(name))
    if (unknown.length > 0) {
      throw new Error(
        `only: unknown check(s) ${unknown.map((n) => `'${n}'`).join(', ')}; expected names from the matrix (${plan.order.join(', ')})`,
      )
    }
  }
  if (!Number.isInteger(input.maxParallel) || input.maxParallel < 1) {
    throw new Error(`maxParallel must be a whole number of at least 1; got ${input.maxParallel}`)
  }
  const selected = new Set(input.only ?? plan.order)
  const order = plan.order.filter((name) => selected.has(name))
  const outcomes = new Map<string, MatrixCheckOutcome>()
  const started = new Set<string>()
  // Processes running (a sharded check holds one slot per running leg), and legs waiting for a slot.
  let busy = 0
  const queuedLegs: { check: CheckConfig; leg: ShardLeg }[] = []
  const finishedLegs = new Map<string, MatrixLegOutcome[]>()
  let stopReason: string | null = null

  const isFailure = (outcome: MatrixCheckOutcome) => outcome.verdict !== 'pass' && outcome.verdict !== 'skipped'
  const record = (outcome: MatrixCheckOutcome): void => {
    outcomes.set(outcome.check.name, outcome)
    if (isFailure(outcome) && outcome.check.required && !stopReason && !input.runAll) {
      if (outcome.check.pre) stopReason = `pre-check ${outcome.check.name} failed`
      else if (input.failFast) stopReason = `fail-fast: ${outcome.check.name} failed`
    }
    input.onCheckEnd?.(outcome)
  }
  const skip = (check: CheckConfig, reason: string): void =>
    record({ check, verdict: 'skipped', skippedReason: reason })

  const runCheck = async (check: CheckConfig): Promise<void> => {
    input.onCheckStart?.(check)
    const result = await input.runner.run({
      command: check.run,
      cwd: input.cwd,
      env: { ...input.env, ...check.env },
      timeoutMs: Math.round(check.timeout * 1000),
      logFile: join(input.logDir, checkLogName(check.name)),
      onOutput: input.onOutput ? (chunk) => input.onOutput?.(check.name, chunk) : undefined,
      signal: input.signal,
    })
    record({ check, verdict: verdictOf(result), result })
  }

  // Each leg has the check's own timeout; the check is recorded once its last leg ends.
  const runLeg = async (check: CheckConfig, leg: ShardLeg): Promise<void> => {
    const result = await input.runner.run({
      command: leg.command,
      cwd: input.cwd,
      env: { ...input.env, ...check.env, ...leg.env },
      timeoutMs: Math.round(check.timeout * 1000),
      logFile: join(input.logDir, checkLogName(check.name, leg.shard)),
      onOutput: input.onOutput ? (chunk) => input.onOutput?.(check.name, chunk, leg.shard) : undefined,
      signal: input.signal,
    })
    const cancelled = input.signal?.aborted === true
    const noVerdict = noVerdictReason({
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cancelled,
    })
    const legs = finishedLegs.get(check.name)!
    legs.push({ leg, verdict: noVerdict ? 'error' : verdictOf(result), result, noVerdict })
    if (legs.length < leg.shards) return
    legs.sort((a, b) => a.leg.shard - b.leg.shard)
    const verdict = worstVerdict(legs.map((l) => l.verdict))
    record({ check, verdict, result: mergedRun(legs), legs })
  }

  await new Promise<void>((resolve, reject) => {
    const launch = (job: () => Promise<void>): void => {
      busy++
      job().then(
        () => {
          busy--
          pump()
        },
        (error: unknown) => reject(error),
      )
    }
    const launchQueuedLegs = (): void => {
      while (queuedLegs.length > 0 && busy < input.maxParallel) {
        const { check, leg } = queuedLegs.shift()!
        launch(() => runLeg(check, leg))
      }
    }
    const pump = (): void => {
      launchQueuedLegs()
      for (const name of order) {
        if (outcomes.has(name) || started.has(name)) continue
        const check = byName.get(name)!
        // Pre checks all finish before any other check starts.
        if (!check.pre && order.some((n) => byName.get(n)!.pre && !outcomes.has(n))) break
        if (stopReason || input.signal?.aborted) {
          skip(check, stopReason ?? 'aborted')
          continue
        }
        const failedNeed = check.needs.find((need) => {
          const outcome = outcomes.get(need)
          return !input.runAll && outcome !== undefined && outcome.verdict !== 'pass'
        })
        if (failedNeed) {
          skip(check, `needs ${failedNeed}`)
          continue
        }
        const waiting = check.needs.some((need) => selected.has(need) && !outcomes.has(need))
        if (waiting || busy >= input.maxParallel) continue
        started.add(name)
        if (isSharded(check)) {
          input.onCheckStart?.(check)
          finishedLegs.set(name, [])
          queuedLegs.push(...expandShards(check).map((leg) => ({ check, leg })))
          launchQueuedLegs()
        } else {
          launch(() => runCheck(check))
        }
      }
      if (busy === 0 && queuedLegs.length === 0 && order.every((name) => outcomes.has(name))) resolve()
    }
    pump()
  })
  return order.map((name) => outcomes.get(name)!)
}

/**
 * A sharded check's run as one: the leading leg's exit, the longest duration, and the output of each leg
 * that did not pass under its shard's heading (so the runner's failing-test lines of every shard count).
 */
function mergedRun(legs: readonly MatrixLegOutcome[]): RunResult {
  const worst = worstVerdict(legs.map((l) => l.verdict))
  const leading = legs.find((l) => l.verdict === worst) ?? legs[0]!
  const failing = legs.filter((l) => l.verdict !== 'pass')
  return {
    exitCode: leading.result.exitCode,
    signal: leading.result.signal,
    timedOut: leading.result.timedOut,
    durationMs: Math.max(...legs.map((l) => l.result.durationMs)),
    output: failing.map((l) => `### shard ${l.leg.shard}/${l.leg.shards}\n${l.result.output}`).join('\n'),
    totalBytes: legs.reduce((sum, l) => sum + l.result.totalBytes, 0),
    truncated: legs.some((l) => l.result.truncated),
    ...(leading.result.logFile ? { logFile: leading.result.logFile } : {}),
    ...(leading.result.spawnError !== undefined ? { spawnError: leading.result.spawnError } : {}),
  }
}
