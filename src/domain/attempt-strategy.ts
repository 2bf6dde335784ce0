/**
 * The one strategy an attempt carries out, named alike in the prompt, `LOOP_CONTEXT_FILE`, the
 * iteration's markdown and the history: the retry decision's, or none for a first attempt at a stage.
 * A pattern's own strategy is only its proposal; the retry rules may choose another (the ladder). Pure.
 */
import type { Decision } from './engine/index.js'
import type { Strategy } from './stages.js'

export function attemptStrategy(decision: Decision): Strategy | null {
  return decision.kind === 'RETRY' ? decision.strategy : null
}

/** How a record names it. */
export function strategyLabel(strategy: Strategy | null): string {
  return strategy ? `\`${strategy}\`` : 'none (a first attempt at the stage)'
}
