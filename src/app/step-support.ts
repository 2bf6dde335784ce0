/**
 * Small helpers the steps of an iteration share: the usage log, how a command failed, file-safe names,
 * failing verdicts.
 */

import type { CheckResult, LoopState } from '../domain/state.js'
import type { RunResult } from '../ports/process.js'

/** Records a command the controller ran (what, why, when, how long, how it ended) in the usage log. */
export function usage(state: LoopState, iteration: number, what: string, why: string, result: RunResult): void {
  state.usage.log.push({
    iteration,
    what,
    why,
    at: new Date(Date.now() - result.durationMs).toISOString(),
    durationMs: result.durationMs,
    status: result.timedOut
      ? 'timeout'
      : result.exitCode === 0
        ? 'ok'
        : `exit ${result.exitCode ?? result.signal ?? 'error'}`,
    outputs: {},
  })
}

/**
 * How a command the controller ran failed, for a person (`failed (exit 1)`, `timed out after 15
 * minutes`, `could not start (…)`), or null when it succeeded.
 */
export function howItFailed(result: RunResult, timeoutMs: number): string | null {
  if (result.spawnError !== undefined) return `could not start (${result.spawnError})`
  if (result.timedOut) return `timed out after ${timeoutMs / 60_000} minutes`
  if (result.exitCode === 0) return null
  return `failed (${result.exitCode === null ? `signal ${result.signal}` : `exit ${result.exitCode}`})`
}

/** A check or task name as a file name. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_')
}

export function isFailing(result: CheckResult): boolean {
  return result.verdict === 'fail' || result.verdict === 'timeout' || result.verdict === 'error'
}
