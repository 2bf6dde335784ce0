/**
 * A failure no fix command covers is the agent's: `auto_fix` names a remedy only a check's own `fix`
 * command can apply, so where there is none the failure takes the pattern's first alternate the agent
 * acts on (else `analyze_then_fix`). Pure.
 */
import type { Strategy } from './stages.js'

export interface StrategyPlan {
  strategy: Strategy
  alternates: Strategy[]
}

/** The strategy and alternates of a failure on a check with (`hasFix`) or without a fix command. */
export function strategyForFixCoverage<T extends StrategyPlan>(plan: T, hasFix: boolean): T {
  const alternates = plan.alternates.filter((s) => s !== 'auto_fix')
  if (hasFix || plan.strategy !== 'auto_fix') return hasFix ? plan : { ...plan, alternates }
  const agents = alternates.find((s) => s !== 'escalate') ?? 'analyze_then_fix'
  return { ...plan, strategy: agents, alternates: alternates.filter((s) => s !== agents) }
}
