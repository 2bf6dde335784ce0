import { describe, expect, it } from 'vitest'
import { mayReachVerification, reachesVerification } from '../../../src/domain/engine/index.js'
import type { Stage } from '../../../src/domain/stages.js'
import { matrix, policyOf, startState } from './helpers.js'

describe('mayReachVerification', () => {
  it.each([
    { pipeline: 'iterate', stage: 'IMPLEMENT', may: true },
    { pipeline: 'iterate', stage: 'VERIFY', may: true },
    { pipeline: 'full', stage: 'SCAFFOLD', may: false },
    { pipeline: 'full', stage: 'IMPLEMENT', may: false },
    { pipeline: 'full', stage: 'TEST', may: true },
    { pipeline: 'full', stage: 'VERIFY', may: true },
    { pipeline: 'full', stage: 'DOCUMENT', may: false },
    { pipeline: ['IMPLEMENT', 'DOCUMENT'], stage: 'IMPLEMENT', may: false },
  ] as const)('$pipeline at $stage: $may', ({ pipeline, stage, may }) => {
    const policy = policyOf({ pipeline: pipeline as never })
    expect(mayReachVerification(stage, startState(policy), policy)).toBe(may)
  })

  it.each([
    {
      title: 'a required task of the stage not done yet',
      config: { stages: { IMPLEMENT: { tasks: [{ name: 'changelog', run: 'true' }] } } },
    },
    {
      title: 'a gate to approve on leaving the stage',
      config: { gates: [{ name: 'design', 'at-stage': 'IMPLEMENT' }] },
    },
  ] as const)('is false where the stage cannot be left whatever the checks say: $title', ({ config }) => {
    const policy = policyOf({ pipeline: 'iterate', ...(config as object) })
    expect(mayReachVerification('IMPLEMENT', startState(policy), policy)).toBe(false)
  })

  it('holds wherever the single job would run the verify-only checks, whatever the checks say', () => {
    for (const pipeline of ['iterate', 'full'] as const) {
      const policy = policyOf({ pipeline })
      const state = startState(policy)
      for (const stage of state.pipeline as Stage[]) {
        for (const failing of [[], ['unit']]) {
          if (reachesVerification(stage, matrix(policy, failing), state, policy)) {
            expect(mayReachVerification(stage, state, policy), `${pipeline} ${stage}`).toBe(true)
          }
        }
      }
    }
  })
})
