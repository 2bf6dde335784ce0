/** Checkpoint: the iteration's changes, committed on the current branch with the loop's trailers. */
import { messageOf } from '../../config/errors.js'
import { ConcurrentCommitError } from '../../ports/git.js'
import { event, type IterationRecord, type IterationRun, summarizeVerdicts, withEvents } from './record.js'

export type Checkpointed =
  | { kind: 'done'; record: IterationRecord }
  /** A second controller in this work tree committed first: it owns this iteration. */
  | { kind: 'superseded'; record: IterationRecord }

export async function checkpoint(run: IterationRun, record: IterationRecord): Promise<Checkpointed> {
  const { input, deps, iteration, stage, strategy } = run
  if (!input.commit || !deps.git) return { kind: 'done', record }
  const { loopId, config } = input
  const verdict = summarizeVerdicts(record.outcome?.checks ?? [])
  const message = `${config.commit['message-prefix']}(${loopId}): iteration ${iteration} ${stage}${strategy ? ` [${strategy}]` : ''}\n\n${verdict}\n\nLoop-Id: ${loopId}\nLoop-Iteration: ${iteration}`
  let commit: string | null
  try {
    commit = await deps.git.commitAll(message, input.identity, input.excludeFromCommits)
  } catch (error) {
    if (!(error instanceof ConcurrentCommitError)) throw error
    await deps.audit.appendEvents([event(deps.clock.now(), iteration, 'superseded', messageOf(error))])
    return { kind: 'superseded', record }
  }
  if (!commit) return { kind: 'done', record }
  const state = {
    ...record.state,
    checkpoints: [
      ...record.state.checkpoints,
      { iteration, commit, message: message.split('\n')[0] ?? '', at: deps.clock.now().toISOString() },
    ].slice(-50),
  }
  return {
    kind: 'done',
    record: withEvents(
      { ...record, state, commit },
      event(deps.clock.now(), iteration, 'checkpoint', `committed ${commit.slice(0, 12)}`),
    ),
  }
}
