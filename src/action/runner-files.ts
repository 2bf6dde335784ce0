/**
 * The action's side of the runner file guard (`adapters/runner-file-guard.ts`): the guard is made from
 * the step's own file-command paths once the logger exists, the action's outputs and summary are
 * written by it (so they are held as the controller's), and it puts the files back once more when the
 * job ends.
 */
import { randomUUID } from 'node:crypto'
import { EOL } from 'node:os'
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
  const guard = new RunnerFileGuard(runnerFileCommandPaths(runContext.env), {
    warn: (message) => deps.logger.warning(message, { title: 'A project command wrote to the runner file commands' }),
    info: (message) => deps.logger.info(message),
  })
  deps.jobEnd.runnerFiles = () => guard.putBackAtExit()
  const { io } = deps
  return {
    guard,
    io: {
      ...io,
      setOutput: (name, value) => {
        if (!guard.holds('GITHUB_OUTPUT')) return io.setOutput(name, value)
        io.info(`${name} = ${value}`)
        guard.appendOwn('GITHUB_OUTPUT', outputFileCommand(name, value))
      },
      writeSummary: async (markdown) => {
        if (!guard.holds('GITHUB_STEP_SUMMARY')) return io.writeSummary(markdown)
        guard.appendOwn('GITHUB_STEP_SUMMARY', markdown)
      },
    },
  }
}

/** An output as `@actions/core`'s `setOutput` writes it to GITHUB_OUTPUT (a heredoc with a fresh delimiter). */
export function outputFileCommand(name: string, value: string | number): string {
  const delimiter = `ghadelimiter_${randomUUID()}`
  const text = String(value)
  if (name.includes(delimiter) || text.includes(delimiter)) {
    throw new Error(`The output ${name} cannot be written: it contains its delimiter ${delimiter}.`)
  }
  return `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`
}
