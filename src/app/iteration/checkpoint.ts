/**
 * Checkpoint: the iteration's changes, committed on the current branch with the loop's trailers. The
 * authors are kept apart: the agent's work is one commit and each fix command's changes another, in the
 * order they were made (an empty part makes no commit), so a reviewer reads the agent's work alone.
 */

import { messageOf } from '../../config/errors.js'
import { fixCommitMessage, iterationCommitMessage } from '../../domain/checkpoint-message.js'
import { ConcurrentCommitError } from '../../ports/git.js'
import { event, type IterationRecord, type IterationRun, summarizeVerdicts, withEvents } from './record.js'

export type Checkpointed =
  | { kind: 'done'; record: IterationRecord }
  /** A second controller in this work tree committed first: it owns this iteration. */
  | { kind: 'superseded'; record: IterationRecord }

export async function checkpoint(run: IterationRun, record: IterationRecord): Promise<Checkpointed> {
  const { input, deps, iteration, stage, strategy } = run
  const git = deps.git
  if (!input.commit || !git) return { kind: 'done', record }
  const trailers = { prefix: input.config.commit['message-prefix'], loopId: input.loopId, iteration }
  const verdicts = summarizeVerdicts(record.outcome?.checks ?? [])
  // Message i covers the changes up to snapshot i (the last: up to the work tree as it is now).
  const workMessage = iterationCommitMessage(trailers, stage, strategy, verdicts)
  const messages = [
    workMessage,
    ...record.fixSnapshots.map((point) =>
      'work' in point ? workMessage : fixCommitMessage(trailers, point.check, point.command),
    ),
  ]
  const made: { commit: string; message: string }[] = []
  const note = (commit: string | null, message: string) => {
    if (commit) made.push({ commit, message })
  }
  try {
    for (const [i, fix] of record.fixSnapshots.entries()) {
      const message = messages[i] ?? ''
      note(await git.commitTree(fix.tree, message, input.identity), message)
    }
    const last = messages[messages.length - 1] ?? ''
    note(await git.commitAll(last, input.identity, input.excludeFromCommits), last)
  } catch (error) {
    if (!(error instanceof ConcurrentCommitError)) throw error
    await deps.audit.appendEvents([event(deps.clock.now(), iteration, 'superseded', messageOf(error))])
    return { kind: 'superseded', record }
  }
  if (made.length === 0) return { kind: 'done', record }
  const at = deps.clock.now().toISOString()
  const state = {
    ...record.state,
    checkpoints: [
      ...record.state.checkpoints,
      ...made.map(({ commit, message }) => ({ iteration, commit, message: message.split('\n')[0] ?? '', at })),
    ].slice(-50),
  }
  const commit = made[made.length - 1]?.commit ?? null
  return {
    kind: 'done',
    record: withEvents(
      { ...record, state, commit },
      event(
        deps.clock.now(),
        iteration,
        'checkpoint',
        `committed ${made.map((m) => m.commit.slice(0, 12)).join(', ')}`,
      ),
    ),
  }
}
