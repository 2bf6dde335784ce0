/**
 * The state store the `store` input names, and the audit trail it carries. The stores' modules (the
 * cache and artifact clients and the Azure blob SDK under them are most of the bundle) are loaded only
 * here, when one is needed, so a job that stops early (a bad input, an ignored event) starts fast.
 */
import { join } from 'node:path'
import { messageOf } from '../config/errors.js'
import type { Logger } from '../ports/logger.js'
import type { Store } from '../ports/store.js'
import { VERSION } from '../version.js'
import { COMMIT_IDENTITY } from './commit-identity.js'
import { type RunContext, requireRepository, requireRunId } from './run-context.js'

/** A store that carries the audit trail and can bring it back onto a fresh runner. */
export interface AuditSource {
  restoreAudit(loopId: string, dir: string): Promise<number>
}

export async function createStore(input: {
  run: RunContext
  runnerTemp: string
  root: string
  /** The loop's audit trail folder, which the artifact and git stores carry with each save. */
  loopDir: string
  logger: Logger
}): Promise<{ store: Store; auditSource: AuditSource | null }> {
  const { run, runnerTemp, root, loopDir, logger } = input
  const { settings, env } = run
  const { ArtifactStore, AutoStore, CacheStore, GitStore } = await import('../adapters/stores/index.js')
  // Recorded in each saved revision, to tell which job wrote it.
  const runIdentity = {
    ...(run.runId !== undefined ? { runId: run.runId } : {}),
    ...(run.runAttempt !== undefined ? { runAttempt: run.runAttempt } : {}),
  }
  const cache = () => new CacheStore({ root: join(runnerTemp, 'loop-controller', 'state'), env, ...runIdentity })
  const artifact = () =>
    new ArtifactStore({
      token: settings.githubToken,
      repository: requireRepository(run).fullName,
      runId: requireRunId(run),
      apiUrl: run.apiUrl,
      workDir: join(runnerTemp, 'loop-controller', 'artifacts'),
      auditDir: () => loopDir,
      env,
      onNote: (note) => logger.info(note),
    })
  switch (settings.store) {
    case 'cache':
      return { store: cache(), auditSource: null }
    case 'artifact': {
      const store = artifact()
      return { store, auditSource: store }
    }
    case 'git': {
      // The states (and the audit trail, committed with each save) on a branch of the checkout's remote.
      const store = new GitStore({
        repoDir: root,
        remote: 'origin',
        branch: settings.stateBranch,
        identity: COMMIT_IDENTITY,
        token: settings.pushToken,
        workDir: join(runnerTemp, 'loop-controller', 'git-state'),
        auditDir: () => loopDir,
        toolVersion: VERSION,
        ...runIdentity,
      })
      return { store, auditSource: store }
    }
    default: {
      const mirror = artifact()
      return { store: new AutoStore(cache(), mirror, { onNote: (note) => logger.info(note) }), auditSource: mirror }
    }
  }
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
