/**
 * The state store the `store` input names, and the audit trail it carries. The cache and artifact
 * stores' modules (`@actions/cache`, `@actions/artifact` and the Azure blob SDKs under them are most of
 * the bundle) are loaded only here, each only for the store that uses it, so a job of the `git` store
 * loads neither and a `cache` job not the artifact client; `auto` loads the artifact client at its
 * first upload or download (`artifact-snapshots.ts`).
 *
 * The default is the `git` store: one state branch per repository that every job fetches and pushes
 * under a lease, whatever its event and ref. The Actions cache is scoped by ref (a comment's job runs
 * on the default branch, a pull request's on refs/pull/N/merge, a dispatch on the ref it names), so
 * with `cache` or `auto` two jobs of one loop can each see a different "latest" state and a person's
 * abort can be lost (docs/architecture.md, "One source of truth").
 */
import { join } from 'node:path'
import { GitStore } from '../adapters/stores/git-store.js'
import { messageOf } from '../config/errors.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import { VERSION } from '../version.js'
import { COMMIT_IDENTITY } from './commit-identity.js'
import { type RunContext, requireRepository, requireRunId } from './run-context.js'
import { StoreWarnings } from './store-warnings.js'

/** A store that carries the audit trail and can bring it back onto a fresh runner. */
export interface AuditSource {
  restoreAudit(loopId: string, dir: string): Promise<number>
}

/**
 * Where the git store's state branch lives and who writes it, for every reader and writer of it (the
 * loop's store, the queue, other loops' states): the job's token, never a push-token PAT, so a state
 * save starts none of the repository's push workflows; one private clone per job, fetched once for all.
 */
export function stateBranchOptions(run: RunContext, root: string, runnerTemp = defaultRunnerTemp(run, root)) {
  return {
    repoDir: root,
    remote: 'origin',
    branch: run.settings.stateBranch,
    identity: COMMIT_IDENTITY,
    token: run.settings.githubToken,
    workDir: join(runnerTemp, 'loop-controller', 'git-state'),
  }
}

/** The runner's temporary folder, or one beside the workspace outside a runner. */
export function defaultRunnerTemp(run: Pick<RunContext, 'runnerTemp'>, root: string): string {
  return run.runnerTemp ?? join(root, '..', '_loop-temp')
}

export async function createStore(input: {
  run: RunContext
  runnerTemp: string
  root: string
  /**
   * The loop's audit trail folder, which the artifact and git stores carry with each save; a function
   * of the loop for a job that saves several loops (the dashboard's ticks, with the `git` store).
   */
  loopDir: string | ((loopId: string) => string)
  logger: Logger
  /** Where the store's warnings are kept for the report (data lost, rolled back or not mirrored). */
  warnings?: StoreWarnings
}): Promise<{ store: Store; auditSource: AuditSource | null }> {
  const { run, runnerTemp, root, logger } = input
  const onNote = (input.warnings ?? new StoreWarnings()).sink(logger)
  const auditDirOf = (loopId: string) => (typeof input.loopDir === 'string' ? input.loopDir : input.loopDir(loopId))
  const { settings, env } = run
  // Recorded in each saved revision, to tell which job wrote it.
  const runIdentity = {
    ...(run.runId !== undefined ? { runId: run.runId } : {}),
    ...(run.runAttempt !== undefined ? { runAttempt: run.runAttempt } : {}),
  }
  const cache = async () => {
    const { CacheStore } = await import('../adapters/stores/cache-store.js')
    return new CacheStore({ root: join(runnerTemp, 'loop-controller', 'state'), env, ...runIdentity })
  }
  const artifact = async () => {
    const { ArtifactStore } = await import('../adapters/stores/artifact-store.js')
    return new ArtifactStore({
      token: settings.githubToken,
      repository: requireRepository(run).fullName,
      runId: requireRunId(run),
      apiUrl: run.apiUrl,
      workDir: join(runnerTemp, 'loop-controller', 'artifacts'),
      auditDir: auditDirOf,
      env,
      onNote,
    })
  }
  if (settings.store === 'cache' || settings.store === 'auto') warnOffDefaultBranch(run, logger)
  switch (settings.store) {
    case 'cache':
      return { store: await cache(), auditSource: null }
    case 'artifact': {
      const store = await artifact()
      return { store, auditSource: store }
    }
    case 'git': {
      // The states (and the audit trail, committed with each save) on a branch of the checkout's remote.
      const store = new GitStore({
        ...stateBranchOptions(run, root, runnerTemp),
        auditDir: auditDirOf,
        toolVersion: VERSION,
        ...runIdentity,
      })
      return { store, auditSource: store }
    }
    default: {
      const mirror = await artifact()
      const { AutoStore } = await import('../adapters/stores/auto-store.js')
      return { store: new AutoStore(await cache(), mirror, { onNote }), auditSource: mirror }
    }
  }
}

/** The cache this job writes is one only jobs on its own ref read: say so where that splits the loop's state. */
function warnOffDefaultBranch(run: RunContext, logger: Logger): void {
  const ref = run.env.GITHUB_REF
  const defaultRef = `refs/heads/${run.event.defaultBranch}`
  if (ref === undefined || ref === defaultRef) return
  logger.warning(
    `store '${run.settings.store}': this job runs on ${ref}, and the Actions cache it saves to is read only by jobs on that ref; ` +
      `people's commands from comments run on ${defaultRef} and may not see this state. Use the default store, 'git'.`,
  )
}

/**
 * Brings back the audit trail the newest snapshot carries: the runner starts empty, so the trail
 * accumulates across jobs and the last snapshot holds all of it. Done once, lazily (the returned
 * function may be called many times): a job with nothing for the loop downloads nothing. A failure
 * only warns; the trail then starts afresh here.
 */
export function auditRestorer(
  auditSource: AuditSource | null,
  loopId: string,
  loopDir: string,
  logger: Logger,
): () => Promise<void> {
  let restored: Promise<void> | null = null
  return () => {
    restored ??= (async () => {
      if (!auditSource) return
      try {
        const count = await auditSource.restoreAudit(loopId, loopDir)
        if (count > 0) logger.info(`Audit trail: ${count} file(s) restored from the newest snapshot.`)
      } catch (error) {
        logger.warning(`Audit trail not restored from the newest snapshot (it starts afresh here): ${messageOf(error)}`)
      }
    })()
    return restored
  }
}
