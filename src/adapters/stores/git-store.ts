/**
 * The `git` store: state (and, when given, the audit trail) committed to a branch of a remote
 * (`loop-state` by default), one folder per loop: `<loop>/loop-state.json`, `<loop>/loop-state.meta.json`,
 * `<loop>/audit/...`.
 *
 * The user's repository and work tree are never touched: the branch is read and written through a
 * private bare repository (`workDir`) with plumbing and leased pushes (`remote-branch.ts`).
 *
 * Version: the last commit that changed the loop's folder. A save whose lease fails because the branch
 * moved is retried on the new tip when the loop's own folder is unchanged (another loop saved); when
 * the folder changed, it is a `StoreConflictError`. A push declined for another reason (a hook, branch
 * protection, permissions) is an error that names git's message; nothing is lost either way.
 *
 * Quarantine: a state that fails validation is moved to `<loop>/loop-state.invalid-<time>.json` in a
 * commit, with a marker `<loop>/QUARANTINED.json` that makes `load` and `save` refuse until `reset`
 * removes the marker (the invalid file stays in the branch).
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ListedLoop } from '../../domain/report/loops-table.js'
import type { LoopState } from '../../domain/state.js'
import type { Identity } from '../../ports/git.js'
import {
  type Loaded,
  type LoopLister,
  type LoopReader,
  StateQuarantinedError,
  type Store,
  StoreConflictError,
  type StoreVersion,
} from '../../ports/store.js'
import { loopsOnBranch, QUARANTINE_MARKER } from './branch-loops.js'
import { GitPushRejectedError, RemoteBranch } from './remote-branch.js'
import {
  checkLoopId,
  checkStateToSave,
  loopFolder,
  loopIdNamedIn,
  META_FILE,
  parseStoredState,
  type RevisionMeta,
  STATE_FILE,
  shortHash,
} from './shared.js'

export { GitPushRejectedError }

const MARKER = QUARANTINE_MARKER
const ATTEMPTS = 15

export interface GitStoreOptions {
  /** The user's repository: only read, to resolve `remote` when it is a remote name. */
  repoDir: string
  /** A remote name of `repoDir` (default `origin`) or a URL. */
  remote?: string
  /** The branch that holds the states. Default `loop-state`. */
  branch?: string
  /** Who commits. */
  identity: Identity
  /** A token for HTTPS remotes, sent as basic auth `x-access-token:<token>` (as GitHub takes it). */
  token?: string
  /** The private bare repository the store works in. Default: a folder under the OS temp dir. */
  workDir?: string
  /** The loop's audit trail folder, committed under `<loop>/audit/` with each save. */
  auditDir?: (loopId: string) => string | undefined
  /** Shown when a state from a newer schema is refused. */
  toolVersion?: string
  /** Recorded in each save's sidecar (the caller passes the run's GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT). Default: `local`, attempt 1. */
  runId?: string
  runAttempt?: string
}

/** The `git` store (see the module comment). */
export class GitStore implements Store, LoopLister, LoopReader {
  readonly kind = 'git' as const
  private readonly branch: string
  private readonly remote: string
  private readonly stateBranch: RemoteBranch
  private readonly runId: string
  private readonly runAttempt: string

  constructor(private readonly options: GitStoreOptions) {
    this.branch = options.branch ?? 'loop-state'
    this.runId = options.runId ?? 'local'
    this.runAttempt = options.runAttempt ?? '1'
    this.remote = options.remote ?? 'origin'
    if (!/^[A-Za-z0-9._/-]+$/.test(this.branch) || this.branch.includes('..')) {
      throw new Error(`GitStore: branch ${JSON.stringify(this.branch)} is invalid: expected a plain branch name`)
    }
    this.stateBranch = new RemoteBranch({
      repoDir: options.repoDir,
      remote: this.remote,
      branch: this.branch,
      identity: options.identity,
      token: options.token,
      workDir:
        options.workDir ?? join(tmpdir(), 'loop-controller-git-store', shortHash(`${options.repoDir}\n${this.remote}`)),
    })
  }

  describe(loopId: string): string {
    return `${this.describeAll()}, folder ${this.folder(loopId)}/`
  }

  describeAll(): string {
    return `git branch ${this.branch} of ${this.remote}`
  }

