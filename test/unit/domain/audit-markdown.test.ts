import { describe, expect, it } from 'vitest'
import { briefingLine, describeFailure } from '../../../src/domain/audit-markdown.js'
import type { FailureForAgent } from '../../../src/domain/work-context.js'

const failure = (over: Partial<FailureForAgent>): FailureForAgent => ({
  check: 'unit',
  kind: 'test',
  pattern: null,
  confidence: null,
  strategy: 'analyze_then_fix',
  locations: [],
  excerpt: '',
  ...over,
})

describe('describeFailure', () => {
  it.each([
    [failure({}), '`unit` (test): no known pattern'],
    [
      failure({ pattern: 'vitest-assertion', locations: [{ file: 'src/a.ts', line: 3 }, { file: 'b.ts' }] }),
      '`unit` (test): vitest-assertion at src/a.ts:3',
    ],
    [
      failure({ check: 'fmt', kind: 'format', locations: [{ file: 'code.txt' }] }),
      '`fmt` (format): no known pattern at code.txt',
    ],
  ])('%# names the check, its kind, pattern and first location', (input, expected) => {
    expect(describeFailure(input)).toBe(expected)
  })
})

describe('briefingLine', () => {
  it.each([
    [{ fixedFirst: [], toldAgent: ['unit'] }, 'The agent is told of: `unit`'],
    [
      { fixedFirst: ['format'], toldAgent: ['unit', 'lint'] },
      'The agent is told of: `unit`, `lint` · the controller fixes itself, with its fix command before the agent: `format`',
    ],
    [
      { fixedFirst: ['format'], toldAgent: null },
      'The agent is told of: none (the work did not run) · the controller fixes itself, with its fix command before the agent: `format`',
    ],
    [{ fixedFirst: [], toldAgent: [] }, 'The agent is told of: none'],
  ])('%# says who is to fix what', (input, expected) => {
    expect(briefingLine(input)).toBe(expected)
  })
})
