/**
 * The one strategy an attempt carries out, named alike in the prompt, `LOOP_CONTEXT_FILE`, the
 * iteration's markdown and the history: the retry decision's, or none for a first attempt at a stage.
 * A pattern's own strategy is only its proposal; the retry rules may choose another (the ladder). Pure.
 */
import type { Decision } from './engine/index.js'
import type { Strategy } from './stages.js'
import type { CheckResult, FailureRecord, LoopState } from './state.js'

export function attemptStrategy(decision: Decision): Strategy | null {
  return decision.kind === 'RETRY' ? decision.strategy : null
}

/** How a record names it. */
export function strategyLabel(strategy: Strategy | null): string {
  return strategy ? `\`${strategy}\`` : 'none (a first attempt at the stage)'
}

/** Where the loop is once the retry rules weighed the iteration's failures. */
export interface WeighedLoop {
  status: LoopState['status']
  /** The failure the loop works on (the one retried, or the one that went to a person). */
  current: Pick<FailureRecord, 'check'> | null
}

/**
 * What the loop takes for a failing check once the retry rules weighed it: the next attempt's strategy
 * (the pattern's own, or the one switched to after the same error came back), `escalate` when the
 * failure went to a person (BLOCKED), `auto_fix` when its fix command made it pass, or null when the loop takes none for this check: it did not fail,
 * another failure is the one retried, or the loop stops for something else (a cap, a gate, an abort).
 * This, not the classifier's `check.strategy` (the pattern's proposal), is what a person is shown.
 */
export function strategyTaken(
  check: Pick<CheckResult, 'name' | 'verdict' | 'autoFixed'>,
  loop: WeighedLoop,
  next: Decision | null,
): Strategy | null {
  // Its own fix command made it pass: the controller took auto_fix, whatever the pattern proposed.
  if (check.autoFixed && check.verdict === 'pass') return 'auto_fix'
  if (check.verdict !== 'fail' && check.verdict !== 'timeout' && check.verdict !== 'error') return null
  if (loop.current?.check !== check.name) return null
  if (loop.status === 'blocked' || next?.kind === 'ESCALATE') return 'escalate'
  return next?.kind === 'RETRY' ? next.strategy : null
}
