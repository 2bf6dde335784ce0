/**
 * The `artifact` store: every save uploads a snapshot artifact `loop-state-<loop>` (the state, its
 * sidecar and, when given, the loop's audit trail) through the real `@actions/artifact` (v6); a load
 * finds the newest unexpired snapshot of that name across runs through the REST API
 * (`GET /repos/{owner}/{repo}/actions/artifacts?name=`) and downloads it with `@actions/artifact`.
 * Expired snapshots (listed with `expired: true`, or a 410 on download) are skipped with a note.
 *
 * Version: the artifact id. Compare-and-swap is check, upload, then check again: before uploading, the
 * newest snapshot must be the one the caller read; after uploading, of all snapshots newer than that
 * one, the oldest (lowest id: GitHub's ids increase) wins and every other writer deletes its upload and
 * gets a `StoreConflictError`. Two writers that read the same version can therefore not both win. The
 * window left: a reader that lists between a loser's upload and its delete may read the loser's
 * snapshot. In the action the artifact is a mirror and the cache decides (`auto`), and the iteration is
 * claimed in the dispatch inputs besides.
 *
 * Artifact names are unique within a workflow run, so a second save in the same run deletes the run's
 * earlier snapshot first (as `upload-artifact`'s `overwrite` does); the snapshots of earlier runs stay.
 *
 * `@actions/artifact` downloads through `@actions/github`'s Octokit, which fixes its API base URL from
 * `GITHUB_API_URL` when first loaded: on a runner that is the `apiUrl` given here.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { DefaultArtifactClient } from '@actions/artifact'
import { getOctokit } from '@actions/github'
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

export interface ArtifactStoreOptions {
  /** A token that may read (and, to resolve conflicts, delete) the repository's artifacts: `actions: write`. */
  token: string
  /** `owner/name` */
  repository: string
  /** This job's workflow run id (snapshots it uploads belong to it). */
  runId: number
  /** The REST API base URL, e.g. `https://api.github.com`. */
  apiUrl: string
  /** Scratch folder for uploads and downloads (e.g. `<RUNNER_TEMP>/loop-controller-artifacts`). */
  workDir: string
  /** The loop's audit trail folder, uploaded with each snapshot under `audit/`. */
  auditDir?: (loopId: string) => string | undefined
  /** Days GitHub keeps each snapshot (default: the repository's setting). */
  retentionDays?: number
  /** Settings for `@actions/artifact` (ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL), applied around its calls. */
  env?: Record<string, string | undefined>
  /** Where notes go (skipped expired snapshots, conflict clean-up). Default: kept in `notes` only. */
  onNote?: (message: string) => void
  /** Pass `@actions/artifact`'s log lines through to stdout. Default true. */
  echoLog?: boolean
}

interface Snapshot {
  id: number
  name: string
  runId: number
  createdAt: string
  expired: boolean
  digest: string | null
}

interface Downloaded {
  snapshot: Snapshot
  stateText: string | null
  meta: RevisionMeta | null
  folder: string
}

/** The longest artifact name this store makes before hashing the loop part. */
const MAX_NAME = 200

/** The `artifact` store (see the module comment). */
export class ArtifactStore implements Store {
  readonly kind = 'artifact' as const
  /** Notes about what the store skipped or cleaned up, newest last. */
  readonly notes: string[] = []
  private readonly owner: string
  private readonly repo: string
  private readonly octokit: ReturnType<typeof getOctokit>
  private readonly client = new DefaultArtifactClient()

  constructor(private readonly options: ArtifactStoreOptions) {
    const [owner, repo, extra] = options.repository.split('/')
    if (!owner || !repo || extra !== undefined) {
      throw new Error(`ArtifactStore: repository ${JSON.stringify(options.repository)} is invalid: expected owner/name`)
    }
    if (!options.token) throw new Error('ArtifactStore: a token is required to read artifacts across runs')
    if (!Number.isSafeInteger(options.runId) || options.runId <= 0) {
      throw new Error(`ArtifactStore: runId ${options.runId} is invalid: expected the workflow run's positive id`)
    }
    this.owner = owner
    this.repo = repo
    this.octokit = getOctokit(options.token, { baseUrl: options.apiUrl.replace(/\/$/, '') })
  }