  async load(loopId: string): Promise<Loaded | null> {
    checkLoopId(loopId)
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const tip = await this.stateBranch.fetch()
      if (!tip.commit) return null
      await this.refuseIfQuarantined(loopId, tip.commit)
      const text = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${STATE_FILE}`)
      if (text === null) return null
      const parsed = parseStoredState(
        text,
        `${this.branch}:${this.folder(loopId)}/${STATE_FILE}`,
        this.options.toolVersion,
      )
      if (parsed.kind === 'future') throw parsed.error
      if (parsed.kind === 'valid') return { state: parsed.state, version: await this.folderVersion(loopId, tip.commit) }
      const outcome = await this.quarantine(loopId, tip.commit, text, parsed.reason)
      if (outcome) throw outcome
    }
    throw new Error(`loop ${loopId}: the ${this.branch} branch kept moving while it was read; try again`)
  }

  async save(loopId: string, state: LoopState, expectedVersion: StoreVersion | null): Promise<StoreVersion> {
    checkLoopId(loopId)
    const valid = checkStateToSave(loopId, state)
    const folder = this.folder(loopId)
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const tip = await this.stateBranch.fetch()
      let current: string | null = null
      if (tip.commit) {
        await this.refuseIfQuarantined(loopId, tip.commit)
        const text = await this.stateBranch.readFile(tip.commit, `${folder}/${STATE_FILE}`)
        if (text !== null) {
          current = await this.folderVersion(loopId, tip.commit)
          if (expectedVersion === null) {
            const parsed = parseStoredState(text, `${this.branch}:${folder}/${STATE_FILE}`, this.options.toolVersion)
            if (parsed.kind === 'future') throw parsed.error
            if (parsed.kind === 'invalid') {
              const outcome = await this.quarantine(loopId, tip.commit, text, parsed.reason)
              if (outcome) throw outcome
              continue
            }
          }
        }
      }
      if (current !== expectedVersion) {
        throw new StoreConflictError(
          `loop ${loopId}: expected version ${expectedVersion ?? 'none (a new loop)'} on ${this.branch}, found ${current ?? 'none'}; another writer saved first`,
        )
      }
      const meta: RevisionMeta & { nonce: string } = {
        loopId,
        revision: 0,
        runId: this.runId,
        runAttempt: this.runAttempt,
        savedAt: new Date().toISOString(),
        tombstone: false,
        iteration: valid.iteration,
        nonce: randomUUID(),
      }
      const files = new Map<string, string | Buffer>([
        [`${folder}/${STATE_FILE}`, `${JSON.stringify(valid, null, 2)}\n`],
        [`${folder}/${META_FILE}`, `${JSON.stringify(meta, null, 2)}\n`],
      ])
      const audit = this.options.auditDir?.(loopId)
      const auditFiles = audit && (await isDirectory(audit)) ? await listFiles(audit) : []
      for (const file of auditFiles) files.set(`${folder}/audit/${relative(audit!, file)}`, await readFile(file))
      const commit = await this.stateBranch.commit(
        tip.commit,
        files,
        auditFiles.length ? [`${folder}/audit/`] : [],
        `loop ${loopId}: iteration ${valid.iteration}, stage ${valid.stage}, ${valid.status}`,
      )
      if (await this.stateBranch.push(commit, tip.commit)) return commit
      // The branch moved: another loop (retry on the new tip) or this loop (conflict, found above). A
      // short jittered pause keeps many loops saving at once (max-loops' queue) from colliding again.
      await sleep(Math.min(2000, 20 * 2 ** attempt) * (0.5 + Math.random()))
    }
    throw new StoreConflictError(`loop ${loopId}: the ${this.branch} branch kept moving; load again and retry`)
  }

  /** The ids of the loops whose state the branch holds (a quarantined loop has none until reset). */
  async listLoops(): Promise<string[]> {
    const tip = await this.stateBranch.fetch()
    if (!tip.commit) return []
    const ids: string[] = []
    for (const folder of await this.stateBranch.topLevel(tip.commit)) {
      const text = await this.stateBranch.readFile(tip.commit, `${folder}/${STATE_FILE}`)
      if (text === null) continue
      // Not JSON, or no loop id: loading it quarantines it, and it is no loop to sweep.
      const loopId = loopIdNamedIn(text)
      if (loopId !== null && this.folder(loopId) === folder) ids.push(loopId)
    }
    return ids
  }

  /** Every loop folder on the branch, read only: a damaged or quarantined state is a row with its problem. */
  async readLoops(): Promise<ListedLoop[]> {
    const tip = await this.stateBranch.fetch()
    if (!tip.commit) return []
    return loopsOnBranch(this.stateBranch, tip.commit, this.branch, this.options.toolVersion)
  }

  /**
   * Copies the audit trail committed with the loop's state into `dir` when `dir` holds no file yet (a
   * fresh runner): each save replaces `<loop>/audit/` with the local folder, so without this the trail
   * would hold only the last job's part. Returns how many files were restored.
   */
  async restoreAudit(loopId: string, dir: string): Promise<number> {
    checkLoopId(loopId)
    if ((await isDirectory(dir)) && (await listFiles(dir)).length > 0) return 0
    const tip = await this.stateBranch.fetch()
    if (!tip.commit) return 0
    const prefix = `${this.folder(loopId)}/audit/`
    const paths = await this.stateBranch.filesUnder(tip.commit, prefix)
    for (const path of paths) {
      const text = await this.stateBranch.readFile(tip.commit, path)
      if (text === null) continue
      const target = join(dir, path.slice(prefix.length))
      await mkdir(join(target, '..'), { recursive: true })
      await writeFile(target, text)
    }
    return paths.length
  }

  async reset(loopId: string): Promise<void> {
    checkLoopId(loopId)
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const tip = await this.stateBranch.fetch()
      if (!tip.commit) return
      const marker = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${MARKER}`)
      if (marker === null) {
        // An invalid state nobody loaded yet: quarantine it first, so the reset moves past it.
        const text = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${STATE_FILE}`)
        if (text === null) return
        const parsed = parseStoredState(text, 'state', this.options.toolVersion)
        if (parsed.kind !== 'invalid') return
        await this.quarantine(loopId, tip.commit, text, parsed.reason)
        continue
      }
      const commit = await this.stateBranch.commit(
        tip.commit,
        new Map(),
        [`${this.folder(loopId)}/${MARKER}`],
        `loop ${loopId}: reset after quarantine`,
      )
      if (await this.stateBranch.push(commit, tip.commit)) return
    }
    throw new Error(`loop ${loopId}: the ${this.branch} branch kept moving during reset; try again`)
  }

  private folder(loopId: string): string {
    return loopFolder(loopId)
  }

  /** The loop's version: the last commit that changed its folder. */
  private async folderVersion(loopId: string, commit: string): Promise<string> {
    return this.stateBranch.lastChange(commit, `${this.folder(loopId)}/`)
  }

  private async refuseIfQuarantined(loopId: string, commit: string): Promise<void> {
    const marker = await this.stateBranch.readFile(commit, `${this.folder(loopId)}/${MARKER}`)
    if (marker === null) return
    let kept = `${this.branch}:${this.folder(loopId)}/`
    let reason = 'it failed validation'
    try {
      const info = JSON.parse(marker) as { file?: string; reason?: string }
      if (info.file) kept = `${this.branch}:${info.file}`
      if (info.reason) reason = info.reason
    } catch {
      // A damaged marker still means quarantined.
    }
    throw new StateQuarantinedError(
      `loop ${loopId}: the state is quarantined (${reason}); it is kept at ${kept}. Fix or discard it, then reset the loop's state before saving`,
      kept,
    )
  }

  /** Moves the bad state aside in a commit; returns the error to throw, or null when the branch moved. */
  private async quarantine(
    loopId: string,
    tip: string,
    text: string,
    reason: string,
  ): Promise<StateQuarantinedError | null> {
    const folder = this.folder(loopId)
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const kept = `${folder}/loop-state.invalid-${stamp}.json`
    const commit = await this.stateBranch.commit(
      tip,
      new Map([
        [kept, text],
        [
          `${folder}/${MARKER}`,
          `${JSON.stringify({ loopId, file: kept, reason, at: new Date().toISOString() }, null, 2)}\n`,
        ],
      ]),
      [`${folder}/${STATE_FILE}`],
      `loop ${loopId}: quarantine an invalid state`,
    )
    if (!(await this.stateBranch.push(commit, tip))) return null
    return new StateQuarantinedError(
      `loop ${loopId}: ${reason}. It was moved to ${this.branch}:${kept} (kept, never overwritten); fix or discard it, then reset the loop's state before saving`,
      `${this.branch}:${kept}`,
    )
  }
}

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
