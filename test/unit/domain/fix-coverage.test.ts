import { describe, expect, it } from 'vitest'
import { type StrategyPlan, strategyForFixCoverage } from '../../../src/domain/fix-coverage.js'
import { strategyHint } from '../../../src/domain/work-context.js'

describe('strategyForFixCoverage', () => {
  const table: Array<{ name: string; plan: StrategyPlan; hasFix: boolean; expected: StrategyPlan }> = [
    {
      name: 'auto_fix with a fix command stays auto_fix',
      plan: { strategy: 'auto_fix', alternates: ['analyze_then_fix'] },
      hasFix: true,
      expected: { strategy: 'auto_fix', alternates: ['analyze_then_fix'] },
    },
    {
      name: 'auto_fix without one takes the first alternate (lint-error)',
      plan: { strategy: 'auto_fix', alternates: ['analyze_then_fix', 'context_expand'] },
      hasFix: false,
      expected: { strategy: 'analyze_then_fix', alternates: ['context_expand'] },
    },
    {
      name: 'auto_fix without one and no alternates is analyze_then_fix',
      plan: { strategy: 'auto_fix', alternates: [] },
      hasFix: false,
      expected: { strategy: 'analyze_then_fix', alternates: [] },
    },
    {
      name: 'an escalating alternate is kept for later, not taken first',
      plan: { strategy: 'auto_fix', alternates: ['escalate', 'context_expand'] },
      hasFix: false,
      expected: { strategy: 'context_expand', alternates: ['escalate'] },
    },
    {
      name: 'auto_fix as an alternate is dropped without a fix command',
      plan: { strategy: 'context_expand', alternates: ['auto_fix', 'analyze_then_fix'] },
      hasFix: false,
      expected: { strategy: 'context_expand', alternates: ['analyze_then_fix'] },
    },
    {
      name: 'another strategy is left alone',
      plan: { strategy: 'dependency_check', alternates: ['context_expand'] },
      hasFix: false,
      expected: { strategy: 'dependency_check', alternates: ['context_expand'] },
    },
  ]

  it.each(table)('$name', ({ plan, hasFix, expected }) => {
    expect(strategyForFixCoverage(plan, hasFix)).toEqual(expected)
  })

  it('keeps the rest of the analysis', () => {
    const analysis = { pattern: 'lint-error', strategy: 'auto_fix' as const, alternates: [] }
    expect(strategyForFixCoverage(analysis, false)).toEqual({ ...analysis, strategy: 'analyze_then_fix' })
  })

  it('the agent, called on auto_fix, is never told that the controller applied a fix', () => {
    expect(strategyHint('auto_fix')).not.toMatch(/applied/)
    expect(strategyHint('auto_fix')).toMatch(/fix it yourself/)
  })
})
