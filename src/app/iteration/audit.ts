/**
 * Audit: the iteration's markdown record, and for a loop that ended, `final.md` (with a dead letter
 * for a loop that went BLOCKED on a failure).
 */

import { join } from 'node:path'
import { stringify as stringifyYaml } from 'yaml'
import { buildDeadLetter, deadLetterRecord } from '../../domain/analysis/index.js'
import { renderFinalMarkdown, renderIterationMarkdown } from '../../domain/audit-markdown.js'
import { displayText } from '../../domain/display-text.js'
import type { Decision } from '../../domain/engine/index.js'
import type { LoopState } from '../../domain/state.js'
import type { IterationRecord, IterationRun } from './record.js'
import type { IterationDeps, IterationOutcomeKind } from './types.js'

/** Writes `iterations/<n>.md` and returns its path in the audit trail. */
export async function writeIterationRecord(
  run: IterationRun,
  record: IterationRecord,
  next: Decision,
): Promise<string> {
  const { deps, iteration } = run
  const markdown = renderIterationMarkdown({
    state: record.state,
    decision: run.decision,
    next,
    checks: record.checks.map((c) => ({
      result: c.result,
      output: displayText(c.outcome.result?.output ?? ''),
      analysis: c.analysis,
    })),
    work: record.work,
    diffStat: deps.git && run.headBefore ? await deps.git.diffStat(run.headBefore, record.treeAtCheckpoint) : '',
    commit: record.commit,
    // The iteration that measured the baseline says what failed and who was to fix what.
    baseline: record.previousIsFresh
      ? { failures: record.previous, ...(record.briefing ?? { fixedFirst: [], toldAgent: null }) }
      : null,
  })
  await deps.audit.writeIteration(iteration, markdown)
  return join('iterations', `${iteration}.md`)
}

const ENDINGS: readonly IterationOutcomeKind[] = ['complete', 'blocked', 'capped', 'aborted']

/**
 * For a loop that has just ended: `final.md` (saying `reason`, why it ended), and a dead letter when it
 * went BLOCKED on a failure.
 */
export async function writeEnding(
  loopId: string,
  deps: Pick<IterationDeps, 'audit'>,
  kind: IterationOutcomeKind,
  state: LoopState,
  reason: string,
): Promise<void> {
  if (!ENDINGS.includes(kind)) return
  let deadLetter: string | undefined
  if (kind === 'blocked' && state.failures.current) {
    const input = {
      loopId,
      failure: state.failures.current,
      history: state.failures.history,
      tried: state.failures.tried,
    }
    const letter = buildDeadLetter(input)
    const failing = state.lastVerification?.results.find((r) => r.name === state.failures.current?.check)
    const record = deadLetterRecord(input, letter, failing?.locations[0]?.file ?? null)
    await deps.audit.writeDeadLetter(
      letter.signature,
      letter.markdown,
      letter.candidatePattern ? candidateYaml(letter.candidatePattern) : undefined,
      `${JSON.stringify(record, null, 2)}\n`,
    )
    deadLetter = letter.signature
  }
  await deps.audit.writeFinal(renderFinalMarkdown({ state, reason, deadLetter }))
}

/** A proposed pattern, as a patterns file a person can review and add (`patterns:` in the loop config). */
function candidateYaml(pattern: unknown): string {
  return `# A candidate pattern proposed from similar failures with no confident match; review before use.\n${stringifyYaml({ patterns: [pattern] })}`
}
