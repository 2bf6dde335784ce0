// A job that ran no checks (a person's command, a late dispatch on an ended loop) reports the checks its
// iteration ran in an earlier job instead of wiping the loop's last verdict from the sticky comment.
import { describe, expect, it } from 'vitest'
import { buildReportModel, renderComment, renderSummary } from '../../../src/domain/report/index.js'
import { type CheckResult, checkResultSchema, type LoopState } from '../../../src/domain/state.js'
import { policyOf, startState } from '../engine/helpers.js'

const check = (fields: Partial<CheckResult> & { name: string }): CheckResult =>
  checkResultSchema.parse({ kind: 'test', verdict: 'pass', ...fields })

const earlierPass = check({ name: 'unit' })
const earlierFail = check({ name: 'types', kind: 'typecheck', verdict: 'fail', excerpt: 'src/a.ts(3,1): error TS2322' })
const thisJob = check({ name: 'lint', kind: 'lint' })

/** A loop at iteration 3 whose state recorded the verification of iteration `verified`. */
function stateVerifiedAt(verified: number): LoopState {
  return {
    ...startState(policyOf()),
    iteration: 3,
    lastVerification: { iteration: verified, at: '2025-01-01T00:10:00.000Z', results: [earlierPass, earlierFail] },
  }
}

const modelOf = (state: LoopState, checks: CheckResult[]) =>
  buildReportModel(state, { checks, next: null, nextAction: 'go on', outcome: 'complete' })

describe('checks that ran in an earlier job of the iteration', () => {
  it.each([
    ['this job ran none, the iteration did', 3, [], ['unit', 'types'], true],
    ['this job ran its own', 3, [thisJob], ['lint'], false],
    ['the recorded verification is an older iteration', 2, [], [], false],
  ] as const)('%s', (_case, verified, ran, shown, earlier) => {
    const model = modelOf(stateVerifiedAt(verified), [...ran])
    expect(model.checks.map((c) => c.name)).toEqual(shown)
    expect(model.checksRanEarlier).toBe(earlier)
  })

  it('the sticky comment keeps the last verdict and its table', () => {
    const text = renderComment(modelOf(stateVerifiedAt(3), []))
    expect(text).toContain('Checks of iteration 3: ❌ 1 of 2 checks failed')
    expect(text).toMatch(/\| `types` \| ❌/)
  })

  it('the job summary says the checks ran in an earlier job', () => {
    const text = renderSummary(modelOf(stateVerifiedAt(3), []))
    expect(text).toContain('**Verdict:** ❌ 1 of 2 checks failed (in an earlier job of this iteration)')
    expect(text).not.toContain('No checks ran')
  })

  it('with no verification of this iteration the summary still says none ran', () => {
    const text = renderSummary(modelOf(stateVerifiedAt(2), []))
    expect(text).toContain('**Verdict:** no checks ran ·')
    expect(text).toContain('_No checks ran in this iteration._')
  })
})
