/**
 * The `auto` store, the action's default: the cache decides, the artifact remembers.
 *
 * - load: the cache first; when the cache holds nothing for the loop (never saved, evicted after 7 days
 *   unused, or saved on another branch's scope) or cannot be reached, the newest artifact snapshot.
 *   A reset cache (tombstone) means "no state": the artifact is not consulted then.
 * - save: the cache is the compare-and-swap authority; after it succeeded, the same state is mirrored to
 *   an artifact snapshot. A failed mirror is a note (`notes`, `onNote`), not a lost save.
 *
 * Versions say where the state was read: `cache:<revision>` or `artifact:<id>`. Saving on an
 * `artifact:` version (the cache had nothing when the caller loaded) writes the cache's first revision,
 * so two writers that both fell back to the artifact still meet on one cache key and one of them wins.
 */
import type { LoopState } from '../../domain/state.js'
import { type Loaded, StateQuarantinedError, type Store, type StoreVersion } from '../../ports/store.js'
import type { ArtifactStore } from './artifact-store.js'
import type { CacheStore } from './cache-store.js'
import { type NoteLevel, type NoteSink, StoreUnavailableError } from './shared.js'

export interface AutoStoreOptions {
  /** Where notes go (fallbacks taken, mirrors that failed). Default: kept in `notes` only. */
  onNote?: NoteSink
}

/** The `auto` store (see the module comment). */
export class AutoStore implements Store {
  readonly kind = 'auto' as const
  /** Notes about fallbacks and failed mirrors, newest last. */
  readonly notes: string[] = []

  constructor(
    private readonly cache: CacheStore,
    private readonly artifact: ArtifactStore,
    private readonly options: AutoStoreOptions = {},
  ) {}

  describe(loopId: string): string {
    return `${this.cache.describe(loopId)}, mirrored to ${this.artifact.describe(loopId)}`
  }

  async load(loopId: string): Promise<Loaded | null> {
    try {
      const found = await this.cache.inspect(loopId)
      if (found.kind === 'state') return { state: found.loaded.state, version: `cache:${found.loaded.version}` }
      if (found.kind === 'reset') return null
      this.note(
        `the cache holds no state for loop ${loopId} (evicted or another branch's scope); reading the artifact`,
        'info',
      )
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error
      this.note(`the cache could not be read (${error.message}); reading the artifact instead`, 'info')
    }
    const loaded = await this.artifact.load(loopId)
    return loaded ? { state: loaded.state, version: `artifact:${loaded.version}` } : null
  }

  async save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion> {
    let cacheVersion: StoreVersion | null
    if (expectedVersion === null || expectedVersion.startsWith('artifact:')) cacheVersion = null
    else if (expectedVersion.startsWith('cache:')) cacheVersion = expectedVersion.slice('cache:'.length)
    else {
      throw new Error(
        `auto store: version ${JSON.stringify(expectedVersion)} is not one this store gave out (expected cache:<n> or artifact:<id>)`,
      )
    }
    const saved = await this.cache.save(loopId, state, cacheVersion)
    try {
      await this.artifact.mirror(loopId, state)
    } catch (error) {
      this.note(
        `loop ${loopId}: saved to the cache, but mirroring to the artifact failed (a cache miss would read an older state): ${(error as Error).message}`,
        'warning',
      )
    }
    return `cache:${saved}`
  }

  async reset(loopId: string): Promise<void> {
    await this.cache.reset(loopId)
    const artifactHead = await this.artifact.load(loopId).catch((error: unknown) => error)
    if (artifactHead instanceof Error && !(artifactHead instanceof StateQuarantinedError)) {
      this.note(
        `loop ${loopId}: the cache was reset, but the artifact could not be checked (a cache miss may bring the old state back): ${artifactHead.message}`,
        'warning',
      )
      return
    }
    if (artifactHead !== null) {
      // The artifact holds a state (or a bad one, now quarantined): mirror the reset so a later cache
      // miss does not bring the old state back.
      await this.artifact.reset(loopId)
      await this.artifact.mirror(loopId, null)
    }
  }

  private note(message: string, level: NoteLevel): void {
    this.notes.push(message)
    this.options.onNote?.(message, level)
  }
}
