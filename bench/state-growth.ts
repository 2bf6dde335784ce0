/**
 * Figure 6: the state's size and load time (FileStore.load: read, JSON.parse, zod validation, migration)
 * at 10, 100, 1,000 and 10,000 iterations. Baseline: JSON.parse of a plain object of the same size.
 * Budget: under 1 MiB at 1,000 iterations (history compaction).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileStore } from '../src/adapters/file-store.js'
import { type BenchRow, bytes, ms, syntheticConfig, syntheticState, timeMedian, times } from './lib.js'

const MIB = 1024 * 1024

/** A plain object whose JSON is about `size` bytes: many small records, like a state's lists. */
function plainObjectOfSize(size: number): string {
  const records: { id: number; name: string; at: string; ok: boolean }[] = []
  let length = 2
  for (let i = 0; length < size; i++) {
    const record = {
      id: i,
      name: `record-${i}-${'x'.repeat(i % 40)}`,
      at: new Date(i * 1000).toISOString(),
      ok: i % 2 === 0,
    }
    records.push(record)
    length += JSON.stringify(record).length + 1
  }
  return JSON.stringify({ records })
}

export async function stateGrowth(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const dir = mkdtempSync(join(tmpdir(), 'loop-bench-state-'))
  try {
    const store = new FileStore({ root: dir })
    const config = syntheticConfig({ 'max-iterations': 1000 })
    for (const iterations of [10, 100, 1000, 10_000]) {
      const { state } = syntheticState(iterations, config)
      const loopId = `growth-${iterations}`
      await store.save(loopId, { ...state, loopId }, null)
      const size = Buffer.byteLength(JSON.stringify({ ...state, loopId }))
      const loadMs = await timeMedian(15, () => store.load(loopId))
      const plain = plainObjectOfSize(size)
      const parseMs = await timeMedian(15, () => JSON.parse(plain))
      const budgeted = iterations === 1000
      rows.push({
        figure: `6. state at ${iterations.toLocaleString('en')} iterations: size · load`,
        value: `${bytes(size)} · ${ms(loadMs)}`,
        baseline: `JSON.parse same size ${ms(parseMs)}`,
        ratio: times(loadMs / parseMs),
        budget: budgeted ? '< 1 MiB' : '(bounded)',
        met: budgeted ? (size < MIB ? 'yes' : 'no') : size < MIB ? 'n/a' : 'no',
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
