/**
 * The `file` store: `<root>/<loopId>/loop-state.json`, written atomically (temp
 * file in the same folder, fsync, rename, fsync the folder). The version for compare-and-swap is the
 * sha256 of the file's bytes; an exclusive lock file (`open(..., 'wx')`) around compare-and-rename makes
 * two processes racing on the same version end with exactly one winner.
 *
 * A state that is not JSON or fails validation is moved aside to `loop-state.invalid-<time>.json`
 * (never overwritten) and a marker makes `save` refuse until `reset`. A state from a newer schema is
 * refused and left where it is.
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { migrateState, type StateValidationError } from '../domain/migrations.js'
import type { ListedLoop } from '../domain/report/loops-table.js'
import { type LoopState, loopStateSchema } from '../domain/state.js'
import {
  type Loaded,
  type LoopReader,
  StateFromTheFutureError,
  StateQuarantinedError,
  type Store,
  StoreConflictError,
  type StoreVersion,
} from '../ports/store.js'

export const STATE_FILE = 'loop-state.json'
const LOCK_FILE = 'loop-state.lock'
const EMPTY_LOCK_STALE_MS = 1000
const QUARANTINE_MARKER = 'loop-state.quarantined.json'

/** `save` was handed a state that does not pass the schema; nothing was written. */
export class InvalidStateError extends Error {
  override name = 'InvalidStateError'
}

export interface FileStoreOptions {
  /** The folder that holds one sub-folder per loop (the CLI passes `.loop` at the repository root). */
  root: string
  /** Shown when a state from a newer schema is refused. */
  toolVersion?: string
  /** A lock older than this is taken to be left by a crashed writer. Default 30 s. */
  lockStaleMs?: number
  /** How long `save` waits for another writer's lock. Default 10 s. */
  lockWaitMs?: number
  /** The clock for quarantine file names. */
  now?: () => Date
}

const LOOP_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** The `Store` port over a folder. */
export class FileStore implements Store, LoopReader {
  readonly kind = 'file' as const
  readonly root: string
  private readonly toolVersion: string | undefined
  private readonly lockStaleMs: number
  private readonly lockWaitMs: number
  private readonly now: () => Date

  constructor(options: FileStoreOptions) {
    this.root = options.root
    this.toolVersion = options.toolVersion
    this.lockStaleMs = options.lockStaleMs ?? 30_000
    this.lockWaitMs = options.lockWaitMs ?? 10_000
    this.now = options.now ?? (() => new Date())
  }

  describe(loopId: string): string {
    return this.dir(loopId)
  }

  /** The path of a loop's state file. */
  stateFile(loopId: string): string {
    return join(this.dir(loopId), STATE_FILE)
  }

  async load(loopId: string): Promise<Loaded | null> {
    const dir = this.dir(loopId)
    const file = join(dir, STATE_FILE)
    // A concurrent save may replace the file between our read and the quarantine; then we read again.
    for (let attempt = 0; ; attempt++) {
      await this.refuseIfQuarantined(loopId)
      const bytes = await readIfExists(file)
      if (bytes === null) return null
      const checked = this.validate(bytes, file)
      if (checked.ok) return { state: checked.state, version: versionOf(bytes) }
      const moved = await this.quarantine(loopId, bytes, checked.problem)
      if (moved === 'changed' && attempt < 3) continue
      if (moved === 'changed') throw new Error(`${file} keeps changing while it is being read; is another writer busy?`)
      throw new StateQuarantinedError(
        `The loop state ${file} is not valid: ${checked.problem}. It was moved aside to ${moved} (kept, never ` +
          `overwritten). Fix it and move it back, or run 'loop-controller abort' / reset the loop to start afresh.`,
        moved,
      )
    }
  }

