/** The CLI's exit codes (README, "CLI") and how an outcome or an error becomes one. */
import type { IterationResult } from '../app/iteration.js'
import { NoLoopError } from '../app/people-commands.js'
import { ConfigError, messageOf } from '../config/errors.js'
import { PatternError } from '../domain/analysis/index.js'
import { EngineError } from '../domain/engine/index.js'
import { PolicyError } from '../domain/policy.js'
import type { LoopState } from '../domain/state.js'
import { StateFromTheFutureError, StateQuarantinedError, StoreConflictError } from '../ports/store.js'
import type { CliIo } from './io.js'

/** Exit codes (README, "CLI"). */
export const EXIT = {
  complete: 0,
  internal: 1,
  usage: 2,
  blocked: 3,
  waiting: 4,
  capped: 5,
  aborted: 6,
} as const

/** A mistake in how the command was called; the message says what is expected. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** The exit code for where a loop is (or what an iteration ended with). */
const EXIT_FOR: Record<LoopState['status'] | IterationResult['outcome'], number> = {
  running: EXIT.complete,
  continue: EXIT.complete,
  superseded: EXIT.complete,
  complete: EXIT.complete,
  blocked: EXIT.blocked,
  waiting: EXIT.waiting,
  queued: EXIT.waiting,
  capped: EXIT.capped,
  aborted: EXIT.aborted,
}

export function exitFor(status: LoopState['status'] | IterationResult['outcome']): number {
  return EXIT_FOR[status]
}

/** Says what went wrong: the user's mistakes plainly (exit 2), anything else as an internal error (exit 1). */
export function reportError(error: unknown, io: CliIo): number {
  if (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof PolicyError ||
    error instanceof PatternError ||
    error instanceof StateQuarantinedError ||
    error instanceof StateFromTheFutureError ||
    error instanceof EngineError ||
    error instanceof NoLoopError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
  ) {
    io.stderr(`loop-controller: ${messageOf(error)}\n`)
    return EXIT.usage
  }
  if (error instanceof StoreConflictError) {
    io.stderr(`loop-controller: another controller changed this loop at the same time: ${messageOf(error)}\n`)
    return EXIT.internal
  }
  io.stderr(
    `loop-controller: internal error: ${messageOf(error)}\n${error instanceof Error && error.stack ? `${error.stack}\n` : ''}`,
  )
  return EXIT.internal
}
