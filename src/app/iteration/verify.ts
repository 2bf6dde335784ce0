/** Verify: the whole matrix after the work, each failing check's output analyzed as it streams. */
import { stopsTheLoop } from '../../domain/agents/index.js'
import { verify as runVerification } from '../verification.js'
import type { IterationRecord, IterationRun } from './record.js'

export async function verify(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  // An agent call that failed outright (a refused key, an API that stayed down) changed nothing to verify.
  if (record.work?.failure && stopsTheLoop(record.work.failure)) return record
  run.deps.progress?.phase?.(run.iteration, 'VERIFY', 'verification matrix')
  const checks = await runVerification(run.input, run.deps, run.iterationDir, run.projectEnv, run.iteration, true)
  return { ...record, checks }
}
