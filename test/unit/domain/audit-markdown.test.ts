import { describe, expect, it } from 'vitest'
import { briefingLine, describeFailure, renderIterationMarkdown } from '../../../src/domain/audit-markdown.js'
import type { Decision } from '../../../src/domain/engine/index.js'
import type { FailureForAgent } from '../../../src/domain/work-context.js'
import { checks, state } from '../action/report-fixtures.js'

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

describe('renderIterationMarkdown: the strategy column', () => {
  // `types` failed; its pattern proposes context_expand (the check result's strategy).
  const retry = (strategy: 'analyze_then_fix' | 'context_expand'): Decision => ({
    kind: 'RETRY',
    stage: 'VERIFY',
    capability: null,
    strategy,
    attempt: 3,
    maxAttempts: 3,
    backoffMs: 0,
    reason: 'r',
  })
  const row = (status: 'running' | 'blocked', next: Decision) =>
    renderIterationMarkdown({
      state: state({ status }),
      decision: retry('context_expand'),
      next,
      checks: checks.map((result) => ({ result, output: '', analysis: null })),
      work: null,
      diffStat: '',
      commit: null,
    })
      .split('\n')
      .filter((line) => line.startsWith('| types ') || line.startsWith('| format ') || line.startsWith('| check '))

  it.each<[string, 'running' | 'blocked', Decision, string]>([
    ['the strategy switched to', 'running', retry('analyze_then_fix'), 'analyze_then_fix'],
    [
      'a person once BLOCKED',
      'blocked',
      { kind: 'WAIT_FOR_HUMAN', reason: 'no untried strategy is left' },
      'escalate: a person',
    ],
    ['none when the cap stops the loop', 'running', { kind: 'CAP_REACHED', limit: 'iterations', reason: 'r' }, ''],
  ])('names what the loop takes, not the pattern’s proposal: %s', (_name, status, next, taken) => {
    const [header, types, format] = row(status, next)
    expect(header).toBe('| check | kind | verdict | time | pattern | confidence | strategy taken |')
    expect(types).toBe(`| types | typecheck | fail | 8.4 s | type-error | 0.86 | ${taken} |`)
    // Its fix command made it pass: the controller took auto_fix.
    expect(format).toBe('| format | format | pass (auto-fixed) | 0.5 s | format-error |  | auto_fix |')
  })
})
