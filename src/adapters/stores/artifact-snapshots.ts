/**
 * The artifact store's transport: list, download and delete a loop's snapshot artifacts across runs
 * through the REST API and the real `@actions/artifact` (v6). What a snapshot means is
 * `artifact-store.ts`'s business; this module only moves them.
 *
 * `@actions/artifact` (with its own Azure blob SDK and archiver, a large part of the bundle) is loaded at
 * the first upload or download, not with this module: listing is the REST API, so a load that finds no
 * snapshot, or an `auto` job that reads its state from the cache and saves none, never parses it.
 */
import { mkdir, rm } from 'node:fs/promises'
import type { ArtifactClient } from '@actions/artifact'
import { createOctokit, type OctokitClient } from '../github-client.js'
import { type NoteSink, StoreUnavailableError, withActionsEnv } from './shared.js'

/** One snapshot artifact as the REST API lists it. */
export interface Snapshot {
  id: number
  name: string
  runId: number
  createdAt: string
  expiresAt: string
  expired: boolean
  digest: string | null
}

/** A snapshot that expired between listing and download (GitHub answers 410). */
export class ExpiredError extends Error {}

export interface SnapshotsOptions {
  token: string
  owner: string
  repo: string
  apiUrl: string
  env: Record<string, string | undefined>
  echoLog: boolean
  note: NoteSink
}

/** The snapshots of a repository (see the module comment). */
export class Snapshots {
  private readonly octokit: OctokitClient
  private loadedClient: Promise<ArtifactClient> | undefined

  constructor(private readonly options: SnapshotsOptions) {
    // The same bounded retries (5xx, network) and rate-limit waits as every other call of the job.
    this.octokit = createOctokit({
      token: options.token,
      owner: options.owner,
      repo: options.repo,
      baseUrl: options.apiUrl,
      logger: { warning: (message) => options.note(message, 'info'), debug: () => {} },
    })
  }

  /**
   * Runs a call of `@actions/artifact` with the job's settings applied. The module is loaded before
   * the settings are, so it reads the environment at load as it did when it was imported at start-up.
   */
  async actions<T>(body: (client: ArtifactClient) => Promise<T>): Promise<T> {
    this.loadedClient ??= import('@actions/artifact').then(({ DefaultArtifactClient }) => new DefaultArtifactClient())
    const client = await this.loadedClient
    return withActionsEnv(this.options.env, () => body(client), { onLine: () => {}, echo: this.options.echoLog })
  }

  /** Snapshots of `name` across runs, newest first; expired ones are left out (with a note). `firstPageOnly`: the newest 100, quietly. */
  async list(name: string, firstPageOnly = false): Promise<Snapshot[]> {
    const found: Snapshot[] = []
    try {
      for await (const page of this.octokit.paginate.iterator(this.octokit.rest.actions.listArtifactsForRepo, {
        owner: this.options.owner,
        repo: this.options.repo,
        name,
        per_page: 100,
      })) {
        for (const artifact of page.data) {
          found.push({
            id: artifact.id,
            name: artifact.name,
            runId: artifact.workflow_run?.id ?? 0,
            createdAt: artifact.created_at ?? '',
            expiresAt: artifact.expires_at ?? '',
            expired: artifact.expired,
            digest: (artifact as { digest?: string | null }).digest ?? null,
          })
        }
        if (firstPageOnly) break
      }
    } catch (error) {
      throw new StoreUnavailableError(`listing artifacts named ${name} failed: ${(error as Error).message}`)
    }
    const expired = found.filter((snapshot) => snapshot.expired)
    const live = found.filter((snapshot) => !snapshot.expired).sort((a, b) => b.id - a.id)
    if (expired.length > 0 && !firstPageOnly) {
      // Older snapshots expire as designed; one newer than every live snapshot means a rollback.
      const newestLive = live[0]?.id ?? 0
      const newer = expired.filter((snapshot) => snapshot.id > newestLive)
      if (newer.length > 0) {
        this.options.note(
          `the ${newer.length} newest snapshot(s) of ${name} expired (${idList(newer)}): ${live[0] ? `what is read is the older snapshot #${live[0].id}, a rollback` : 'no snapshot of it is left'}`,
          'warning',
        )
      } else {
        this.options.note(`skipped ${expired.length} expired snapshot(s) of ${name}: ${idList(expired)}`, 'info')
      }
    }
    return live
  }

  async delete(snapshot: Snapshot, why: string): Promise<void> {
    try {
      await this.octokit.rest.actions.deleteArtifact({
        owner: this.options.owner,
        repo: this.options.repo,
        artifact_id: snapshot.id,
      })
      this.options.note(`deleted snapshot ${snapshot.name} #${snapshot.id}: ${why}`, 'info')
    } catch (error) {
      this.options.note(
        `could not delete snapshot ${snapshot.name} #${snapshot.id} (${why}): ${(error as Error).message}`,
        'info',
      )
    }
  }

  /** Downloads `snapshot` into a fresh `folder`; throws `ExpiredError` when GitHub no longer has it. */
  async download(snapshot: Snapshot, folder: string): Promise<void> {
    await rm(folder, { recursive: true, force: true })
    await mkdir(folder, { recursive: true })
    const result = await this.actions(async (client) => {
      try {
        return await client.downloadArtifact(snapshot.id, {
          path: folder,
          ...(snapshot.digest ? { expectedHash: snapshot.digest } : {}),
          findBy: {
            token: this.options.token,
            workflowRunId: snapshot.runId,
            repositoryOwner: this.options.owner,
            repositoryName: this.options.repo,
          },
        })
      } catch (error) {
        const message = (error as Error).message
        if (/\b410\b|expired/i.test(message) || (error as { status?: number }).status === 410) {
          throw new ExpiredError(message)
        }
        throw new StoreUnavailableError(`downloading snapshot ${snapshot.name} #${snapshot.id} failed: ${message}`)
      }
    })
    if (result.digestMismatch) {
      throw new StoreUnavailableError(
        `snapshot ${snapshot.name} #${snapshot.id} arrived damaged (its sha256 does not match ${snapshot.digest}); try again`,
      )
    }
  }
}

/** Snapshot ids for a note: the first ten, then how many more. */
function idList(snapshots: readonly Snapshot[]): string {
  const shown = snapshots.slice(0, 10).map((snapshot) => `#${snapshot.id}`)
  return snapshots.length > 10 ? `${shown.join(', ')} and ${snapshots.length - 10} more` : shown.join(', ')
}
