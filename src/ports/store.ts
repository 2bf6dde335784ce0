import type { ListedLoop } from '../domain/report/loops-table.js'
import type { LoopState } from '../domain/state.js'

/** An opaque version token for compare-and-swap; `null` means "no state yet". */
export type StoreVersion = string

export interface Loaded {
  state: LoopState
  version: StoreVersion
}

/** Thrown by `save` when another writer saved first (compare-and-swap failed). */
export class StoreConflictError extends Error {
  override name = 'StoreConflictError'
}

/**
 * Thrown by `load` when the stored state fails validation. The bad state has been moved aside to
 * `quarantinedAt` (never overwritten); a later `save` needs an explicit `reset` first.
 */
export class StateQuarantinedError extends Error {
  override name = 'StateQuarantinedError'
  constructor(
    message: string,
    readonly quarantinedAt: string,
  ) {
    super(message)
  }
}

export { StateFromTheFutureError } from '../domain/migrations.js'

/**
 * Where loop state lives between iterations (its invariants: docs/architecture.md, "State and its
 * invariants"). One contract for every store, checked by one shared test suite
 * (`test/integration/stores/store-contract.ts`).
 */
export interface Store {
  readonly kind: 'file' | 'cache' | 'artifact' | 'git' | 'auto'
  /** The newest state and its version, or null when the loop has none. */
  load(loopId: string): Promise<Loaded | null>
  /**
   * Saves when the stored version still equals `expectedVersion` (null: nothing stored yet) and returns
   * the new version; otherwise throws `StoreConflictError`. Never reports success that did not happen.
   */
  save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion>
  /** Clears a quarantine so that a fresh state may be saved; the quarantined file is kept. */
  reset(loopId: string): Promise<void>
  /** A place a person can look at (a folder, a cache key, an artifact name, a ref). */
  describe(loopId: string): string
}

/** A store that can name every loop it holds: the `git` store, one branch for all of a repository's loops. */
export interface LoopLister {
  listLoops(): Promise<string[]>
  /** Where every loop is kept, for people (a summary of all of them; `describe` names one loop's folder). */
  describeAll(): string
}

/**
 * A store that can show every loop it holds without changing anything: a state that fails validation,
 * or one quarantined, is a row with its problem (never moved aside, never dropped), so a listing run
 * twice shows the same loops. What the dashboard and `status --all` list.
 */
export interface LoopReader {
  readLoops(): Promise<ListedLoop[]>
}
