/** The stores that survive GitHub's disposable runners; the `file` store lives beside. */
export { ArtifactStore, type ArtifactStoreOptions } from './artifact-store.js'
export { AutoStore, type AutoStoreOptions } from './auto-store.js'
export { CacheStore, type CacheStoreOptions, MAX_CACHE_KEY_LENGTH } from './cache-store.js'
export { GitPushRejectedError, GitStore, type GitStoreOptions } from './git-store.js'
export { StoreUnavailableError } from './shared.js'
