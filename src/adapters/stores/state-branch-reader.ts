/**
 * The `git` store's branch read, and only read: every loop's state and the slots record, as the
 * dashboard lists them (`branch-loops.ts`), for `loop-controller status --all --remote`. It never
 * writes: a state that cannot be read, or one the store quarantined, is a row with its problem, and
 * nothing is pushed, whoever runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ListedLoop } from '../../domain/report/loops-table.js'
import { EMPTY_SLOTS, parseSlotsRecord, type SlotsRecord } from '../../domain/slots.js'
import { loopsOnBranch } from './branch-loops.js'
import { SLOTS_FILE } from './git-slot-store.js'
import { RemoteBranch } from './remote-branch.js'

export interface StateBranchReaderOptions {
  /** The user's repository: only read, to resolve `remote` when it is a remote name. */
  repoDir: string
  /** A remote name of `repoDir` or a URL. */
  remote: string
  /** The git store's branch. */
  branch: string
  /** A token for an HTTPS remote that needs one (GitHub's `x-access-token` basic auth). */
  token?: string | undefined
}

/** One loop found on the branch: its state, or why it cannot be read (quarantined, not valid). */
export type BranchLoop = ListedLoop

/** What the branch holds: null `commit` when the remote has no such branch yet. */
export interface BranchListing {
  /** The remote's URL (a remote name resolved), without credentials. */
  url: string
  commit: string | null
  loops: BranchLoop[]
  slots: SlotsRecord
  /** Set when `queue.json` is there and not a valid slots record (the loops are listed all the same). */
  slotsProblem?: string
}

/**
 * Reads the branch once, in a private repository removed afterwards. Throws `UnknownRemoteError` for a
 * remote name the repository does not have and `RemoteFetchError` when git cannot fetch from it; a
 * remote without the branch is a listing with a null `commit`.
 */
export async function readStateBranch(options: StateBranchReaderOptions): Promise<BranchListing> {
  const workDir = await mkdtemp(join(tmpdir(), 'loop-controller-status-'))
  try {
    const branch = new RemoteBranch({
      repoDir: options.repoDir,
      remote: options.remote,
      branch: options.branch,
      // Nothing is committed here: the identity is never written anywhere.
      identity: { name: 'loop-controller', email: 'loop-controller@users.noreply.github.com' },
      token: options.token,
      workDir,
    })
    const { commit } = await branch.fetch()
    const url = await branch.remoteUrl()
    if (!commit) return { url, commit: null, loops: [], slots: EMPTY_SLOTS }
    const loops = await loopsOnBranch(branch, commit, options.branch)
    const slotsText = await branch.readFile(commit, SLOTS_FILE)
    if (slotsText === null) return { url, commit, loops, slots: EMPTY_SLOTS }
    const parsed = parseSlotsRecord(slotsText)
    if ('problem' in parsed) {
      return {
        url,
        commit,
        loops,
        slots: EMPTY_SLOTS,
        slotsProblem: `${options.branch}:${SLOTS_FILE}: ${parsed.problem}`,
      }
    }
    return { url, commit, loops, slots: parsed.record }
  } finally {
    await rm(workDir, { recursive: true, force: true })
  }
}
