/**
 * The action's side of the runner file guard (`adapters/runner-file-guard.ts`): the guard is made from
 * the step's own file-command paths once the logger exists, the action's outputs and summary are
 * written through it (so they are held as the controller's), and it puts the files back once more when
 * the job ends.
 */
import { RunnerFileGuard, runnerFileCommandPaths } from '../adapters/runner-file-guard.js'
import type { Logger } from '../ports/logger.js'
import type { ActionIO } from './actions-io.js'
import type { JobEnd } from './job-setup.js'
import type { RunContext } from './run-context.js'

/** The guard for this step, with `io` writing through it; the last put-back registered on `jobEnd`. */
export function guardRunnerFiles(
  runContext: RunContext,
  deps: { io: ActionIO; logger: Logger; jobEnd: JobEnd },
): { guard: RunnerFileGuard; io: ActionIO } {
  const guard = new RunnerFileGuard(runnerFileCommandPaths(runContext.env), (message) =>
    deps.logger.warning(message, { title: 'A project command wrote to the runner file commands' }),
  )
  deps.jobEnd.runnerFiles = () => guard.putBackAtExit()
  const { io } = deps
  return {
    guard,
    io: {
      ...io,
      setOutput: (name, value) => guard.ownSync(() => io.setOutput(name, value)),
      writeSummary: (markdown) => guard.own(() => io.writeSummary(markdown)),
    },
  }
}
