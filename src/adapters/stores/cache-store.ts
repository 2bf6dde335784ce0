/**
 * The `cache` store: loop state in the GitHub Actions cache, through the real `@actions/cache` (v6).
 *
 * Keys. Each save writes a new, immutable entry `loop-state-<loop>.<revision>`, where `<revision>` is
 * the revision read plus one, and restores by the prefix `loop-state-<loop>.` (the service hands back
 * the newest entry created under it). The key holds nothing but the loop and the revision, on
 * purpose: two writers that read the same revision produce the SAME key, so GitHub's rule that a key
 * can be created once decides between them; the loser's `saveCache` returns -1 and this store reports
 * a `StoreConflictError`. The run id, run attempt and a per-save nonce travel in a sidecar
 * (`loop-state.meta.json`) inside the cached folder. `<loop>` is the loop id percent-encoded so that it
 * holds no `.` (a prefix of one loop can then never match another loop's keys, as `a-` would match
 * loop `a-b`), or `~<sha256>` when the key would pass the service's 512-character limit.
 *
 * Compare-and-swap. Before writing, the store looks up the newest revision and refuses (conflict) when
 * it is not the one the caller read. The lookup and the create are not one atomic step; the window
 * between them is closed by the key design above: any writer that passed the lookup with revision R
 * creates key R+1, and only the first such create succeeds. What remains: if the newest entry R were
 * evicted while R-1 survived, a writer holding R-1 could write R again. GitHub evicts the least recently
 * used entries first, so the newest goes last; and the action also claims the iteration number in its
 * dispatch inputs, so a lost state can never run an iteration twice.
 *
 * `@actions/cache` reports most failures as a miss (restore returns undefined) or as -1 (save), and
 * writes the reason to the log. The store reads those lines (see `withActionsEnv`) so that a service
 * failure becomes a `StoreUnavailableError` instead of "no state", and every -1 is confirmed with a
 * lookup before it is called a conflict, a failure, or (when the entry turns out to be ours) a success.
 *
 * Quarantine. A stored state that fails validation is kept: the downloaded files are copied to
 * `<root>/quarantine/...` and saved under `loop-quarantine-<loop>.<revision>`, which is also the marker
 * `save` looks for; `reset` then writes a tombstone revision, after which the loop has no state.
 *
 * The `paths` given to `@actions/cache` are part of the cache version, so `root` must be the same
 * absolute path in every job (the action uses `<RUNNER_TEMP>/loop-controller-state`).
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as cache from '@actions/cache'
import type { LoopState } from '../../domain/state.js'
import {
  type Loaded,
  StateQuarantinedError,
  type Store,
  StoreConflictError,
  type StoreVersion,
} from '../../ports/store.js'
import {
  checkLoopId,
  checkStateToSave,
  encodeLoopId,
  META_FILE,
  parseStoredState,
  type RevisionMeta,
  STATE_FILE,
  StoreUnavailableError,
  shortHash,
  withActionsEnv,
} from './shared.js'

/** The cache service refuses keys longer than this. */
export const MAX_CACHE_KEY_LENGTH = 512

export interface CacheStoreOptions {
  /** Folder for the cached files, one subfolder per loop: the same absolute path in every job. */
  root: string
  /**
   * Settings for `@actions/cache` (ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL, ACTIONS_CACHE_SERVICE_V2,
   * GITHUB_RUN_ID, ...), applied while the store calls it. Omitted: the process environment as it is.
   */
  env?: Record<string, string | undefined>
  /** Recorded in each revision's sidecar. Default: `env`'s GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT, or `local`. */
  runId?: string
  runAttempt?: string
  /** Pass `@actions/cache`'s log lines through to stdout (the job log). Default true. */
  echoLog?: boolean
}

interface Restored {
  revision: number
  key: string
  meta: RevisionMeta | null
  stateText: string | null
  metaText: string | null
}

/** The `cache` store (see the module comment for keys, compare-and-swap and quarantine). */
export class CacheStore implements Store {
  readonly kind = 'cache' as const
  private readonly root: string
  private readonly env: Record<string, string | undefined>
  private readonly runId: string
  private readonly runAttempt: string
  private readonly echoLog: boolean

