/**
 * The verification matrix: schedules the checks of the loop config, independent ones in parallel up to
 * `maxParallel`, pre checks first, honouring `needs` and `fail-fast`; each check runs through the
 * process port.
 */
import { join } from 'node:path'
import type { CheckConfig } from '../domain/loop-config.js'
import { planMatrix } from '../domain/matrix-plan.js'
import type { ProcessRunner, RunResult } from '../ports/process.js'

export type MatrixVerdict = 'pass' | 'fail' | 'timeout' | 'skipped' | 'error'

export interface MatrixCheckOutcome {
  check: CheckConfig
  verdict: MatrixVerdict
  result?: RunResult
  skippedReason?: string
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
  onOutput?(check: string, chunk: Buffer): void
  /**
   * Run only these checks (e.g. a flake re-run or a re-verify after an auto-fix). Checks outside the
   * list are neither run nor reported, and a `needs` outside the list counts as met.
   */
  only?: string[]
  signal?: AbortSignal
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
  const running = new Set<string>()
  let stopReason: string | null = null

  const isFailure = (outcome: MatrixCheckOutcome) => outcome.verdict !== 'pass' && outcome.verdict !== 'skipped'
  const record = (outcome: MatrixCheckOutcome): void => {
    outcomes.set(outcome.check.name, outcome)
    if (isFailure(outcome) && outcome.check.required && !stopReason) {
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
      logFile: join(input.logDir, `${check.name}.log`),
      onOutput: input.onOutput ? (chunk) => input.onOutput?.(check.name, chunk) : undefined,
      signal: input.signal,
    })
    record({ check, verdict: verdictOf(result), result })
  }

  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      for (const name of order) {
        if (outcomes.has(name) || running.has(name)) continue
        const check = byName.get(name)!
        // Pre checks all finish before any other check starts.
        if (!check.pre && order.some((n) => byName.get(n)!.pre && !outcomes.has(n))) break
        if (stopReason || input.signal?.aborted) {
          skip(check, stopReason ?? 'aborted')
          continue
        }
        const failedNeed = check.needs.find((need) => {
          const outcome = outcomes.get(need)
          return outcome !== undefined && outcome.verdict !== 'pass'
        })
        if (failedNeed) {
          skip(check, `needs ${failedNeed}`)
          continue
        }
        const waiting = check.needs.some((need) => selected.has(need) && !outcomes.has(need))
        if (waiting || running.size >= input.maxParallel) continue
        running.add(name)
        runCheck(check).then(
          () => {
            running.delete(name)
            pump()
          },
          (error: unknown) => reject(error),
        )
      }
      if (running.size === 0 && order.every((name) => outcomes.has(name))) resolve()
    }
    pump()
  })
  return order.map((name) => outcomes.get(name)!)
}
