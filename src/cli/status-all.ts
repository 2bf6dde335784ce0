/**
 * `loop-controller status --all`: every loop kept in the state directory, one line each (stage,
 * status, iterations of the cap, what it spent, its last verdict, its pull request), or `--json`.
 */
import { readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { LoopState } from '../domain/state.js'
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

function spent(state: LoopState): string {
  const seconds = Math.round(state.usage.wallMs / 1000)
  const time = seconds < 60 ? `${seconds} s` : `${Math.round(seconds / 60)} min`
  const tokens = state.usage.tokens > 0 ? ` · ${state.usage.tokens} tokens` : ''
  const cost = state.usage.costUsd > 0 ? ` · $${state.usage.costUsd.toFixed(2)}` : ''
  return `${time}${tokens}${cost}`
}

function lastVerdict(state: LoopState): string {
  const results = state.lastVerification?.results ?? []
  if (results.length === 0) return '-'
  const failed = results.filter((r) => r.verdict === 'fail' || r.verdict === 'timeout' || r.verdict === 'error').length
  return failed === 0 ? `pass (${results.length})` : `fail (${failed} of ${results.length})`
}

/** Prints every loop; exit 0 (a listing, not one loop's state). A state that cannot be read is named. */
export async function showAllLoops(place: LoopPlace, values: Values, io: CliIo): Promise<number> {
  const ids = await loopIds(place.stateDir)
  const rows: { id: string; state: LoopState | null; problem?: string }[] = []
  for (const id of ids) {
    try {
      rows.push({ id, state: (await place.store.load(id))?.state ?? null })
    } catch (error) {
      rows.push({ id, state: null, problem: (error as Error).message.split('\n')[0] ?? '' })
    }
  }
  if (values.json) {
    const json = rows.map((row) => (row.state ? statusJson(row.state) : { loopId: row.id, problem: row.problem }))
    io.stdout(`${JSON.stringify(json, null, 2)}\n`)
    return EXIT.complete
  }
  if (rows.length === 0) {
    io.stdout(`No loops yet in ${relative(io.cwd, place.stateDir) || '.'}. Start one with 'loop-controller run'.\n`)
    return EXIT.complete
  }
  const table = rows.map((row) =>
    row.state
      ? [
          row.id,
          row.state.stage,
          row.state.status,
          `${row.state.iteration} of ${row.state.maxIterations}`,
          spent(row.state),
          lastVerdict(row.state),
          row.state.pullRequest ? `#${row.state.pullRequest.number}` : '-',
        ]
      : [row.id, '-', 'unreadable', '-', '-', '-', row.problem ?? ''],
  )
  const header = ['loop', 'stage', 'status', 'iterations', 'spent', 'last verdict', 'pull request']
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  io.stdout(`${[line(header), ...table.map(line)].join('\n')}\n`)
  return EXIT.complete
}
