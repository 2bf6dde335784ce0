/** Jobs of one repository as the store tests play them: each writer is its own run, with its own disk. */
import { mkdirSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as cache from '@actions/cache'
import { CacheStore } from '../../../src/adapters/stores/cache-store.js'
import { encodeLoopId, STATE_FILE, withActionsEnv } from '../../../src/adapters/stores/shared.js'
import type { JobIdentity, ResultsServer } from '../../sandbox/results-server.js'

export const REPOSITORY = 'octo/loop'
let nextRun = 100

/** A fresh run id for a simulated job. */
export function newRunId(): number {
  return ++nextRun
}

/** The environment `@actions/*` would see in `job`, with its own workspace and temp folder under `base`. */
export function jobEnv(server: ResultsServer, base: string, job: JobIdentity): Record<string, string> {
  const workspace = join(base, `workspace-${job.runId}`)
  mkdirSync(workspace, { recursive: true })
  return { ...server.jobEnv(job), GITHUB_WORKSPACE: workspace, RUNNER_TEMP: join(base, `temp-${job.runId}`) }
}

/** Cache stores acting as separate jobs, all with the same `root` (the path is part of the cache version). */
export function cacheJobs(server: ResultsServer, base: string) {
  const root = join(base, 'state')
  return {
    root,
    store(ref = 'refs/heads/main', runId = newRunId()): CacheStore {
      return new CacheStore({ root, env: jobEnv(server, base, { repository: REPOSITORY, runId, ref }), echoLog: false })
    },
    /** Saves raw text as the loop's next revision through the real `@actions/cache`, as a foreign writer would. */
    async plant(loopId: string, text: string): Promise<void> {
      const store = this.store()
      const prefix = store.keyPrefix(loopId)
      const folder = join(root, encodeLoopId(loopId))
      const env = jobEnv(server, base, { repository: REPOSITORY, runId: newRunId(), ref: 'refs/heads/main' })
      const id = await withActionsEnv(
        env,
        async () => {
          const newest = await cache.restoreCache([folder], `${prefix}newest`, [prefix], { lookupOnly: true })
          const next = newest ? Number(newest.slice(prefix.length)) + 1 : 1
          await rm(folder, { recursive: true, force: true })
          await mkdir(folder, { recursive: true })
          await writeFile(join(folder, STATE_FILE), text)
          return cache.saveCache([folder], `${prefix}${next}`)
        },
        { onLine: () => {}, echo: false },
      )
      if (id === -1) throw new Error(`planting a revision of ${loopId} in the cache failed`)
    },
  }
}
