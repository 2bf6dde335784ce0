/**
 * `loop-controller status --all`: every loop kept in the state directory, one line each (stage,
 * status, iterations of the cap, what it spent, its last verdict, its issue, pull request and last run),
 * or `--json` (each loop's status, with the issue it started from and its last run, as the table links
 * them). The rows are the dashboard issue's (`domain/report/loops-table.ts`). With `--remote`, the loops
 * are those the action keeps on the `git` store's branch of that remote (`--state-branch`, default
 * `loop-state`), read without writing anything, with each queued loop's place in line as the dashboard
 * says it.
 */
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { readStateBranch } from '../adapters/stores/state-branch-reader.js'
import { type ListedLoop, loopsTableRows, type QueueView, renderLoopsText } from '../domain/report/loops-table.js'
import { EXIT, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import { parseMaxLoops, type Values, validStateBranch } from './options.js'
import { statusJson } from './render.js'

/** The ids of the loops kept in `stateDir` (a folder holding `loop-state.json`), sorted. */
async function loopIds(stateDir: string): Promise<string[]> {
  const entries = await readdir(stateDir, { withFileTypes: true }).catch(() => [])
  const ids: string[] = []
  for (const entry of entries) {
    if (!entry.isDirectory()) continue
    const files = await readdir(join(stateDir, entry.name)).catch(() => [] as string[])
    if (files.includes('loop-state.json')) ids.push(entry.name)
  }
  return ids.sort()
}

/** Prints every loop; exit 0 (a listing, not one loop's state). A state that cannot be read is named. */
export async function showAllLoops(place: LoopPlace, values: Values, io: CliIo): Promise<number> {
  if (values['state-branch'] !== undefined && values.remote === undefined) {
    throw new UsageError(`--state-branch names the branch of a remote: give --remote too (e.g. --remote origin).`)
  }
  if (values.remote !== undefined) return showBranchLoops(place, values, io)
  const ids = await loopIds(place.stateDir)
  const rows: ListedLoop[] = []
  for (const loopId of ids) {
    try {
      rows.push({ loopId, state: (await place.store.load(loopId))?.state ?? null })
    } catch (error) {
      rows.push({ loopId, state: null, problem: (error as Error).message.split('\n')[0] ?? '' })
    }
  }
  if (rows.length === 0 && !values.json) {
    io.stdout(`No loops yet in ${relative(io.cwd, place.stateDir) || '.'}. Start one with 'loop-controller run'.\n`)
    return EXIT.complete
  }
  printLoops(rows, null, values, io)
  return EXIT.complete
}

/** The loops on the `git` store's branch of `--remote` (a remote's name or a URL), read-only. */
async function showBranchLoops(place: LoopPlace, values: Values, io: CliIo): Promise<number> {
  const remote = values.remote ?? ''
  if (!remote.trim()) throw new UsageError(`--remote takes a remote's name or URL (e.g. origin); got '${remote}'.`)
  const branch = validStateBranch(values['state-branch'] ?? 'loop-state')
  const limit = values['max-loops'] === undefined ? null : parseMaxLoops(values['max-loops'])
  const listing = await readStateBranch({
    repoDir: place.root,
    remote,
    branch,
    // A private repository's branch needs a token, as \`gh\` takes one.
    token: io.env.GH_TOKEN || io.env.GITHUB_TOKEN || undefined,
  })
  if (listing.slotsProblem) io.stderr(`warning: ${listing.slotsProblem} (places in line are not shown)\n`)
  if (listing.loops.length === 0 && !values.json) {
    const why = listing.commit ? 'holds no loop yet' : 'does not exist yet (no loop has saved its state there)'
    io.stdout(`The branch ${branch} of ${remote} ${why}.\n`)
    return EXIT.complete
  }
  // The limit is the workflow's input, not kept in the record: without --max-loops, the slots the record
  // last gave out are taken as all there are (a loop waits for a slot only when they were all in use).
  const slots = limit ?? Math.max(1, listing.slots.running.length)
  const queue: QueueView | null = listing.slotsProblem ? null : { record: listing.slots, limit: slots }
  printLoops(listing.loops, queue, values, io)
  return EXIT.complete
}

function printLoops(rows: readonly ListedLoop[], queue: QueueView | null, values: Values, io: CliIo): void {
  const table = loopsTableRows(rows, undefined, queue)
  if (values.json) {
    const byId = new Map(table.map((row) => [row.loopId, row]))
    const json = rows.map((row) => {
      if (!row.state) return { loopId: row.loopId, problem: row.problem }
      const listed = byId.get(row.loopId)
      return {
        ...statusJson(row.state),
        issue: listed?.issue?.number ?? null,
        lastRun: listed?.lastRun ?? null,
        ...(queue ? { queue: listed?.queue ?? '-' } : {}),
      }
    })
    io.stdout(`${JSON.stringify(json, null, 2)}\n`)
    return
  }
  io.stdout(renderLoopsText(table))
}
