// Fan-out's baseline round runs no iteration: its reports say it measured the baseline before any work
// and that iteration 1 is next, showing the checks at the base, never an iteration that did not run.
import { describe, expect, it } from 'vitest'
import { buildReportModel, renderComment, renderSummary } from '../../../src/domain/report/index.js'
import { lastVerdictText } from '../../../src/domain/report/loops-table.js'
import { type CheckResult, checkResultSchema, type LoopState } from '../../../src/domain/state.js'
import { policyOf, startState } from '../engine/helpers.js'

const check = (fields: Partial<CheckResult> & { name: string }): CheckResult =>
  checkResultSchema.parse({ kind: 'test', verdict: 'pass', ...fields })
const atBase = [check({ name: 'unit', verdict: 'fail', excerpt: 'AssertionError' }), check({ name: 'lint' })]

/** The loop after its baseline round: no iteration ran, the baseline is recorded. */
const afterRound: LoopState = {
  ...startState(policyOf()),
  baseline: { takenAt: '2025-01-01T00:00:00.000Z', checks: { unit: 'fail', lint: 'pass' }, tests: {}, failures: [] },
}
const model = buildReportModel(afterRound, {
  checks: atBase,
  baselineRound: { iteration: 1 },
  next: { kind: 'EXECUTE_STAGE', stage: 'IMPLEMENT', capability: null, reason: 'first attempt' },
  nextAction: 'run iteration 1 (IMPLEMENT)',
  outcome: 'continue',
})

describe('the reports of a baseline round', () => {
  it('the summary names the round and the iteration next, and gives the checks as the baseline’s', () => {
    const text = renderSummary(model)
    expect(text).toContain('the baseline round, before iteration 1 of')
    expect(text).toContain('**Baseline** (the checks at the base, before any work): ❌ 1 of 2 checks failed')
    expect(text).not.toContain('**Verdict:**')
    // The stage diagram's retry edge counts the iterations run: none yet.
    expect(text).toContain('retry · iteration 0 of')
  })

  it('the sticky comment folds the checks at the baseline, not an iteration’s', () => {
    const text = renderComment(model)
    expect(text).toContain('the baseline round, before iteration 1 of')
    expect(text).toContain('Checks at the baseline, before iteration 1: ❌ 1 of 2 checks failed')
    expect(text).not.toContain('Checks of iteration')
  })

  it('the dashboard’s last verdict is the baseline’s until a verification is recorded', () => {
    expect(lastVerdictText(afterRound)).toBe('baseline: fail: unit (1 of 2)')
    expect(lastVerdictText(startState(policyOf()))).toBe('-')
    const verified: LoopState = {
      ...afterRound,
      lastVerification: { iteration: 1, at: '2025-01-01T00:10:00.000Z', results: [check({ name: 'unit' })] },
    }
    expect(lastVerdictText(verified)).toBe('pass (all 1)')
  })
})
