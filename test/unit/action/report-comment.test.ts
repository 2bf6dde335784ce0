// The sticky status comment (progress, the BLOCKED handoff, gates, end states, its size limit) and the
// stage diagram it carries.
import { describe, expect, it } from 'vitest'
import {
  COMMENT_MAX_CHARS,
  renderComment,
  renderStageDiagram,
  renderSummary,
} from '../../../src/domain/report/index.js'
import { at, check, model, state } from './report-fixtures.js'

describe('renderComment', () => {
  it('starts with the hidden marker and shows progress while running', () => {
    const text = renderComment(model())
    expect(text.startsWith('<!-- loop-controller:issue-42 -->\n')).toBe(true)
    expect(text).toContain('### 🔁 Running · `issue-42` · iteration 4 of 10')
    expect(text).toContain('| `types` | ❌ | 8.4 s | `type-error` 0.86 → `context_expand` |')
    expect(text).toContain('- [ ] iteration 5: retry IMPLEMENT with strategy `context_expand` (attempt 2 of 3)')
    expect(text).not.toContain('Human action needed')
  })

  it('posts the BLOCKED handoff', () => {
    const text = renderComment(
      model(
        {
          handoff: {
            reason: 'the same `type-error` came back after `context_expand` and `analyze_then_fix`',
            humanAction: 'decide whether `Delay` is a number of milliseconds or a duration string.',
            suggestion: 'look at src/config.ts:12, where Delay is parsed.',
          },
        },
        { status: 'blocked', statusReason: 'retry budget spent' },
      ),
    )
    expect(text).toContain('### 🚫 BLOCKED: needs a person · `issue-42` · iteration 4 of 10')
    // The reason's own code spans stay code spans: no backslash shows.
    expect(text).toContain('**Why:** the same `type-error` came back after `context_expand` and `analyze_then_fix`.')
    expect(text).toContain(
      "**Failing:** `types` · `src/retry.ts:41:7` · `type-error` · Type 'string' is not assignable to type 'number'.",
    )
    // One count: 3 attempts, the first and then the 2 fixes listed.
    expect(text).toContain(
      '**What was tried** · 3 of 3 attempts on this failure: the first, then 2 fixes · 7 of 10 failures allowed in the loop\n\n1. iteration 5 · `context_expand` · added a type guard in parseDelay → same error',
    )
    expect(text).toContain('2. iteration 6 · `analyze_then_fix` · changed Delay to a union type → same error')
    expect(text).toContain('**Human action needed:** decide whether `Delay` is a number')
    expect(text).toContain(
      '**Next:** Push a fix to `loop/issue-42` or clarify the goal in the issue, then comment `/loop resume`; to give up, comment `/loop abort`.',
    )
    expect(text).toContain('**Where to look:** look at src/config.ts:12')
    expect(text).toContain('<details><summary>Output of types</summary>')
    expect(text).not.toContain('\\`')
    // The reason is said once.
    expect(text.split('came back').length - 1).toBe(1)
  })

  it('falls back to a default human action from the pattern', () => {
    const base = state({ status: 'blocked', statusReason: 'conflict' })
    const text = renderComment(
      model(
        { failures: { ...model().failures, current: { ...base.failures.current!, pattern: 'merge-conflict' } } },
        {
          status: 'blocked',
        },
      ),
    )
    expect(text).toContain('**Human action needed:** resolve the merge conflict on `loop/issue-42`')
  })

  it('says how to approve a waiting gate', () => {
    const text = renderComment(
      model(
        { next: { kind: 'WAIT_FOR_APPROVAL', gate: 'security', reason: 'paths under auth/ changed' } },
        {
          status: 'waiting',
          statusReason: 'gate security',
          gates: { security: { status: 'pending', reason: '', requestedAt: at } },
        },
      ),
    )
    expect(text).toContain('### ⏸️ Waiting for approval of gate `security` · `issue-42` · iteration 4 of 10')
    expect(text).toContain('**Why:** paths under auth/ changed.')
    expect(text).toContain(
      '**Next:** Approve gate `security` (someone with write access): comment `/loop approve security`, add the label `loop/approved:security` or approve the pull request in a review.',
    )
    expect(text).toContain('**Gates:** `security` ⏳ pending')
    expect(text).toContain('state "Waiting for gate security" as WAITING')
  })

  it.each([
    { status: 'complete' as const, heading: '### ✅ COMPLETE · `issue-42` · after 4 iterations' },
    { status: 'capped' as const, heading: '### 🛑 Stopped at the iteration cap · `issue-42` · iteration 4 of 10' },
    { status: 'aborted' as const, heading: '### ⏹️ Aborted · `issue-42` · iteration 4 of 10' },
  ])('has a heading for $status', ({ status, heading }) => {
    expect(renderComment(model({}, { status }))).toContain(heading)
  })

  it.each([
    { limit: 'iterations' as const, heading: '### 🛑 Stopped at the iteration cap · `issue-42`' },
    { limit: 'minutes' as const, heading: '### 🛑 Stopped: the time budget is spent · `issue-42`' },
    { limit: 'tokens' as const, heading: '### 🛑 Stopped: the token budget is spent · `issue-42`' },
    { limit: 'cost' as const, heading: '### 🛑 Stopped: the cost budget is spent · `issue-42`' },
  ])('a capped loop names the limit it reached: $limit', ({ limit, heading }) => {
    const next = { kind: 'CAP_REACHED' as const, limit, reason: `the ${limit} budget is spent` }
    expect(renderComment(model({ next }, { status: 'capped' }))).toContain(heading)
  })

  it('a loop aborted before its first iteration (while queued) is said as never started, in no stage', () => {
    const neverRan = model(
      { checks: [], links: {} },
      { status: 'aborted', statusReason: 'aborted by alice, while queued', iteration: 0, stage: 'IMPLEMENT' },
    )
    const aborted = renderComment(neverRan)
    expect(aborted).toContain('· `issue-42` · never started')
    expect(aborted).not.toContain('iteration 0 of')
    expect(aborted).toContain('  [*] --> ABORTED')
    expect(aborted).toContain('state "Aborted before its first iteration" as ABORTED')
    expect(aborted).not.toMatch(/VERIFY --> ABORTED/)
    expect(renderSummary(neverRan)).toContain('**Aborted before it started:** no iteration ran')
    expect(renderSummary(neverRan)).not.toMatch(/Verdict|Stage:|No checks ran|Metrics/)
  })

  it('stays under 65,536 characters with huge inputs', () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      check({ name: `c${i}`, verdict: 'fail', excerpt: 'y'.repeat(4000) }),
    )
    const base = model({}, { status: 'blocked' })
    const text = renderComment({
      ...base,
      checks: many,
      outputs: { c0: 'z\n'.repeat(2_000_000) },
      failures: {
        ...base.failures,
        current: { ...base.failures.current!, check: 'c0' },
        tried: Array.from({ length: 500 }, (_, i) => ({
          strategy: 'context_expand' as const,
          iteration: i,
          outcome: 'o'.repeat(5000),
        })),
      },
      handoff: { reason: 'r'.repeat(100_000), humanAction: 'h'.repeat(100_000), suggestion: 's'.repeat(100_000) },
    })
    expect(text.length).toBeLessThan(COMMENT_MAX_CHARS)
    expect(text.startsWith('<!-- loop-controller:issue-42 -->')).toBe(true)
    expect(text).toContain('(480 earlier attempts are in the audit trail)')
  })
})

