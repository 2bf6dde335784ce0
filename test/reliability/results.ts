/**
 * The reliability proofs record their figures in docs/reliability-results.json (one key per proof), from
 * which scripts/reliability-table.mjs renders the table of README.md and docs/reliability.md. Only their
 * npm scripts ask for it (LOOP_RECORD_RESULTS=1): `npm test` runs the same proofs at CI size and writes
 * nothing in the repository.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { machine } from '../../bench/lib.js'

export const RESULTS_FILE = resolve(import.meta.dirname, '..', '..', 'docs', 'reliability-results.json')

/** Whether this run records its figures (set by the `reliability:*` npm scripts). */
export function recordingResults(): boolean {
  return process.env.LOOP_RECORD_RESULTS === '1'
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Runs `update` while holding a lock file: the test files of one npm script record in parallel. */
function withLock(file: string, update: () => void): void {
  const lock = `${file}.lock`
  for (let waited = 0; ; waited += 20) {
    try {
      closeSync(openSync(lock, 'wx'))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (waited >= 10_000) {
        throw new Error(`${lock} has been held for 10 s; delete it if no reliability proof is running`)
      }
      pause(20)
    }
  }
  try {
    update()
  } finally {
    rmSync(lock, { force: true })
  }
}

/**
 * Records one proof's figures, with the date and the machine, when LOOP_RECORD_RESULTS=1; `failed` counts
 * the proof's tests (or problems) that failed, so that a failed run is never shown as a pass.
 */
export function recordResults(
  proof: string,
  figures: Record<string, unknown> & { failed: number },
  file = RESULTS_FILE,
): void {
  if (!recordingResults()) return
  withLock(file, () => {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {}
    all[proof] = { date: new Date().toISOString(), machine: machine(), ...figures }
    const sorted = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((key) => [key, all[key]]),
    )
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(sorted, null, 2)}\n`)
    renameSync(temporary, file)
  })
  console.log(`${proof}: figures recorded in ${file}`)
}