  constructor(options: CacheStoreOptions) {
    if (!options.root) throw new Error('CacheStore: `root` is required (a folder path that is the same in every job)')
    this.root = options.root
    this.env = options.env ?? {}
    this.runId = options.runId ?? this.env.GITHUB_RUN_ID ?? 'local'
    this.runAttempt = options.runAttempt ?? this.env.GITHUB_RUN_ATTEMPT ?? '1'
    this.echoLog = options.echoLog ?? true
  }

  /** The key prefix under which this loop's revisions live. Throws when even a hashed key cannot fit. */
  keyPrefix(loopId: string): string {
    return `loop-state-${this.loopPart(loopId)}.`
  }

  describe(loopId: string): string {
    return `actions cache keys ${this.keyPrefix(loopId)}<revision> (files in ${this.folder(loopId)})`
  }

  async load(loopId: string): Promise<Loaded | null> {
    const found = await this.inspect(loopId)
    return found.kind === 'state' ? found.loaded : null
  }

  /**
   * Like `load`, but tells an empty cache (nothing under the prefix: never saved, evicted, or another
   * scope) from a reset one (a tombstone), which the `auto` store needs to decide whether to fall back.
   */
  async inspect(loopId: string): Promise<{ kind: 'empty' } | { kind: 'reset' } | { kind: 'state'; loaded: Loaded }> {
    checkLoopId(loopId)
    const head = await this.restoreNewest(loopId)
    if (!head) return { kind: 'empty' }
    if (head.meta?.tombstone) return { kind: 'reset' }
    const parsed = parseStoredState(head.stateText ?? '', `cache entry ${head.key}`)
    if (parsed.kind === 'future') throw parsed.error
    if (parsed.kind === 'invalid') throw await this.quarantine(loopId, head, parsed.reason)
    return { kind: 'state', loaded: { state: parsed.state, version: String(head.revision) } }
  }

  async save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion> {
    checkLoopId(loopId)
    const valid = checkStateToSave(loopId, state)
    const head = await this.lookupNewest(loopId)
    let target: number
    if (expectedVersion === null) {
      if (head === null) target = 1
      else {
        const restored = await this.restoreNewest(loopId)
        if (!restored) {
          throw new StoreConflictError(`${this.describe(loopId)}: the newest revision changed while saving; load again`)
        }
        if (restored.meta?.tombstone) target = restored.revision + 1
        else {
          const parsed = parseStoredState(restored.stateText ?? '', `cache entry ${restored.key}`)
          if (parsed.kind === 'future') throw parsed.error
          if (parsed.kind === 'invalid') throw await this.quarantine(loopId, restored, parsed.reason)
          throw new StoreConflictError(
            `loop ${loopId}: expected no stored state, but the cache holds revision ${restored.revision} (${restored.key}); load it first`,
          )
        }
      }
    } else {
      if (head === null) {
        throw new StoreConflictError(
          `loop ${loopId}: expected revision ${expectedVersion}, but the cache holds none under ${this.keyPrefix(loopId)} (evicted, or another branch's scope)`,
        )
      }
      if (String(head) !== expectedVersion) {
        const marker = await this.lookupExact(this.quarantineKey(loopId, head), this.quarantineFolder(loopId))
        if (marker) {
          throw new StateQuarantinedError(
            `loop ${loopId}: revision ${head} is quarantined (${marker}); run reset before saving`,
            marker,
          )
        }
        throw new StoreConflictError(
          `loop ${loopId}: expected revision ${expectedVersion}, but revision ${head} is the newest (another writer saved first)`,
        )
      }
      target = head + 1
    }
    const nonce = randomUUID()
    await this.commit(
      loopId,
      target,
      nonce,
      this.revisionFiles(loopId, target, nonce, JSON.stringify(valid, null, 2), valid.iteration),
    )
    return String(target)
  }

