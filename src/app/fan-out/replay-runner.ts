/**
 * Decide's process runner: it runs nothing. A check of the matrix (or one shard of a sharded check) is
 * answered with its verify leg's recorded run (its output replayed to the analyzer, as a live run
 * streams it), so the single job's own verification, analysis and shard merging judge the verdicts;
 * anything else is refused, because decide holds the write token and runs no code of the project.
 */
import { legRunKey, type RecordedRun } from '../../domain/fan-out.js'
import type { CheckConfig } from '../../domain/loop-config.js'
import { expandShards, isSharded } from '../../domain/shards.js'
import type { ProcessRunner, RunRequest, RunResult } from '../../ports/process.js'
import { checkLogName } from '../matrix.js'

export class ProjectCodeRefusedError extends Error {
  override name = 'ProjectCodeRefusedError'
}

/** `runs` holds each leg's run under `legRunKey(check, shard)`, as `mergeVerdicts` gives them. */
export function replayRunner(checks: readonly CheckConfig[], runs: ReadonlyMap<string, RecordedRun>): ProcessRunner {
  // Every process the matrix may ask for: a check's, or each shard's of a sharded check.
  const known = checks.flatMap((check) =>
    isSharded(check)
      ? expandShards(check).map((leg) => ({
          log: checkLogName(check.name, leg.shard),
          command: leg.command,
          key: legRunKey(check.name, leg.shard),
        }))
      : [{ log: checkLogName(check.name), command: check.run, key: legRunKey(check.name) }],
  )
  return {
    async run(request: RunRequest): Promise<RunResult> {
      const asked = known.find((k) => request.logFile?.endsWith(`/${k.log}`) && sameCommand(k.command, request.command))
      const recorded = asked ? runs.get(asked.key) : undefined
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
