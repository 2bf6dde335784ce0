/**
 * An abort applied beside a running iteration (a dashboard tick, `/loop abort` on the loop's pull
 * request, which run outside the loop's concurrency group): "an iteration already running finishes its
 * work", so its slot must not go to the next loop until that work ends.
 */
import type { GitSlotStore } from '../adapters/stores/git-slot-store.js'
import { messageOf } from '../config/errors.js'
import { markStopping } from '../domain/slots.js'
import type { LoopState } from '../domain/state.js'
import type { RunContext } from './run-context.js'
import type { ReleaseDeps } from './slots.js'

/**
 * A loop a person aborted while an iteration of it may run in another job: the run recorded with its
 * slot is not this one and GitHub says it has not completed, or its next iteration is dispatched (that
 * job may be running it, a fan-out `plan` for one). Its slot is marked `stopping` and kept, so no loop
 * starts beside that iteration; the loop's own job gives it back when it ends, and the sweeper frees a
 * stopping slot whose job died. True when kept.
 */
export async function keptForRunningJob(
  run: Pick<RunContext, 'runId'>,
  input: { loopId: string },
  state: LoopState,
  deps: ReleaseDeps & { slots: Pick<GitSlotStore, 'current' | 'update'> },
): Promise<boolean> {
  const { slots } = deps
  const holder = (await slots.current()).running.find((candidate) => candidate.loopId === input.loopId)
  if (!holder || holder.run === run.runId) return false
  const next = state.dispatch
  const dispatched = next !== undefined && next.iteration === state.iteration + 1 && next.failed === undefined
  const where = dispatched ? `iteration ${next.iteration} is dispatched` : await runStillGoing(holder.run, input, deps)
  if (where === null) return false
  const kept = await slots.update([], (record) => {
    const still = record.running.some((candidate) => candidate.loopId === input.loopId && candidate.run === holder.run)
    return { record: still ? markStopping(record, input.loopId) : record, result: still }
  })
  if (kept) {
    deps.logger.info(
      `Loop ${input.loopId} is aborted, but ${where}: its slot is kept until that job ends and gives it back.`,
    )
  }
  return kept
}

/** `its iteration still runs in run N` while GitHub says run N has not completed, else null. */
async function runStillGoing(
  runId: string | undefined,
  input: { loopId: string },
  deps: ReleaseDeps,
): Promise<string | null> {
  if (runId === undefined) return null
  try {
    const { status } = await deps.github.getWorkflowRun(runId)
    return status === 'completed' ? null : `its iteration still runs in run ${runId}`
  } catch (error) {
    deps.logger.warning(
      `Whether run ${runId} of loop ${input.loopId} still runs is unknown (${messageOf(error)}); its slot is given back now.`,
    )
    return null
  }
}
