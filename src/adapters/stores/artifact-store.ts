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
 * The audit trail is kept in parts (`artifact-trail.ts`): a snapshot uploads only the trail bytes the
 * snapshot it builds on does not keep (new files, the journey log's new lines) and a manifest of what
 * changed, naming the earlier snapshots that hold the rest; `restoreAudit` gathers them on a fresh
 * runner. So each save uploads about one iteration's worth and a loop's artifacts grow with its
 * iterations, not with their square. Nothing is pruned that a manifest leans on: the only deletions
 * are a race's loser (nobody builds on it) and a run's replaced snapshot, whose parts the replacing
 * save uploads again, as it does the parts of a snapshot in the last quarter of its retention. A
 * snapshot that expired anyway costs the files only it held (a note says which); the state, always
 * whole in the newest snapshot, is not affected, and the next save from a runner that still has those
 * files uploads them again.
 *
 * `@actions/artifact` downloads through `@actions/github`'s Octokit, which fixes its API base URL from
 * `GITHUB_API_URL` when first loaded: on a runner that is the `apiUrl` given here.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { LoopState } from '../../domain/state.js'
import {
  type Loaded,
  StateQuarantinedError,
  type Store,
  StoreConflictError,
  type StoreVersion,
} from '../../ports/store.js'
import { ExpiredError, type Snapshot, Snapshots } from './artifact-snapshots.js'
import {
  assembleTrail,
  chooseAnchor,
  EMPTY_TRAIL,
  isDirectory,
  listFiles,
  type ResolvedTrail,
  readStoredTrail,
  resolveTrail,
  type StoredTrail,
  snapshotsOf,
  stageTrail,
  storedTrailFor,
  storedTrailText,
  TRAIL_MANIFEST,
} from './artifact-trail.js'
import {
  checkLoopId,
  checkStateToSave,
  encodeLoopId,
  META_FILE,
  type NoteLevel,
  type NoteSink,
  parseStoredState,
  type RevisionMeta,
  STATE_FILE,
  StoreUnavailableError,
  shortHash,
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
  /** Where notes go (expired snapshots, lost trail files, conflict clean-up). Default: kept in `notes` only. */
  onNote?: NoteSink
  /** Pass `@actions/artifact`'s log lines through to stdout. Default true. */
  echoLog?: boolean
}

interface Downloaded {
  snapshot: Snapshot
  stateText: string | null
  meta: RevisionMeta | null
  folder: string
  trail: StoredTrail
}

/** The longest artifact name this store makes before hashing the loop part. */
const MAX_NAME = 200

/** The `artifact` store (see the module comment). */
export class ArtifactStore implements Store {
  readonly kind = 'artifact' as const
  /** Notes about what the store skipped or cleaned up, newest last. */
  readonly notes: string[] = []
  private readonly snapshots: Snapshots
  /** What is known of snapshots read so far, by artifact id (a snapshot never changes). */
  private readonly stored = new Map<number, { folder: string | null; trail: StoredTrail }>()
  private readonly resolved = new Map<number, ResolvedTrail>()

  constructor(private readonly options: ArtifactStoreOptions) {
    const [owner, repo, extra] = options.repository.split('/')
    if (!owner || !repo || extra !== undefined) {
      throw new Error(`ArtifactStore: repository ${JSON.stringify(options.repository)} is invalid: expected owner/name`)
    }
    if (!options.token) throw new Error('ArtifactStore: a token is required to read artifacts across runs')
    if (!Number.isSafeInteger(options.runId) || options.runId <= 0) {
      throw new Error(`ArtifactStore: runId ${options.runId} is invalid: expected the workflow run's positive id`)
    }
    this.snapshots = new Snapshots({
      token: options.token,
      owner,
      repo,
      apiUrl: options.apiUrl,
      env: options.env ?? {},
      echoLog: options.echoLog ?? true,
      note: (message, level) => this.note(message, level),
    })
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
   * Brings the audit trail of the loop's newest snapshot into `dir` when `dir` holds no file yet (a
   * fresh runner), gathering its parts from the earlier snapshots its manifest names, so the trail
   * accumulates across jobs. A file whose part is in a snapshot that expired or was deleted is left out
   * with a note (the rest is restored). Returns how many files were restored (0 when `dir` already has
   * files or no snapshot has a trail).
   */
  async restoreAudit(loopId: string, dir: string): Promise<number> {
    checkLoopId(loopId)
    if ((await isDirectory(dir)) && (await listFiles(dir)).length > 0) return 0
    const head = await this.downloadNewest(loopId)
    if (!head) return 0
    const live = new Map((await this.snapshots.list(head.snapshot.name)).map((s) => [s.id, s]))
    const { trail, complete } = await this.resolveTrail(head.snapshot, live)
    const folders = new Map<number, string>()
    for (const id of snapshotsOf(trail)) {
      const folder = this.stored.get(id)?.folder ?? (live.has(id) ? await this.tryDownload(live.get(id)!) : null)
      if (folder) folders.set(id, folder)
    }
    const { restored, lost } = await assembleTrail(trail, folders, dir)
    const where = `snapshot ${head.snapshot.name} #${head.snapshot.id}`
    const cut = `the trail of ${where} leans on a snapshot that expired or was deleted: older files are not restored`
    if (!complete) this.note(cut, 'warning')
    if (lost.length > 0) {
      this.note(
        `${lost.length} audit trail file(s) of ${where} could not be restored (a snapshot holding part of them expired or was deleted): ${lost.slice(0, 10).join(', ')}${lost.length > 10 ? ', …' : ''}`,
        'warning',
      )
    }
    return restored
  }

  /**
   * Writes `state` (or, with null, a tombstone: "no state from here on") on top of whatever snapshot is
   * newest, for the `auto` store, whose cache has already decided the compare-and-swap.
   */
  async mirror(loopId: string, state: LoopState | null): Promise<StoreVersion> {
    checkLoopId(loopId)
    const head = (await this.snapshots.list(this.artifactName(loopId)))[0] ?? null
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
    const head = (await this.snapshots.list(this.artifactName(loopId)))[0] ?? null
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
      const marker = (await this.snapshots.list(this.quarantineName(loopId)))[0]
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
    const snapshots = await this.snapshots.list(name)
    // Names are unique per run: a second save in this run replaces the run's earlier snapshot.
    const sameRun = snapshots.find((snapshot) => snapshot.runId === this.options.runId)
    const audit = this.options.auditDir?.(loopId)
    let trail: StoredTrail | null = null
    if (audit) {
      // Only what the base does not keep in a snapshot that stays: the parts of the snapshot about to
      // be replaced, of one gone or expiring soon, are uploaded again (see artifact-trail.ts).
      const live = new Map(snapshots.map((snapshot) => [snapshot.id, snapshot]))
      const doomed = (id: number) => id === sameRun?.id || !live.has(id) || expiresSoon(live.get(id)!)
      const built = base ? await this.resolveTrail(base, live) : null
      const { manifest } = await stageTrail(audit, built?.trail ?? EMPTY_TRAIL, doomed, folder)
      const anchorId = chooseAnchor(built, doomed)
      const anchor = anchorId === null ? null : live.get(anchorId)
      trail = storedTrailFor(
        manifest,
        anchor ? { id: anchor.id, trail: (await this.resolveTrail(anchor, live)).trail } : null,
      )
      await writeFile(join(folder, TRAIL_MANIFEST), storedTrailText(trail))
    }
    if (sameRun) await this.snapshots.delete(sameRun, 'replaced by a newer save of the same run')
    const uploaded = await this.snapshots.actions(async (client) => {
      try {
        return await client.uploadArtifact(name, await listFiles(folder), folder, {
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
    const rivals = (await this.snapshots.list(name, true)).filter((s) => s.id > (base?.id ?? 0))
    const winner = Math.min(...rivals.map((s) => s.id), id)
    if (winner !== id) {
      await this.snapshots.delete(
        { id, name, runId: this.options.runId, createdAt: '', expiresAt: '', expired: false, digest: null },
        'lost a race',
      )
      throw new StoreConflictError(
        `loop ${loopId}: snapshot #${winner} was saved on top of #${base?.id ?? 'nothing'} first; load again and decide`,
      )
    }
    // Known without a download for this job's next save; its folder is reused by the next upload.
    if (trail) this.stored.set(id, { folder: null, trail: await readStoredTrail(folder, id) })
    return String(id)
  }

  /**
   * The whole trail of `snapshot`, down its lineage of manifests (see artifact-trail.ts); a snapshot
   * of the lineage that is gone cuts it (`complete` false). When a snapshot cannot be read at all, an
   * empty trail: the save then uploads the whole trail, which is always right, only bigger.
   */
  private async resolveTrail(snapshot: Snapshot, live: ReadonlyMap<number, Snapshot>): Promise<ResolvedTrail> {
    const open = async (id: number) => {
      const known = this.stored.get(id)
      if (known) return known.trail
      const found = id === snapshot.id ? snapshot : live.get(id)
      return found && (await this.tryDownload(found)) !== null ? this.stored.get(id)!.trail : null
    }
    try {
      return await resolveTrail(snapshot.id, open, this.resolved)
    } catch (error) {
      this.note(
        `could not read the trail of ${snapshot.name} #${snapshot.id} (${(error as Error).message}); it counts as empty`,
      )
      return { trail: EMPTY_TRAIL, lineage: [], complete: false }
    }
  }

  /** Downloads a snapshot; its folder, or null when it expired meanwhile. */
  private async tryDownload(snapshot: Snapshot): Promise<string | null> {
    try {
      return (await this.download(snapshot)).folder
    } catch (error) {
      if (error instanceof ExpiredError) return null
      throw error
    }
  }

  private note(message: string, level: NoteLevel = 'info'): void {
    this.notes.push(message)
    this.options.onNote?.(message, level)
  }

  /** The newest readable snapshot; one that expired between listing and download is skipped. */
  private async downloadNewest(loopId: string): Promise<Downloaded | null> {
    for (const snapshot of await this.snapshots.list(this.artifactName(loopId))) {
      try {
        return await this.download(snapshot)
      } catch (error) {
        if (error instanceof ExpiredError) {
          this.note(
            `snapshot ${snapshot.name} #${snapshot.id} expired before it could be downloaded; trying an older one (a rollback)`,
            'warning',
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
    await this.snapshots.download(snapshot, folder)
    const stateText = await readFile(join(folder, STATE_FILE), 'utf8').catch(() => null)
    const metaText = await readFile(join(folder, META_FILE), 'utf8').catch(() => null)
    let meta: RevisionMeta | null = null
    try {
      meta = metaText ? (JSON.parse(metaText) as RevisionMeta) : null
    } catch {
      meta = null
    }
    const trail = await readStoredTrail(folder, snapshot.id).catch((error: unknown): StoredTrail => {
      this.note(
        `the trail manifest of snapshot ${snapshot.name} #${snapshot.id} is unreadable: ${(error as Error).message}`,
      )
      return { base: null, files: {} }
    })
    this.stored.set(snapshot.id, { folder, trail })
    return { snapshot, stateText, meta, folder, trail }
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
    const marker = (await this.snapshots.list(name))[0]
    if (!marker || marker.id < head.snapshot.id) {
      const sameRun = (await this.snapshots.list(name)).find((s) => s.runId === this.options.runId)
      if (sameRun) await this.snapshots.delete(sameRun, 'replaced by a newer quarantine in the same run')
      await this.snapshots
        .actions(async (client) => client.uploadArtifact(name, await listFiles(keep), keep))
        .catch((error: unknown) =>
          this.note(`could not upload quarantine artifact ${name}: ${(error as Error).message}`, 'warning'),
        )
    }
    return new StateQuarantinedError(
      `loop ${loopId}: ${reason}. Snapshot #${head.snapshot.id} was quarantined (artifact ${name}; local copy ${keep}); fix or discard it, then reset the loop's state before saving`,
      keep,
    )
  }
}

/** Whether a snapshot is in the last quarter of its life (GitHub's retention), so a save keeps no part in it. */
function expiresSoon(snapshot: Snapshot): boolean {
  const created = Date.parse(snapshot.createdAt)
  const expires = Date.parse(snapshot.expiresAt)
  if (Number.isNaN(created) || Number.isNaN(expires)) return false
  return expires - Date.now() < (expires - created) / 4
}