  /**
   * Every loop folder under the root, read only (`status --all`): a state that is not valid, or one
   * quarantined, is a row with its problem; nothing is moved aside, so a second listing shows the same.
   */
  async readLoops(): Promise<ListedLoop[]> {
    const entries = await readdir(this.root, { withFileTypes: true }).catch(() => [])
    const loops: ListedLoop[] = []
    for (const entry of entries) {
      if (!entry.isDirectory() || !LOOP_ID.test(entry.name)) continue
      const loopId = entry.name
      const dir = join(this.root, loopId)
      const marker = await readIfExists(join(dir, QUARANTINE_MARKER))
      if (marker !== null) {
        loops.push({ loopId, state: null, problem: quarantinedProblem(marker, dir) })
        continue
      }
      const file = join(dir, STATE_FILE)
      const bytes = await readIfExists(file)
      if (bytes === null) continue
      try {
        const checked = this.validate(bytes, file)
        loops.push(
          checked.ok
            ? { loopId, state: checked.state }
            : { loopId, state: null, problem: `not a valid loop state: ${checked.problem} (${file})` },
        )
      } catch (error) {
        // A state from a newer schema: named, left where it is.
        loops.push({ loopId, state: null, problem: firstLine((error as Error).message) })
      }
    }
    return loops.sort((a, b) => (a.loopId < b.loopId ? -1 : a.loopId > b.loopId ? 1 : 0))
  }

  async save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion> {
    const dir = this.dir(loopId)
    const file = join(dir, STATE_FILE)
    if (state?.loopId !== loopId) {
      throw new InvalidStateError(
        `Refusing to save to loop '${loopId}': the state belongs to loop '${state?.loopId}'. Expected the same loop id.`,
      )
    }
    const parsed = loopStateSchema.safeParse(state)
    if (!parsed.success) {
      throw new InvalidStateError(
        `Refusing to save an invalid state for loop '${loopId}' to ${file}: ${describeIssues(parsed.error.issues)}.`,
      )
    }
    const bytes = Buffer.from(`${JSON.stringify(parsed.data, null, 2)}\n`)
    await mkdir(dir, { recursive: true })
    const release = await this.lock(dir)
    try {
      await this.refuseIfQuarantined(loopId)
      const current = await readIfExists(file)
      const currentVersion = current === null ? null : versionOf(current)
      if (currentVersion !== expectedVersion) {
        throw new StoreConflictError(
          `Another writer saved loop '${loopId}' first (${file}): expected version ${expectedVersion ?? 'none (a new loop)'}, ` +
            `found ${currentVersion ?? 'none'}. Load it again and retry.`,
        )
      }
      await writeAtomically(dir, STATE_FILE, bytes)
    } finally {
      await release()
    }
    return versionOf(bytes)
  }

  async reset(loopId: string): Promise<void> {
    await rm(join(this.dir(loopId), QUARANTINE_MARKER), { force: true })
  }

  private dir(loopId: string): string {
    if (!LOOP_ID.test(loopId)) {
      throw new Error(
        `Loop id '${loopId}' is not usable as a folder name: expected letters, digits, dot, dash and underscore, starting with a letter or digit (at most 200).`,
      )
    }
    return join(this.root, loopId)
  }

  private validate(bytes: Buffer, file: string): { ok: true; state: LoopState } | { ok: false; problem: string } {
    let raw: unknown
    try {
      raw = JSON.parse(bytes.toString('utf8'))
    } catch (error) {
      return { ok: false, problem: `it is not JSON (${error instanceof Error ? error.message : String(error)})` }
    }
    try {
      // Older schema versions are migrated; a newer one throws StateFromTheFutureError, left untouched.
      return { ok: true, state: migrateState(raw, this.toolVersion ?? 'in use', file).state }
    } catch (error) {
      // Not `instanceof`: zod's error classes answer true for any Error (they pass `Error` as the parent).
      if (
        error instanceof StateFromTheFutureError ||
        !(error instanceof Error) ||
        error.name !== 'StateValidationError'
      ) {
        throw error
      }
      return { ok: false, problem: describeIssues((error as StateValidationError).issues) }
    }
  }

  private async refuseIfQuarantined(loopId: string): Promise<void> {
    const marker = await readIfExists(join(this.dir(loopId), QUARANTINE_MARKER))
    if (marker === null) return
    let info: { file?: string; problem?: string } = {}
    try {
      info = JSON.parse(marker.toString('utf8'))
    } catch {
      // A torn marker still means quarantined.
    }
    const where = info.file ?? join(this.dir(loopId), 'loop-state.invalid-*.json')
    throw new StateQuarantinedError(
      `The state of loop '${loopId}' is quarantined: ${info.problem ?? 'it failed validation'}. The bad state is kept ` +
        `at ${where}. Nothing is saved until the loop is reset (FileStore.reset, or 'loop-controller abort').`,
      where,
    )
  }

