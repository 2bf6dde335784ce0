/**
 * Helpers shared by the stores that survive GitHub (cache, artifact, git, auto): state validation with
 * the future-version check, loop id checks, and the lock that lets one process drive `@actions/*` as
 * several jobs (those packages read their settings from `process.env` at call time).
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { migrateState, StateValidationError } from '../../domain/migrations.js'
import { type LoopState, loopStateSchema } from '../../domain/state.js'
import { StateFromTheFutureError } from '../../ports/store.js'

/** The state file's name inside every store's folder (cache path, artifact, git folder). */
export const STATE_FILE = 'loop-state.json'
/** Who wrote a revision and when; kept beside the state so the state itself stays the domain's. */
export const META_FILE = 'loop-state.meta.json'

/**
 * Thrown when a store's service failed (5xx, 429, a broken download): nothing was persisted or nothing
 * could be read, and it is not a compare-and-swap conflict. The caller may retry later; no state is lost.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/** What a revision's sidecar records. `tombstone` marks a reset: the loop has no state from here on. */
export interface RevisionMeta {
  loopId: string
  revision: number
  runId: string
  runAttempt: string
  savedAt: string
  tombstone: boolean
  /** The iteration of the saved state (absent on a tombstone), for people reading the store. */
  iteration?: number
}

/** The longest loop id the state schema accepts; stores refuse longer ones before touching a service. */
export const MAX_LOOP_ID_LENGTH = 200

/** Checks a loop id before it becomes part of a key, an artifact name or a folder. */
export function checkLoopId(loopId: string): void {
  if (typeof loopId !== 'string' || loopId.length === 0 || loopId.length > MAX_LOOP_ID_LENGTH) {
    const shown = typeof loopId === 'string' ? `${loopId.slice(0, 40)}${loopId.length > 40 ? '…' : ''}` : loopId
    throw new Error(
      `loop id ${JSON.stringify(shown)} (length ${typeof loopId === 'string' ? loopId.length : 'n/a'}) is invalid: expected 1 to ${MAX_LOOP_ID_LENGTH} characters`,
    )
  }
  if (loopId.includes(',') || [...loopId].some((char) => char.charCodeAt(0) < 0x20)) {
    throw new Error(`loop id ${JSON.stringify(loopId)} is invalid: expected no control characters and no commas`)
  }
}

/**
 * A loop id made safe for a path segment or an artifact name: letters, digits, `_` and `-` stay, all
 * else is percent-encoded (so the result never holds `.` or `/`, which the stores use as separators).
 */
export function encodeLoopId(loopId: string): string {
  return Array.from(Buffer.from(loopId, 'utf8'))
    .map((byte) => {
      const char = String.fromCharCode(byte)
      return /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')
}

/** The folder of a loop on the git store's branch: its encoded id, or a digest when that is too long. */
export function loopFolder(loopId: string): string {
  const encoded = encodeLoopId(loopId)
  return encoded.length <= 200 ? encoded : `~${shortHash(loopId)}`
}

/** A short stable digest, for names that would otherwise be too long. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 40)
}

/** The loop id a stored state names, when its text is JSON with one (valid as a state or not). */
export function loopIdNamedIn(text: string): string | null {
  try {
    const loopId = (JSON.parse(text) as { loopId?: unknown }).loopId
    return typeof loopId === 'string' ? loopId : null
  } catch {
    return null
  }
}

export type ParsedState =
  | { kind: 'valid'; state: LoopState }
  | { kind: 'invalid'; reason: string }
  | { kind: 'future'; error: StateFromTheFutureError }

/**
 * Validates stored text as a loop state through `migrateState` (older schema versions are migrated).
 * A `schemaVersion` above this code's is reported as `future` (refused, never quarantined: a newer
 * release can read it); anything else that fails is `invalid`.
 */
export function parseStoredState(text: string, where: string, toolVersion = 'this release'): ParsedState {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return { kind: 'invalid', reason: `${where} is not JSON: ${(error as Error).message}` }
  }
  try {
    return { kind: 'valid', state: migrateState(raw, toolVersion, where).state }
  } catch (error) {
    if (error instanceof StateFromTheFutureError) return { kind: 'future', error }
    if (error instanceof StateValidationError || error instanceof z.ZodError) {
      const issues = error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ')
      return { kind: 'invalid', reason: `${where} is not a valid loop state (${issues})` }
    }
    throw error
  }
}

/** Validates a state before it is written: a store never writes what it could not read back. */
export function checkStateToSave(loopId: string, state: LoopState): LoopState {
  const result = loopStateSchema.safeParse(state)
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')
    throw new Error(`refusing to save loop ${JSON.stringify(loopId)}: the state is invalid (${issues})`)
  }
  if (result.data.loopId !== loopId) {
    throw new Error(
      `refusing to save loop ${JSON.stringify(loopId)}: the state belongs to loop ${JSON.stringify(result.data.loopId)}`,
    )
  }
  return result.data
}

let envLock: Promise<void> = Promise.resolve()

/**
 * Runs `body` with `env` applied to `process.env` and restores the previous values afterwards. Calls
 * are serialised process-wide, because `@actions/cache` and `@actions/artifact` read their settings
 * (token, service URL, run ids) from `process.env` when called: without the lock, two stores acting
 * as two jobs in one process (tests, or an action that reads another run's state) would mix them.
 * When `capture` is given, every line the packages print through `@actions/core` is handed to it, so
 * a store can tell "not found" from "the service failed" (both come back from the packages as a miss).
 */
export async function withActionsEnv<T>(
  env: Record<string, string | undefined>,
  body: () => Promise<T>,
  capture?: { onLine: (line: string) => void; echo: boolean },
): Promise<T> {
  const previous = envLock
  let release!: () => void
  envLock = new Promise((resolve) => {
    release = resolve
  })
  await previous
  const saved = new Map<string, string | undefined>()
  for (const [name, value] of Object.entries(env)) {
    saved.set(name, process.env[name])
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  const originalWrite = process.stdout.write
  if (capture) {
    process.stdout.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : ''
      for (const line of text.split(/\r?\n/)) if (line) capture.onLine(line)
      if (!capture.echo) {
        const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined
        callback?.()
        return true
      }
      return (originalWrite as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
    } as typeof process.stdout.write
  }
  try {
    return await body()
  } finally {
    if (capture) process.stdout.write = originalWrite
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    release()
  }
}

/**
 * How much a store's note matters: `warning` when data was lost, rolled back or not mirrored (the
 * action shows it as an annotation and in the summary), `info` for what the store did as designed.
 */
export type NoteLevel = 'info' | 'warning'

/** Where a store's notes go. */
export type NoteSink = (message: string, level: NoteLevel) => void
