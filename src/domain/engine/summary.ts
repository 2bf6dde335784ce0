import type { LoopState } from '../state.js'
import type { Decision } from './decide.js'

/**
 * One line a person reads as "next" (job summary, sticky comment, `loop status`), e.g.
 * `retry IMPLEMENT with strategy context_expand (attempt 2 of 3)`.
 */
export function summarizeNextAction(state: LoopState, decision: Decision): string {
  switch (decision.kind) {
    case 'EXECUTE_STAGE': {
      const capability = decision.capability
        ? ` for capability '${decision.capability}' (${state.capabilities.completed.length + 1} of ${state.capabilities.total})`
        : ''
      return `run ${decision.stage}${capability} (iteration ${state.iteration + 1} of ${state.maxIterations})`
    }
    case 'RETRY': {
      const wait = decision.backoffMs > 0 ? ` after ${Math.round(decision.backoffMs / 1000)} s` : ''
      return `retry ${decision.stage} with strategy ${decision.strategy} (attempt ${decision.attempt} of ${decision.maxAttempts})${wait}`
    }
    case 'WAIT_FOR_APPROVAL':
      return `wait for approval of gate '${decision.gate}': comment \`/loop approve ${decision.gate}\` or \`loop approve ${decision.gate}\``
    case 'WAIT_FOR_HUMAN':
      return `a person is needed: ${decision.reason}; then \`/loop resume\` or \`loop resume\``
    case 'CAP_REACHED':
      return `stopped: ${decision.reason}`
    case 'ESCALATE':
      return `escalate to a person: ${decision.reason}`
    case 'COMPLETE':
      return `none: complete (${decision.reason})`
    case 'ABORTED':
      return `none: aborted (${decision.reason})`
  }
}
