/**
 * Decide's process runner: it runs nothing. A check of the matrix is answered with its verify leg's
 * recorded run (its output replayed to the analyzer, as a live run streams it), so the single job's own
 * verification and analysis judge the verdicts; anything else is refused, because decide holds the
 * write token and runs no code of the project.
 */
import type { RecordedRun } from '../../domain/fan-out.js'
import type { CheckConfig } from '../../domain/loop-config.js'
import type { ProcessRunner, RunRequest, RunResult } from '../../ports/process.js'

export class ProjectCodeRefusedError extends Error {
  override name = 'ProjectCodeRefusedError'
}

export function replayRunner(checks: readonly CheckConfig[], runs: ReadonlyMap<string, RecordedRun>): ProcessRunner {
  return {
    async run(request: RunRequest): Promise<RunResult> {
      const check = checks.find(
        (c) => request.logFile?.endsWith(`/${c.name}.log`) && sameCommand(c.run, request.command),
      )
      const recorded = check ? runs.get(check.name) : undefined
      if (!recorded) {
        throw new ProjectCodeRefusedError(
          `decide runs no project code; it was asked to run ${JSON.stringify(request.command)}, which is no check with a verdict`,
        )
      }
      if (recorded.output !== '') request.onOutput?.(Buffer.from(recorded.output))
      return { ...recorded }
    },
  }
}

function sameCommand(a: RunRequest['command'], b: RunRequest['command']): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