describe('renderStageDiagram: where the loop stands', () => {
  const iterate = ['IMPLEMENT', 'VERIFY', 'COMPLETE'] as const
  const base = { pipeline: iterate, iteration: 3, maxIterations: 8, verdict: 'fail' as const, gate: null }
  it.each([
    {
      name: 'full pipeline running in VERIFY',
      input: {
        ...base,
        pipeline: [
          'INIT',
          'SCAFFOLD',
          'IMPLEMENT',
          'TEST',
          'VERIFY',
          'VALIDATE',
          'DOCUMENT',
          'REVIEW',
          'SHIP',
          'COMPLETE',
        ] as const,
        stage: 'VERIFY' as const,
        status: 'running' as const,
        verdict: 'none' as const,
      },
      expected: [
        '  VERIFY --> IMPLEMENT: retry · iteration 3 of 8',
        '  class INIT,SCAFFOLD,IMPLEMENT,TEST done',
        '  class VERIFY current',
      ],
      absent: ['BLOCKED', 'failed'],
    },
    {
      name: 'running again after a failed verification',
      input: { ...base, stage: 'IMPLEMENT' as const, status: 'running' as const },
      expected: ['  class VERIFY failed', '  class IMPLEMENT current'],
      absent: ['stopped'],
    },
    {
      name: 'BLOCKED: its own state, reached from the failed VERIFY',
      input: { ...base, stage: 'IMPLEMENT' as const, status: 'blocked' as const },
      expected: [
        '  state "BLOCKED at iteration 3 of 8" as BLOCKED',
        '  VERIFY --> BLOCKED',
        '  class VERIFY failed',
        '  class BLOCKED stopped',
      ],
      absent: ['class IMPLEMENT'],
    },
    {
      name: 'capped: the cap is a state, with the count',
      input: { ...base, iteration: 8, stage: 'IMPLEMENT' as const, status: 'capped' as const },
      expected: ['  state "Cap reached: 8 of 8 iterations" as CAPPED', '  VERIFY --> CAPPED', '  class CAPPED stopped'],
      absent: ['BLOCKED'],
    },
    {
      name: 'waiting at a gate',
      input: {
        ...base,
        stage: 'VERIFY' as const,
        status: 'waiting' as const,
        verdict: 'pass' as const,
        gate: 'security',
      },
      expected: ['  state "Waiting for gate security" as WAITING', '  class WAITING waiting', '  class VERIFY current'],
      absent: ['failed'],
    },
    {
      name: 'complete, with the iterations it took',
      input: { ...base, stage: 'COMPLETE' as const, status: 'complete' as const, verdict: 'pass' as const },
      expected: ['  state "COMPLETE in 3 iterations" as COMPLETE', '  class IMPLEMENT,VERIFY,COMPLETE done'],
      absent: ['failed', 'current'],
    },
  ])('$name', ({ input, expected, absent }) => {
    const diagram = renderStageDiagram(input)
    expect(diagram.startsWith('```mermaid\nstateDiagram-v2\n  direction LR\n')).toBe(true)
    const lines = diagram.split('\n')
    for (const line of expected) expect(lines).toContain(line)
    const classLines = lines.filter((line) => line.startsWith('  class ') || line.startsWith('  state ')).join('\n')
    for (const word of absent) expect(classLines).not.toContain(word)
    expect(diagram).not.toMatch(/--> \w+ -->/)
  })
})
