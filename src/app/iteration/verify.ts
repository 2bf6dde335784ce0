/** Verify: the whole matrix after the work, each failing check's output analyzed as it streams. */
import { verify as runVerification } from '../verification.js'
import type { IterationRecord, IterationRun } from './record.js'

export async function verify(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  run.deps.progress?.phase?.(run.iteration, 'VERIFY', 'verification matrix')
  const checks = await runVerification(run.input, run.deps, run.iterationDir, run.projectEnv, run.iteration, true)
  return { ...record, checks }
}
