/**
 * The `git` store's branch read, and only read: every loop's state and the slots record, as the
 * dashboard lists them, for `loop-controller status --all --remote`. Unlike the store itself it never
 * writes: a state that cannot be read is named (the store quarantines it the next time a loop job
 * loads it), and nothing is pushed, whoever runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EMPTY_SLOTS, parseSlotsRecord, type SlotsRecord } from '../../domain/slots.js'
import type { LoopState } from '../../domain/state.js'
import { SLOTS_FILE } from './git-slot-store.js'
import { RemoteBranch } from './remote-branch.js'
import { loopFolder, loopIdNamedIn, parseStoredState, STATE_FILE } from './shared.js'

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

/** One loop found on the branch: its state, or why it cannot be read. */
export interface BranchLoop {
  loopId: string
  state: LoopState | null
  problem?: string
}

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
    const loops: BranchLoop[] = []
    for (const folder of await branch.topLevel(commit)) {
      const where = `${options.branch}:${folder}/${STATE_FILE}`
      const text = await branch.readFile(commit, `${folder}/${STATE_FILE}`)
      if (text === null) continue
      const loop = loopIn(folder, text, where)
      if (loop) loops.push(loop)
    }
    loops.sort((a, b) => (a.loopId < b.loopId ? -1 : a.loopId > b.loopId ? 1 : 0))
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

/** The loop a folder holds; null for a folder that is no loop's (its state names another folder). */
function loopIn(folder: string, text: string, where: string): BranchLoop | null {
  const parsed = parseStoredState(text, where)
  if (parsed.kind === 'valid') {
    return loopFolder(parsed.state.loopId) === folder ? { loopId: parsed.state.loopId, state: parsed.state } : null
  }
  const problem = parsed.kind === 'future' ? parsed.error.message : parsed.reason
  return { loopId: loopIdNamedIn(text) ?? folder, state: null, problem: problem.split('\n')[0] ?? '' }
}