  /** The artifact name of the loop's snapshots. */
  artifactName(loopId: string): string {
    const encoded = encodeLoopId(loopId)
    return encoded.length + 20 <= MAX_NAME ? `loop-state-${encoded}` : `loop-state-~${shortHash(loopId)}`
  }

  private quarantineName(loopId: string): string {
    return this.artifactName(loopId).replace(/^loop-state-/, 'loop-quarantine-')
  }

  describe(loopId: string): string {
    return `artifact ${this.artifactName(loopId)} in ${this.options.repository} (newest unexpired snapshot across runs)`
  }

  async load(loopId: string): Promise<Loaded | null> {
    checkLoopId(loopId)
    const head = await this.downloadNewest(loopId)
    if (!head || head.meta?.tombstone) return null
    return this.read(loopId, head)
  }

  /**
   * Copies the audit trail of the loop's newest snapshot into `dir` when `dir` holds no file yet (a
   * fresh runner), so the trail accumulates across jobs and each new snapshot carries all of it.
   * Returns how many files were restored (0 when `dir` already has files or no snapshot has a trail).
   */
  async restoreAudit(loopId: string, dir: string): Promise<number> {
    checkLoopId(loopId)
    if ((await isDirectory(dir)) && (await listFiles(dir)).length > 0) return 0
    const head = await this.downloadNewest(loopId)
    const source = head ? join(head.folder, 'audit') : null
    if (!source || !(await isDirectory(source))) return 0
    const files = await listFiles(source)
    for (const file of files) {
      const target = join(dir, relative(source, file))
      await mkdir(join(target, '..'), { recursive: true })
      await writeFile(target, await readFile(file))
    }
    return files.length
  }

  /**
   * Writes `state` (or, with null, a tombstone: "no state from here on") on top of whatever snapshot is
   * newest, for the `auto` store, whose cache has already decided the compare-and-swap.
   */
  async mirror(loopId: string, state: LoopState | null): Promise<StoreVersion> {
    checkLoopId(loopId)
    const head = (await this.listSnapshots(this.artifactName(loopId)))[0] ?? null
    if (state === null) return this.upload(loopId, head, null, undefined)
    const valid = checkStateToSave(loopId, state)
    return this.upload(loopId, head, JSON.stringify(valid, null, 2), valid.iteration)
  }

  private async read(loopId: string, head: Downloaded): Promise<Loaded> {
    const parsed = parseStoredState(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`)
    if (parsed.kind === 'future') throw parsed.error
    if (parsed.kind === 'invalid') throw await this.quarantine(loopId, head, parsed.reason)
    return { state: parsed.state, version: String(head.snapshot.id) }
  }

  async save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion> {
    checkLoopId(loopId)
    const valid = checkStateToSave(loopId, state)
    const base = await this.checkBase(loopId, expectedVersion)
    return this.upload(loopId, base, JSON.stringify(valid, null, 2), valid.iteration)
  }

  async reset(loopId: string): Promise<void> {
    checkLoopId(loopId)
    const head = await this.downloadNewest(loopId)
    if (!head || head.meta?.tombstone) return
    const parsed = parseStoredState(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`)
    if (parsed.kind !== 'invalid') return
    await this.quarantine(loopId, head, parsed.reason)
    await this.upload(loopId, head.snapshot, null, undefined)
  }

  /** Checks the caller's version against the newest snapshot; returns the snapshot to build on. */
  private async checkBase(loopId: string, expectedVersion: StoreVersion | null): Promise<Snapshot | null> {
    const head = (await this.listSnapshots(this.artifactName(loopId)))[0] ?? null
    if (expectedVersion === null) {
      if (!head) return null
      const downloaded = await this.download(head)
      if (downloaded.meta?.tombstone) return head
      const parsed = parseStoredState(downloaded.stateText ?? '', `artifact ${head.name} #${head.id}`)
      if (parsed.kind === 'future') throw parsed.error
      if (parsed.kind === 'invalid') throw await this.quarantine(loopId, downloaded, parsed.reason)
      throw new StoreConflictError(
        `loop ${loopId}: expected no stored state, but snapshot #${head.id} exists; load it first`,
      )
    }
    if (!head) {
      throw new StoreConflictError(`loop ${loopId}: expected snapshot #${expectedVersion}, but none is left (expired?)`)
    }
    if (String(head.id) !== expectedVersion) {
      const marker = (await this.listSnapshots(this.quarantineName(loopId)))[0]
      if (marker && marker.id > head.id) {
        throw new StateQuarantinedError(
          `loop ${loopId}: snapshot #${head.id} is quarantined (artifact ${marker.name} #${marker.id}); run reset before saving`,
          `artifact ${marker.name} #${marker.id}`,
        )
      }
      throw new StoreConflictError(
        `loop ${loopId}: expected snapshot #${expectedVersion}, but #${head.id} is the newest (another writer saved first)`,
      )
    }
    return head
  }

