/**
 * Checkpoint: the iteration's changes, committed on the current branch with the loop's trailers. The
 * authors are kept apart: the agent's work is one commit and each fix command's changes another, in the
 * order they were made (an empty part makes no commit), so a reviewer reads the agent's work alone.
 */

import { messageOf } from '../../config/errors.js'
import { fixCommitMessage, iterationCommitMessage } from '../../domain/checkpoint-message.js'
import { describeRefusal, type RefusedPath, refuseFromCommit } from '../../domain/commit-policy.js'
import { ConcurrentCommitError, type StagedWorkTree } from '../../ports/git.js'
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
  // The work tree is staged once: the screen judges that tree, and the last commit is made of it.
  const staged = await git.stageForCommit(input.excludeFromCommits)
  const refused = await screen(run, record, staged)
  const refusedPaths = refused.map((r) => r.path)
  const screened = { ...withRefusals(run, record, refused), treeAtCheckpoint: staged.tree }
  try {
    // Each commit goes on the one before, the first on HEAD as the screen saw it: HEAD moved by another
    // process meanwhile is a concurrent commit.
    let parent = staged.head
    for (const [i, fix] of record.fixSnapshots.entries()) {
      const message = messages[i] ?? ''
      const tree = await git.treeWithPathsAsHead(fix.tree, refusedPaths)
      const commit = await git.commitTree(tree, message, input.identity, parent)
      note(commit, message)
      if (commit) parent = { commit, tree }
    }
    const last = messages[messages.length - 1] ?? ''
    note(await git.commitStaged(staged, last, input.identity, { leaveOut: refusedPaths, parent }), last)
  } catch (error) {
    if (!(error instanceof ConcurrentCommitError)) throw error
    await deps.audit.appendEvents([event(deps.clock.now(), iteration, 'superseded', messageOf(error))])
    return { kind: 'superseded', record }
  }
  if (made.length === 0) return { kind: 'done', record: screened }
  const at = deps.clock.now().toISOString()
  const state = {
    ...screened.state,
    checkpoints: [
      ...record.state.checkpoints,
      ...made.map(({ commit, message }) => ({ iteration, commit, message: message.split('\n')[0] ?? '', at })),
    ].slice(-50),
  }
  const commit = made[made.length - 1]?.commit ?? null
  return {
    kind: 'done',
    record: withEvents(
      { ...screened, state, commit },
      event(
        deps.clock.now(),
        iteration,
        'checkpoint',
        `committed ${made.map((m) => m.commit.slice(0, 12)).join(', ')}`,
      ),
    ),
  }
}

/**
 * What the commits about to be made would hold that must not be committed: every tree (the fix
 * snapshots and the work tree now, `staged`) judged against HEAD, new paths by the ignore rules before
 * the work.
 */
async function screen(run: IterationRun, record: IterationRecord, staged: StagedWorkTree): Promise<RefusedPath[]> {
  const { input, deps } = run
  if (!deps.git) return []
  const rules = {
    maxFileBytes: input.config.commit['max-file-bytes'],
    allowPaths: input.config.commit['allow-paths'],
    allowWorkflows: input.config.commit['allow-workflows'],
  }
  const trees = [...record.fixSnapshots.map((point) => point.tree), staged.tree]
  const head = staged.head?.commit
  const candidates = await deps.git.commitCandidates(trees, record.treeBeforeWork, rules.maxFileBytes, head)
  const refused = refuseFromCommit(candidates, rules)
  return refused.filter((r, i) => refused.findIndex((other) => other.path === r.path) === i)
}

/**
 * The refusals where a person reads them: the journey (history, audit trail), the live progress line,
 * and the state, from which the job summary and the sticky comment are built. They stay in the work
 * tree, never committed; each checkpoint judges them again.
 */
function withRefusals(run: IterationRun, record: IterationRecord, refused: readonly RefusedPath[]): IterationRecord {
  const { deps, iteration } = run
  const state = { ...record.state, refusedFromCommit: refused.map((r) => ({ iteration, ...r })) }
  if (refused.length === 0) return record.state.refusedFromCommit?.length ? { ...record, state } : record
  for (const r of refused) deps.progress?.phase?.(iteration, 'CHECKPOINT', describeRefusal(r))
  const lines = refused.map(describeRefusal)
  deps.logger.warning(`checkpoint: ${lines.join('\n')}`)
  return withEvents(
    { ...record, state },
    event(deps.clock.now(), iteration, 'guard', `not committed: ${lines.join('; ')}`, { refused }),
  )
}
