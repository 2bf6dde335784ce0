import { describe, expect, it } from 'vitest'
import { COMPACTION_LIMITS, compactState } from '../../../src/domain/engine/index.js'
import { loopStateSchema } from '../../../src/domain/state.js'
import { failure, iterate, policyOf, startState } from './helpers.js'

describe('compactState', () => {
  it('keeps a 1,000-iteration loop well under 1 MiB, with aggregates intact', () => {
    const policy = policyOf({
      'max-iterations': 1000,
      'cap-reason': 'a synthetic long loop for the size test',
      retry: { 'per-failure': 20, 'same-error': 20, total: 100 },
    })
    let state = startState(policy)
    // Failures on alternating checks with long output, resolved now and then: every list grows.
    const long = Array.from({ length: 300 }, (_, i) => `word${i % 50}`).join(' ')
    for (let i = 0; i < 1000; i++) {
      const green = i % 5 === 4
      const f =
        i % 2 === 0
          ? failure('types', { text: `${long} ${i}` })
          : failure('lint', { kind: 'lint', pattern: 'lint-error', text: `${long} lint ${i}` })
      state = iterate(state, policy, { failing: green ? [] : [f] }).state
      if (state.status === 'complete') state = { ...state, status: 'running', stage: 'IMPLEMENT' }
      if (state.status === 'blocked')
        state = {
          ...state,
          status: 'running',
          failures: { ...state.failures, total: 0, current: null, consecutive: 0, sameError: 0, tried: [] },
        }
    }
    const bytes = Buffer.byteLength(JSON.stringify(state))
    expect(state.iteration).toBe(1000)
    expect(bytes).toBeLessThan(256 * 1024)
    expect(state.usage.log.length).toBeLessThanOrEqual(COMPACTION_LIMITS.usageLog)
    expect(state.usage.compacted).toBeGreaterThan(0)
    expect(state.failures.history.length).toBeLessThanOrEqual(COMPACTION_LIMITS.failureHistory)
    expect(state.failures.compacted + state.failures.history.length).toBeGreaterThan(500)
    expect(state.metrics.attempts.length).toBeLessThanOrEqual(COMPACTION_LIMITS.attempts)
    expect(state.metrics.workCalls).toBe(1000)
    const attempts = Object.values(state.metrics.byPattern).reduce((sum, p) => sum + p.attempts, 0)
    expect(attempts).toBeGreaterThan(COMPACTION_LIMITS.attempts)
    expect(() => loopStateSchema.parse(state)).not.toThrow()
  })

  it('returns the same object when nothing needs trimming', () => {
    const state = startState(policyOf())
    expect(compactState(state)).toBe(state)
  })
})