  private async upload(
    loopId: string,
    base: Snapshot | null,
    stateText: string | null,
    iteration: number | undefined,
  ): Promise<StoreVersion> {
    const name = this.artifactName(loopId)
    const folder = join(this.options.workDir, 'upload', name)
    await rm(folder, { recursive: true, force: true })
    await mkdir(folder, { recursive: true })
    const meta: RevisionMeta = {
      loopId,
      revision: (base?.id ?? 0) + 1,
      runId: String(this.options.runId),
      runAttempt: this.options.env?.GITHUB_RUN_ATTEMPT ?? '1',
      savedAt: new Date().toISOString(),
      tombstone: stateText === null,
      ...(iteration === undefined ? {} : { iteration }),
    }
    await writeFile(join(folder, META_FILE), `${JSON.stringify(meta, null, 2)}\n`)
    if (stateText !== null) await writeFile(join(folder, STATE_FILE), `${stateText}\n`)
    const audit = this.options.auditDir?.(loopId)
    if (audit && (await isDirectory(audit))) {
      for (const file of await listFiles(audit)) {
        const target = join(folder, 'audit', relative(audit, file))
        await mkdir(join(target, '..'), { recursive: true })
        await writeFile(target, await readFile(file))
      }
    }
    // Names are unique per run: a second save in this run replaces the run's earlier snapshot.
    const sameRun = (await this.listSnapshots(name)).find((snapshot) => snapshot.runId === this.options.runId)
    if (sameRun) await this.deleteSnapshot(sameRun, 'replaced by a newer save of the same run')
    const uploaded = await this.actions(async () => {
      try {
        return await this.client.uploadArtifact(name, await listFiles(folder), folder, {
          ...(this.options.retentionDays ? { retentionDays: this.options.retentionDays } : {}),
        })
      } catch (error) {
        const message = (error as Error).message
        if (/\(409\)|already_exists|already exists/i.test(message)) {
          throw new StoreConflictError(`loop ${loopId}: another job of run ${this.options.runId} is saving ${name}`)
        }
        throw new StoreUnavailableError(`loop ${loopId}: uploading artifact ${name} failed: ${message}`)
      }
    })
    const id = uploaded.id
    if (!id) throw new StoreUnavailableError(`loop ${loopId}: uploading artifact ${name} returned no id`)
    // First writer after the base wins: the lowest id newer than the base.
    const rivals = (await this.listSnapshots(name, true)).filter((s) => s.id > (base?.id ?? 0))
    const winner = Math.min(...rivals.map((s) => s.id), id)
    if (winner !== id) {
      await this.deleteSnapshot(
        { id, name, runId: this.options.runId, createdAt: '', expired: false, digest: null },
        'lost a race',
      )
      throw new StoreConflictError(
        `loop ${loopId}: snapshot #${winner} was saved on top of #${base?.id ?? 'nothing'} first; load again and decide`,
      )
    }
    return String(id)
  }

  private async actions<T>(body: () => Promise<T>): Promise<T> {
    return withActionsEnv(this.options.env ?? {}, body, { onLine: () => {}, echo: this.options.echoLog ?? true })
  }

  private note(message: string): void {
    this.notes.push(message)
    this.options.onNote?.(message)
  }

