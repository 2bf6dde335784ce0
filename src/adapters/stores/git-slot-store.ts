/**
 * The slots record (`queue.json`) at the top of the `git` store's branch, beside the loops' folders.
 * A change reads the record and the loops' statuses (their `loop-state.json`) at the branch's tip,
 * commits the new record on that tip and pushes it under a lease on the tip it read: when another job
 * moved the branch (a loop's save, another change of the record), the change runs again on the new tip.
 * So every version of `queue.json` in the branch's history is one rule applied to the version before.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { EMPTY_SLOTS, loopsNamed, parseSlotsRecord, type SlotsRecord, type Statuses } from '../../domain/slots.js'
import { LOOP_STATUSES, type LoopStatus } from '../../domain/stages.js'
import type { Identity } from '../../ports/git.js'
import { type SlotChange, type SlotStore, SlotStoreBusyError } from '../../ports/slots.js'
import { RemoteBranch } from './remote-branch.js'
import { loopFolder, STATE_FILE } from './shared.js'

export const SLOTS_FILE = 'queue.json'
const ATTEMPTS = 20

export interface GitSlotStoreOptions {
  /** The user's repository: only read, to resolve `remote` when it is a remote name. */
  repoDir: string
  /** A remote name of `repoDir` (default `origin`) or a URL. */
  remote?: string
  /** The git store's branch. Default `loop-state`. */
  branch?: string
  identity: Identity
  token?: string
  /** The private bare repository to work in (the git store's may be shared: calls are sequential). */
  workDir: string
  /** Who changes the record, in the commit message (e.g. `run 123`). */
  by?: string
}

export class GitSlotStore implements SlotStore {
  private readonly branch: RemoteBranch
  private readonly remote: string

  constructor(private readonly options: GitSlotStoreOptions) {
    this.remote = options.remote ?? 'origin'
    this.branch = new RemoteBranch({
      repoDir: options.repoDir,
      remote: this.remote,
      branch: options.branch ?? 'loop-state',
      identity: options.identity,
      token: options.token,
      workDir: options.workDir,
    })
  }

  describe(): string {
    return `git branch ${this.branch.name} of ${this.remote}, file ${SLOTS_FILE}`
  }

  /** The record at the branch's tip (empty before the first change): a read, nothing written. */
  async current(): Promise<SlotsRecord> {
    const tip = await this.branch.fetch()
    return tip.commit ? this.read(tip.commit) : EMPTY_SLOTS
  }

  async update<T>(
    loops: readonly string[],
    change: (record: SlotsRecord, statuses: Statuses) => SlotChange<T>,
  ): Promise<T> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const tip = await this.branch.fetch()
      const record = tip.commit ? await this.read(tip.commit) : EMPTY_SLOTS
      const statuses = tip.commit ? await this.statuses(tip.commit, loopsNamed(record, loops)) : new Map()
      const changed = change(record, statuses)
      if (JSON.stringify(changed.record) === JSON.stringify(record)) return changed.result
      const commit = await this.branch.commit(
        tip.commit,
        new Map([[SLOTS_FILE, `${JSON.stringify(changed.record, null, 2)}\n`]]),
        [],
        `slots: ${changed.record.running.length} running, ${changed.record.queued.length} queued${this.options.by ? ` (${this.options.by})` : ''}`,
      )
      if (await this.branch.push(commit, tip.commit)) return changed.result
      // Another job moved the branch: a short, growing, jittered pause keeps racing jobs from colliding again.
      await sleep(Math.min(2000, 25 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()))
    }
    throw new SlotStoreBusyError(
      `${SLOTS_FILE} on ${this.branch.name}: the branch kept moving through ${ATTEMPTS} attempts; nothing was changed`,
    )
  }

  private async read(commit: string): Promise<SlotsRecord> {
    const text = await this.branch.readFile(commit, SLOTS_FILE)
    if (text === null) return EMPTY_SLOTS
    const parsed = parseSlotsRecord(text)
    if ('problem' in parsed) {
      throw new Error(
        `${this.branch.name}:${SLOTS_FILE} is not a valid slots record (${parsed.problem}); fix or delete it (it is never overwritten)`,
      )
    }
    return parsed.record
  }

  /** The statuses the loops' states give at `commit` (a state that cannot be read gives none). */
  private async statuses(commit: string, loopIds: readonly string[]): Promise<Map<string, LoopStatus>> {
    const statuses = new Map<string, LoopStatus>()
    for (const loopId of loopIds) {
      const text = await this.branch.readFile(commit, `${loopFolder(loopId)}/${STATE_FILE}`)
      if (text === null) continue
      try {
        const status = (JSON.parse(text) as { status?: unknown }).status
        if ((LOOP_STATUSES as readonly unknown[]).includes(status)) statuses.set(loopId, status as LoopStatus)
      } catch {
        // An unreadable state is the git store's to quarantine; here the loop counts as not started.
      }
    }
    return statuses
  }
}