  /** Moves the bad bytes aside under the lock; 'changed' when the file is no longer the bytes we judged. */
  private async quarantine(loopId: string, bytes: Buffer, problem: string): Promise<string | 'changed'> {
    const dir = this.dir(loopId)
    const file = join(dir, STATE_FILE)
    const release = await this.lock(dir)
    try {
      const current = await readIfExists(file)
      if (current === null || !current.equals(bytes)) return 'changed'
      const stamp = this.now().toISOString().replace(/:/g, '-')
      let target = join(dir, `loop-state.invalid-${stamp}.json`)
      for (let n = 2; await exists(target); n++) target = join(dir, `loop-state.invalid-${stamp}-${n}.json`)
      await rename(file, target)
      await writeAtomically(
        dir,
        QUARANTINE_MARKER,
        Buffer.from(`${JSON.stringify({ file: target, problem }, null, 2)}\n`),
      )
      return target
    } finally {
      await release()
    }
  }

  /** Takes the folder's exclusive lock; returns its release. */
  private async lock(dir: string): Promise<() => Promise<void>> {
    const path = join(dir, LOCK_FILE)
    const token = `${hostname()} ${process.pid} ${randomBytes(6).toString('hex')}`
    const deadline = Date.now() + this.lockWaitMs
    for (;;) {
      try {
        const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644)
        await handle.writeFile(token)
        await handle.close()
        return async () => {
          // Only remove our own lock: a lock broken as stale may have been taken by someone else since.
          const held = await readIfExists(path)
          if (held?.toString('utf8') === token) await unlink(path).catch(() => {})
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      if (await this.isStale(path)) {
        // Rename first so that only one breaker wins; then remove the renamed copy.
        const aside = `${path}.stale-${randomBytes(6).toString('hex')}`
        await rename(path, aside).then(
          () => unlink(aside).catch(() => {}),
          () => {},
        )
        continue
      }
      if (Date.now() > deadline) {
        throw new Error(
          `Could not lock ${path} within ${this.lockWaitMs} ms: another loop-controller is saving this loop. ` +
            `If none is running, delete the lock file.`,
        )
      }
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8))
    }
  }

  private async isStale(path: string): Promise<boolean> {
    try {
      const info = await stat(path)
      const age = Date.now() - info.mtimeMs
      if (age > this.lockStaleMs) return true
      const text = await readFile(path, 'utf8')
      // A writer writes its token right after creating the lock; one that is still empty a second later
      // was left by a process killed in between.
      if (text === '') return age > EMPTY_LOCK_STALE_MS
      const [host, pid] = text.split(' ')
      if (host !== hostname() || !pid) return false
      try {
        process.kill(Number(pid), 0)
        return false
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ESRCH'
      }
    } catch {
      return false
    }
  }
}

/** What a quarantine marker says: why, and where the bad state is kept. */
function quarantinedProblem(marker: Buffer, dir: string): string {
  let info: { file?: unknown; problem?: unknown } = {}
  try {
    info = JSON.parse(marker.toString('utf8')) as typeof info
  } catch {
    // A torn marker still means quarantined.
  }
  const why = typeof info.problem === 'string' ? firstLine(info.problem) : 'it failed validation'
  const kept = typeof info.file === 'string' ? info.file : join(dir, 'loop-state.invalid-*.json')
  return `quarantined (${why}); kept at ${kept}: fix it and move it back, or reset the loop`
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? ''
}

/** The version token of a state file's bytes. */
export function versionOf(bytes: Buffer): StoreVersion {
  return createHash('sha256').update(bytes).digest('hex')
}

/** zod issues as `path: message` (at most five), e.g. `iteration: Invalid input: expected number, received string`. */
function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(the whole state)'}: ${issue.message}`)
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : ''
  return shown.join('; ') + more
}

async function readIfExists(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/** Temp file in the same folder, fsync, rename over `name`, fsync the folder. */
export async function writeAtomically(dir: string, name: string, bytes: Buffer | string): Promise<void> {
  const temporary = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(temporary, 'w', 0o644)
  try {
    await handle.writeFile(bytes)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(temporary, join(dir, name))
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  const folder = await open(dir, 'r')
  try {
    await folder.sync()
  } finally {
    await folder.close()
  }
}