  async reset(loopId: string): Promise<void> {
    checkLoopId(loopId)
    const head = await this.restoreNewest(loopId)
    if (!head || head.meta?.tombstone) return
    const parsed = parseStoredState(head.stateText ?? '', `cache entry ${head.key}`)
    if (parsed.kind !== 'invalid') return
    // Make sure the bad revision is kept aside before moving past it.
    await this.quarantine(loopId, head, parsed.reason)
    const nonce = randomUUID()
    const target = head.revision + 1
    await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, null, undefined))
  }

  private loopPart(loopId: string): string {
    const encoded = encodeLoopId(loopId)
    // Room for `loop-quarantine-`/`loop-state-`, the dot, and a revision of up to 15 digits.
    if (`loop-quarantine-${encoded}.`.length + 15 <= MAX_CACHE_KEY_LENGTH) return encoded
    return `~${shortHash(loopId)}`
  }

  private key(loopId: string, revision: number): string {
    const key = `${this.keyPrefix(loopId)}${revision}`
    if (key.length > MAX_CACHE_KEY_LENGTH) {
      throw new Error(
        `cache key ${key.slice(0, 60)}… is ${key.length} characters; the limit is ${MAX_CACHE_KEY_LENGTH}`,
      )
    }
    return key
  }

  private quarantineKey(loopId: string, revision: number): string {
    return `loop-quarantine-${this.loopPart(loopId)}.${revision}`
  }

  private folder(loopId: string): string {
    return join(this.root, this.loopPart(loopId))
  }

  private quarantineFolder(loopId: string): string {
    return join(this.root, 'quarantine', this.loopPart(loopId))
  }

  private revisionOf(loopId: string, key: string): number {
    const revision = Number(key.slice(this.keyPrefix(loopId).length))
    if (!Number.isSafeInteger(revision) || revision < 1) {
      throw new Error(`cache key ${key} does not end in a revision number after ${this.keyPrefix(loopId)}`)
    }
    return revision
  }

  /** Runs `@actions/cache` with this store's env and collects the lines it logs. */
  private async call<T>(body: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
    const lines: string[] = []
    const result = await withActionsEnv(this.env, body, { onLine: (line) => lines.push(line), echo: this.echoLog })
    return { result, lines }
  }

  private failure(lines: string[], pattern: RegExp): string | null {
    return lines.find((line) => pattern.test(line)) ?? null
  }

  /** The newest revision's number without downloading it, or null when the loop has none. */
  private async lookupNewest(loopId: string): Promise<number | null> {
    const prefix = this.keyPrefix(loopId)
    const { result, lines } = await this.call(() =>
      cache.restoreCache([this.folder(loopId)], `${prefix}newest`, [prefix], { lookupOnly: true }),
    )
    const failed = this.failure(lines, /^::(warning|error)::Failed to restore/)
    if (failed) throw new StoreUnavailableError(`cache lookup of ${prefix}* failed: ${stripCommand(failed)}`)
    return result ? this.revisionOf(loopId, result) : null
  }

  private async lookupExact(key: string, folder: string): Promise<string | null> {
    const { result } = await this.call(() => cache.restoreCache([folder], key, [], { lookupOnly: true }))
    return result ? `cache key ${result}` : null
  }

  /**
   * Downloads the newest revision into the loop's folder and reads it, in one locked step (a store in
   * the same process acting as another job may use the same folder next).
   */
  private async restoreNewest(loopId: string): Promise<Restored | null> {
    const prefix = this.keyPrefix(loopId)
    const folder = this.folder(loopId)
    const { result, lines } = await this.call(async () => {
      // An earlier revision's files must never be mistaken for this download's.
      await rm(folder, { recursive: true, force: true })
      const key = await cache.restoreCache([folder], `${prefix}newest`, [prefix])
      if (!key) return null
      const stateText = await readFile(join(folder, STATE_FILE), 'utf8').catch(() => null)
      const metaText = await readFile(join(folder, META_FILE), 'utf8').catch(() => null)
      return { key, stateText, metaText }
    })
    const failed = this.failure(lines, /^::(warning|error)::Failed to restore/)
    if (failed) {
      throw new StoreUnavailableError(
        `cache restore of ${prefix}* failed (nothing was changed; try again): ${stripCommand(failed)}`,
      )
    }
    if (!result) return null
    let meta: RevisionMeta | null = null
    try {
      meta = result.metaText ? (JSON.parse(result.metaText) as RevisionMeta) : null
    } catch {
      meta = null
    }
    return {
      revision: this.revisionOf(loopId, result.key),
      key: result.key,
      meta,
      stateText: result.stateText,
      metaText: result.metaText,
    }
  }

  /** The files of a revision: the sidecar, and the state unless it is a tombstone. */
  private revisionFiles(
    loopId: string,
    revision: number,
    nonce: string,
    stateText: string | null,
    iteration: number | undefined,
  ): Map<string, string> {
    const meta: RevisionMeta & { nonce: string } = {
      loopId,
      revision,
      runId: this.runId,
      runAttempt: this.runAttempt,
      savedAt: new Date().toISOString(),
      tombstone: stateText === null,
      ...(iteration === undefined ? {} : { iteration }),
      nonce,
    }
    const files = new Map([[META_FILE, `${JSON.stringify(meta, null, 2)}\n`]])
    if (stateText !== null) files.set(STATE_FILE, `${stateText}\n`)
    return files
  }

  /** Writes `files` into a fresh `folder` and saves it under `key`, in one locked step. */
  private async saveFolder(folder: string, key: string, files: Map<string, string>) {
    return this.call(async () => {
      await rm(folder, { recursive: true, force: true })
      await mkdir(folder, { recursive: true })
      for (const [name, text] of files) await writeFile(join(folder, name), text)
      return cache.saveCache([folder], key)
    })
  }

  /** Saves the prepared folder as revision `target`; a -1 from `saveCache` is confirmed by a lookup. */
  private async commit(loopId: string, target: number, nonce: string, files: Map<string, string>): Promise<void> {
    const key = this.key(loopId, target)
    const { result, lines } = await this.saveFolder(this.folder(loopId), key, files)
    if (result !== -1) return
    const reason = stripCommand(
      this.failure(lines, /Failed to reserve cache|Failed to save|reservation failed|upload failed/i) ??
        'saveCache returned -1',
    )
    const refused = /\(409\)|already_exists|already exists/i.test(lines.join('\n'))
    // Confirm: did revision `target` become visible, and whose is it?
    const newest = await this.lookupNewest(loopId)
    if (newest !== null && newest >= target) {
      if (newest === target && !refused) {
        const restored = await this.restoreNewest(loopId)
        const theirs = restored?.meta as (RevisionMeta & { nonce?: string }) | null | undefined
        if (restored?.revision === target && theirs?.nonce === nonce) return
      }
      throw new StoreConflictError(
        `loop ${loopId}: another writer saved revision ${target} first (${key}); load again and decide`,
      )
    }
    if (refused) {
      throw new StoreConflictError(
        `loop ${loopId}: the cache refused ${key} because another writer is creating it; load again and decide`,
      )
    }
    throw new StoreUnavailableError(`loop ${loopId}: the cache did not persist ${key} (${reason}); nothing was saved`)
  }

  /** Keeps a bad revision aside (local copy and a quarantine cache entry) and returns the error to throw. */
  private async quarantine(loopId: string, head: Restored, reason: string): Promise<StateQuarantinedError> {
    const keep = join(this.root, 'quarantine-kept', this.loopPart(loopId), `${head.revision}-${Date.now()}`)
    const files = new Map<string, string>()
    if (head.stateText !== null) files.set(STATE_FILE, head.stateText)
    if (head.metaText !== null) files.set(META_FILE, head.metaText)
    files.set(
      'QUARANTINED.json',
      `${JSON.stringify({ loopId, revision: head.revision, key: head.key, reason, at: new Date().toISOString() }, null, 2)}\n`,
    )
    await mkdir(keep, { recursive: true })
    for (const [name, text] of files) await writeFile(join(keep, name), text)
    const key = this.quarantineKey(loopId, head.revision)
    const staging = this.quarantineFolder(loopId)
    // The quarantine entry is the marker other jobs' saves look for; if it exists already, keep it.
    if (!(await this.lookupExact(key, staging))) await this.saveFolder(staging, key, files)
    const where = `${key} (the bad entry ${head.key} is kept; local copy ${keep})`
    return new StateQuarantinedError(
      `loop ${loopId}: ${reason}. The state was quarantined as ${where}; fix or discard it, then reset the loop's state before saving`,
      keep,
    )
  }
}

function stripCommand(line: string): string {
  return line.replace(/^::[a-z]+::/, '')
}
