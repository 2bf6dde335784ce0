// A regression reaches the person: the job summary and the sticky comment call a check that passed at
// the baseline and fails now a regression, in its row and in the verdict line.
import { describe, expect, it } from 'vitest'
import { buildReportModel, renderComment, renderSummary } from '../../../src/domain/report/index.js'
import { type CheckResult, checkResultSchema } from '../../../src/domain/state.js'
import { policyOf, startState } from '../engine/helpers.js'

const check = (fields: Partial<CheckResult> & { name: string }): CheckResult =>
  checkResultSchema.parse({ kind: 'test', verdict: 'fail', ...fields })

const regressed = check({ name: 'unit', pattern: 'regression-detected', strategy: 'context_expand', regression: true })
const failedBefore = check({ name: 'types', kind: 'typecheck', pattern: 'type-error', confidence: 0.95 })
const passing = check({ name: 'lint', kind: 'lint', verdict: 'pass' })

const model = (checks: CheckResult[]) =>
  buildReportModel(startState(policyOf()), { checks, next: null, nextAction: 'go on', outcome: 'continue' })

describe('regressions in the reports', () => {
  it.each([
    ['the job summary', renderSummary],
    ['the sticky comment', renderComment],
  ])('%s marks the regressed check and counts it in the verdict', (_where, render) => {
    const text = render(model([regressed, failedBefore, passing]))
    const row = (name: string) => text.split('\n').find((line) => line.startsWith(`| \`${name}\``)) ?? ''
    expect(row('unit')).toContain('❌ regression')
    expect(row('types')).not.toContain('regression')
    expect(row('lint')).not.toContain('regression')
    expect(text).toContain('2 of 3 checks failed, 1 of them a regression')
  })

  it.each([
    ['the job summary', renderSummary],
    ['the sticky comment', renderComment],
  ])('%s says nothing of regressions when there is none', (_where, render) => {
    const text = render(model([failedBefore, passing]))
    expect(text).not.toMatch(/regression(?!s)/)
  })
})
