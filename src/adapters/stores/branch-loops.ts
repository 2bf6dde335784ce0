/**
 * Every loop folder on the `git` store's branch at one commit, read and only read: the listing the
 * dashboard and `status --all --remote` show. A state that fails validation, or a folder the store
 * quarantined (`QUARANTINED.json`), is a row with its problem, so a damaged loop stays in sight until a
 * person resets it; nothing here moves or commits anything (loading the loop itself does that).
 */
import type { ListedLoop } from '../../domain/report/loops-table.js'
import type { RemoteBranch } from './remote-branch.js'
import { loopFolder, loopIdNamedIn, parseStoredState, STATE_FILE } from './shared.js'

/** The marker the store commits beside a quarantined state; `load` and `save` refuse while it is there. */
export const QUARANTINE_MARKER = 'QUARANTINED.json'

/** The loops at `commit`, sorted by id. `branchName` names where a problem is (`loop-state:<folder>/...`). */
export async function loopsOnBranch(
  branch: Pick<RemoteBranch, 'topLevel' | 'readFile'>,
  commit: string,
  branchName: string,
  toolVersion?: string,
): Promise<ListedLoop[]> {
  const loops: ListedLoop[] = []
  for (const folder of await branch.topLevel(commit)) {
    const marker = await branch.readFile(commit, `${folder}/${QUARANTINE_MARKER}`)
    if (marker !== null) {
      loops.push(quarantinedLoop(folder, marker, branchName))
      continue
    }
    const text = await branch.readFile(commit, `${folder}/${STATE_FILE}`)
    if (text === null) continue
    const loop = loopIn(folder, text, `${branchName}:${folder}/${STATE_FILE}`, toolVersion)
    if (loop) loops.push(loop)
  }
  return loops.sort((a, b) => (a.loopId < b.loopId ? -1 : a.loopId > b.loopId ? 1 : 0))
}

/** The loop a folder holds; null for a folder that is no loop's (its valid state names another folder). */
function loopIn(folder: string, text: string, where: string, toolVersion?: string): ListedLoop | null {
  const parsed = parseStoredState(text, where, toolVersion)
  if (parsed.kind === 'valid') {
    return loopFolder(parsed.state.loopId) === folder ? { loopId: parsed.state.loopId, state: parsed.state } : null
  }
  const problem = parsed.kind === 'future' ? parsed.error.message : parsed.reason
  return { loopId: loopIdNamedIn(text) ?? folderLoopId(folder), state: null, problem: firstLine(problem) }
}

/** A folder the store quarantined: its marker says the loop, why and where the bad state is kept. */
function quarantinedLoop(folder: string, marker: string, branchName: string): ListedLoop {
  let info: { loopId?: unknown; file?: unknown; reason?: unknown } = {}
  try {
    info = JSON.parse(marker) as typeof info
  } catch {
    // A damaged marker still means quarantined.
  }
  const loopId =
    typeof info.loopId === 'string' && loopFolder(info.loopId) === folder ? info.loopId : folderLoopId(folder)
  const kept = typeof info.file === 'string' ? `${branchName}:${info.file}` : `${branchName}:${folder}/`
  const reason = typeof info.reason === 'string' ? firstLine(info.reason) : 'it failed validation'
  return {
    loopId,
    state: null,
    problem: `quarantined (${reason}); kept at ${kept}: fix or discard it, then reset the loop's state`,
  }
}

/** The loop id a folder name encodes (`encodeLoopId`), or the name itself when it is no encoding. */
function folderLoopId(folder: string): string {
  try {
    return decodeURIComponent(folder)
  } catch {
    return folder
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? ''
}
