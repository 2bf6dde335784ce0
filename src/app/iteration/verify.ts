/**
 * Verify: the matrix after the work, each failing check's output analyzed as it streams. The checks
 * marked verify-only run only when this iteration's results carry the loop into VERIFY (or it is there),
 * so that VERIFY is judged on the whole matrix while other iterations stay fast.
 */
import { stopsTheLoop } from '../../domain/agents/index.js'
import { reachesVerification } from '../../domain/engine/index.js'
import { everyIterationChecks, verify as runVerification } from '../verification.js'
import type { IterationRecord, IterationRun } from './record.js'

export async function verify(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  // An agent call that failed outright (a refused key, an API that stayed down) changed nothing to verify.
  if (record.work?.failure && stopsTheLoop(record.work.failure)) return record
  run.deps.progress?.phase?.(run.iteration, 'VERIFY', 'verification matrix')
  const { input, deps, iterationDir, projectEnv, iteration } = run
  const only = everyIterationChecks(input.config.checks)
  const checks = await runVerification(input, deps, iterationDir, projectEnv, iteration, true, only)
  if (!only) return { ...record, checks }
  const results = checks.map((c) => c.result)
  if (!reachesVerification(run.stage, results, record.state, run.policy)) return { ...record, checks }
  const verifyOnly = input.config.checks.filter((c) => c['verify-only']).map((c) => c.name)
  const atVerify = await runVerification(input, deps, iterationDir, projectEnv, iteration, true, verifyOnly)
  return { ...record, checks: [...checks, ...atVerify] }
}
