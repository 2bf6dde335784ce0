import { describe, expect, it } from 'vitest'
import { CAP_WITHOUT_REASON, type CapSettingNames, capNeedsReason } from '../../../src/domain/caps.js'

const FLAGS: CapSettingNames = { cap: '--max-iterations', reason: '--cap-reason' }

describe('capNeedsReason: above the cap without a reason, a message naming the setting, the value and the fix', () => {
  it.each([
    { max: 1, reason: undefined, problem: undefined },
    { max: CAP_WITHOUT_REASON, reason: undefined, problem: undefined },
    { max: CAP_WITHOUT_REASON, reason: '', problem: undefined },
    { max: CAP_WITHOUT_REASON + 1, reason: 'a large migration', problem: undefined },
    { max: 1000, reason: 'reviewed', problem: undefined },
    {
      max: CAP_WITHOUT_REASON + 1,
      reason: undefined,
      problem: /^max-iterations is 26, above 25: set cap-reason to say why .* or lower the cap to 25 or less\.$/,
    },
    { max: 40, reason: '', problem: /^max-iterations is 40, above 25: set cap-reason/ },
    { max: 40, reason: '   ', problem: /^max-iterations is 40, above 25: set cap-reason/ },
  ])('max $max, reason $reason', ({ max, reason, problem }) => {
    const message = capNeedsReason(max, reason)
    if (problem === undefined) expect(message).toBeUndefined()
    else expect(message).toMatch(problem)
  })

  it.each([
    { names: FLAGS, expected: /^--max-iterations is 40, above 25: set --cap-reason to say why/ },
    {
      names: { cap: "Input 'max-iterations'", reason: "'cap-reason'" },
      expected: /^Input 'max-iterations' is 40, above 25: set 'cap-reason' to say why/,
    },
  ])('names the cap the way it was set: $names.cap', ({ names, expected }) => {
    expect(capNeedsReason(40, undefined, names)).toMatch(expected)
  })
})
