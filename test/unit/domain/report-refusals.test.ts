// A path the checkpoint refused reaches the person: the job summary and the sticky comment say which,
// why and what to do.
import { describe, expect, it } from 'vitest'
import { buildReportModel, renderComment, renderSummary } from '../../../src/domain/report/index.js'
import { policyOf, startState } from '../engine/helpers.js'

describe('refused paths in the reports', () => {
  const state = {
    ...startState(policyOf()),
    refusedFromCommit: [
      {
        iteration: 1,
        path: '.github/workflows/x.yml',
        reason: 'a workflow file added',
        remedy: 'set commit.allow-workflows: true',
      },
    ],
  }
  const model = buildReportModel(state, { checks: [], next: null, nextAction: 'go on', outcome: 'continue' })

  it.each([
    ['the job summary', renderSummary(model)],
    ['the sticky comment', renderComment(model)],
  ])('%s names the path, why and what to do', (_where, text) => {
    expect(text).toContain('**Not committed**')
    expect(text).toMatch(/`\.github\/workflows\/x\.yml`: a workflow file added; set commit\.allow-workflows: true/)
  })

  it('nothing refused, nothing said', () => {
    const quiet = buildReportModel(startState(policyOf()), {
      checks: [],
      next: null,
      nextAction: 'go on',
      outcome: 'continue',
    })
    expect(renderSummary(quiet)).not.toContain('Not committed')
  })
})