  /** Snapshots of `name` across runs, newest first; expired ones are left out (with a note). `firstPageOnly`: the newest 100, quietly. */
  private async listSnapshots(name: string, firstPageOnly = false): Promise<Snapshot[]> {
    const found: Snapshot[] = []
    try {
      for await (const page of this.octokit.paginate.iterator(this.octokit.rest.actions.listArtifactsForRepo, {
        owner: this.owner,
        repo: this.repo,
        name,
        per_page: 100,
      })) {
        for (const artifact of page.data) {
          found.push({
            id: artifact.id,
            name: artifact.name,
            runId: artifact.workflow_run?.id ?? 0,
            createdAt: artifact.created_at ?? '',
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
    if (expired.length > 0 && !firstPageOnly) {
      this.note(`skipped ${expired.length} expired snapshot(s) of ${name}: #${expired.map((s) => s.id).join(', #')}`)
    }
    return found.filter((snapshot) => !snapshot.expired).sort((a, b) => b.id - a.id)
  }

  private async deleteSnapshot(snapshot: Snapshot, why: string): Promise<void> {
    try {
      await this.octokit.rest.actions.deleteArtifact({ owner: this.owner, repo: this.repo, artifact_id: snapshot.id })
      this.note(`deleted snapshot ${snapshot.name} #${snapshot.id}: ${why}`)
    } catch (error) {
      this.note(`could not delete snapshot ${snapshot.name} #${snapshot.id} (${why}): ${(error as Error).message}`)
    }
  }

  /** The newest readable snapshot; one that expired between listing and download is skipped. */
  private async downloadNewest(loopId: string): Promise<Downloaded | null> {
    for (const snapshot of await this.listSnapshots(this.artifactName(loopId))) {
      try {
        return await this.download(snapshot)
      } catch (error) {
        if (error instanceof ExpiredError) {
          this.note(
            `snapshot ${snapshot.name} #${snapshot.id} expired before it could be downloaded; trying an older one`,
          )
          continue
        }
        throw error
      }
    }
    return null
  }

  private async download(snapshot: Snapshot): Promise<Downloaded> {
    const folder = join(this.options.workDir, 'download', `${snapshot.name}-${snapshot.id}`)
    await rm(folder, { recursive: true, force: true })
    await mkdir(folder, { recursive: true })
    const result = await this.actions(async () => {
      try {
        return await this.client.downloadArtifact(snapshot.id, {
          path: folder,
          ...(snapshot.digest ? { expectedHash: snapshot.digest } : {}),
          findBy: {
            token: this.options.token,
            workflowRunId: snapshot.runId,
            repositoryOwner: this.owner,
            repositoryName: this.repo,
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
    const stateText = await readFile(join(folder, STATE_FILE), 'utf8').catch(() => null)
    const metaText = await readFile(join(folder, META_FILE), 'utf8').catch(() => null)
    let meta: RevisionMeta | null = null
    try {
      meta = metaText ? (JSON.parse(metaText) as RevisionMeta) : null
    } catch {
      meta = null
    }
    return { snapshot, stateText, meta, folder }
  }

  /** Keeps a bad snapshot aside (a local copy and a `loop-quarantine-` artifact) and returns the error. */
  private async quarantine(loopId: string, head: Downloaded, reason: string): Promise<StateQuarantinedError> {
    const keep = join(this.options.workDir, 'quarantine', `${head.snapshot.name}-${head.snapshot.id}-${Date.now()}`)
    await mkdir(keep, { recursive: true })
    for (const file of await listFiles(head.folder)) {
      const target = join(keep, relative(head.folder, file))
      await mkdir(join(target, '..'), { recursive: true })
      await writeFile(target, await readFile(file))
    }
    await writeFile(
      join(keep, 'QUARANTINED.json'),
      `${JSON.stringify({ loopId, snapshot: head.snapshot.id, reason, at: new Date().toISOString() }, null, 2)}\n`,
    )
    const name = this.quarantineName(loopId)
    const marker = (await this.listSnapshots(name))[0]
    if (!marker || marker.id < head.snapshot.id) {
      const sameRun = (await this.listSnapshots(name)).find((s) => s.runId === this.options.runId)
      if (sameRun) await this.deleteSnapshot(sameRun, 'replaced by a newer quarantine in the same run')
      await this.actions(async () => this.client.uploadArtifact(name, await listFiles(keep), keep)).catch(
        (error: unknown) => this.note(`could not upload quarantine artifact ${name}: ${(error as Error).message}`),
      )
    }
    return new StateQuarantinedError(
      `loop ${loopId}: ${reason}. Snapshot #${head.snapshot.id} was quarantined (artifact ${name}; local copy ${keep}); fix or discard it, then reset the loop's state before saving`,
      keep,
    )
  }
}

class ExpiredError extends Error {}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  )
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}
