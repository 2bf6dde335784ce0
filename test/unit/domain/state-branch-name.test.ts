// The state branch's name, as the action's `state-branch` input and the CLI's --state-branch take it:
// a name git keeps, and a refusal that says every rule, so a name refused for its end is told why.
import { describe, expect, it } from 'vitest'
import { validStateBranch } from '../../../src/cli/options.js'
import { parseActionInputs } from '../../../src/config/action-inputs.js'
import { isStateBranchName } from '../../../src/domain/loop-names.js'

describe('the state branch name', () => {
  it.each([
    ['loop-state', true],
    ['loops/state_1.0', true],
    ['a'.repeat(200), true],
    ['a'.repeat(201), false],
    ['-state', false],
    ['loop..state', false],
    ['loop/', false],
    ['state.lock', false],
    ['loop state', false],
  ])('%s: %s', (name, taken) => {
    expect(isStateBranchName(name)).toBe(taken)
  })

  it.each(['state.lock', 'loop/', 'a'.repeat(201)])('a refusal of %s names the rule it breaks', (name) => {
    const rules = /at most 200 characters, with no '\.\.' and no trailing '\/' or '\.lock'/
    expect(() => validStateBranch(name)).toThrow(rules)
    const inputs: Record<string, string> = { 'github-token': 'tok', 'state-branch': name }
    const event = { eventName: 'workflow_dispatch', payload: {}, runId: 1 }
    expect(() => parseActionInputs((input) => inputs[input] ?? '', event)).toThrow(rules)
  })
})
