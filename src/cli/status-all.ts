/**
 * `loop-controller status --all`: every loop kept in the state directory, one line each (stage,
 * status, iterations of the cap, what it spent, its last verdict, its issue, pull request and last run),
 * or `--json` (each loop's status, with the issue it started from and its last run, as the table links
 * them). The rows are the dashboard issue's (`domain/report/loops-table.ts`).
 */
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { type ListedLoop, loopsTableRows, renderLoopsText } from '../domain/report/loops-table.js'
import { EXIT } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import type { Values } from './options.js'
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
  const ids = await loopIds(place.stateDir)
  const rows: ListedLoop[] = []
  for (const loopId of ids) {
    try {
      rows.push({ loopId, state: (await place.store.load(loopId))?.state ?? null })
    } catch (error) {
      rows.push({ loopId, state: null, problem: (error as Error).message.split('\n')[0] ?? '' })
    }
  }
  if (values.json) {
    const json = rows.map((row) => {
      if (!row.state) return { loopId: row.loopId, problem: row.problem }
      const [table] = loopsTableRows([row])
      return { ...statusJson(row.state), issue: table?.issue?.number ?? null, lastRun: table?.lastRun ?? null }
    })
    io.stdout(`${JSON.stringify(json, null, 2)}\n`)
    return EXIT.complete
  }
  if (rows.length === 0) {
    io.stdout(`No loops yet in ${relative(io.cwd, place.stateDir) || '.'}. Start one with 'loop-controller run'.\n`)
    return EXIT.complete
  }
  io.stdout(renderLoopsText(loopsTableRows(rows)))
  return EXIT.complete
}
