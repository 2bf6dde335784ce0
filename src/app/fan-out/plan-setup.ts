/**
 * The plan measures the loop's baseline on a fresh runner too: before it, the plan runs the legs' setup
 * (`verify-setup`, else `install`), so that the baseline sees the checks as a leg does (installed and
 * built), and not every check failing for a missing install.
 */
import { legSetupOf } from '../../domain/fan-out.js'
import { command, INSTALL_TIMEOUT_MS } from '../iteration/act.js'
import type { IterationRecord, IterationRun } from '../iteration/record.js'
import { howItFailed, usage } from '../step-support.js'

/** Runs the legs' setup when this iteration takes the baseline; a setup that fails is said, and the baseline records what it finds. */
export async function setupBeforeBaseline(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const setup = legSetupOf(run.input.config)
  if (record.state.baseline || setup === null) return record
  const { deps, iteration } = run
  deps.logger.info(`Plan: ${setup.key} before the baseline.`)
  const result = await deps.runner.run(command(run, setup.command, `${setup.key}.log`, INSTALL_TIMEOUT_MS))
  usage(record.state, iteration, setup.key, 'before the baseline (fan-out plan)', result)
  const how = howItFailed(result, INSTALL_TIMEOUT_MS)
  if (how !== null) {
    deps.logger.warning(`Plan: ${setup.key} ${how} before the baseline; the baseline records the checks as they are.`)
  }
  return record
}
