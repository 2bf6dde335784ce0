/**
 * Figure 5: matrix parallelism. N independent checks that each sleep, or burn CPU, for a fixed time run
 * through the real matrix (`runMatrix` with the process runner) with max-parallel 1 (the baseline) and
 * with the CPU count; the speed-up is printed against the ideal, min(N, CPUs).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ChildProcessRunner } from '../src/adapters/process-runner.js'
import { runMatrix } from '../src/app/matrix.js'
import { checkSchema } from '../src/config/loop-config.js'
import { type BenchRow, ms, times } from './lib.js'

const CHECKS = 4
const SECONDS = 1
/** The share of the ideal speed-up the matrix must reach. */
const BUDGET_SHARE = 0.8

async function matrixWallMs(command: string | string[], maxParallel: number, dir: string): Promise<number> {
  const checks = Array.from({ length: CHECKS }, (_, i) => checkSchema.parse({ name: `check-${i + 1}`, run: command }))
  const started = performance.now()
  const outcomes = await runMatrix({
    checks,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    maxParallel,
    failFast: false,
    runner: new ChildProcessRunner(),
    logDir: join(dir, `logs-${maxParallel}`),
  })
  const elapsed = performance.now() - started
  const failed = outcomes.filter((o) => o.verdict !== 'pass')
  if (failed.length > 0) throw new Error(`matrix benchmark: ${failed.map((o) => o.check.name).join(', ')} failed`)
  return elapsed
}

export async function matrixParallelism(): Promise<BenchRow[]> {
  const cpus = availableParallelism()
  const ideal = Math.min(CHECKS, cpus)
  const dir = mkdtempSync(join(tmpdir(), 'loop-bench-matrix-'))
  const variants: { label: string; command: string | string[] }[] = [
    { label: 'sleep', command: `sleep ${SECONDS}` },
    {
      label: 'CPU-burning',
      command: [process.execPath, '-e', `const end = Date.now() + ${SECONDS * 1000}; while (Date.now() < end) {}`],
    },
  ]
  const rows: BenchRow[] = []
  try {
    for (const variant of variants) {
      const serial = await matrixWallMs(variant.command, 1, dir)
      const parallel = await matrixWallMs(variant.command, cpus, dir)
      const speedUp = serial / parallel
      rows.push({
        figure: `5. matrix, ${CHECKS} ${variant.label} checks of ${SECONDS} s, max-parallel ${cpus}`,
        value: `${ms(parallel)} (speed-up ${times(speedUp)}, ideal ${times(ideal)})`,
        baseline: `max-parallel 1 ${ms(serial)}`,
        ratio: `${times(speedUp / ideal)} of ideal`,
        budget: `>= ${BUDGET_SHARE}x of ideal`,
        met: speedUp / ideal >= BUDGET_SHARE ? 'yes' : 'no',
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
