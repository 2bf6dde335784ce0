import { describe, expect, it } from 'vitest'
import { createRedactor } from '../../../src/domain/redact.js'
import {
  annotationPath,
  buildReportModel,
  COMMENT_MAX_CHARS,
  codeBlock,
  inlineText,
  locationsOf,
  markdownText,
  type ReportModel,
  renderComment,
  renderStageDiagram,
  renderSummary,
  SUMMARY_MAX_BYTES,
  selectAnnotations,
  trimOutput,
  utf8Length,
} from '../../../src/domain/report/index.js'
import { type CheckResult, type LoopState, loopStateSchema } from '../../../src/domain/state.js'

const at = '2026-01-01T00:00:00.000Z'

function state(overrides: Partial<LoopState> = {}): LoopState {
  return loopStateSchema.parse({
    schemaVersion: 1,
    loopId: 'issue-42',
    iteration: 4,
    stage: 'VERIFY',
    status: 'running',
    statusReason: '',
    goal: 'make it pass',
    pipeline: ['INIT', 'SCAFFOLD', 'IMPLEMENT', 'TEST', 'VERIFY', 'VALIDATE', 'DOCUMENT', 'REVIEW', 'SHIP', 'COMPLETE'],
    maxIterations: 10,
    startedAt: at,
    updatedAt: at,
    stageEnteredAt: at,
    capabilities: { total: 3, completed: ['parse'], current: 'retry-on-timeout', remaining: ['report'] },
    stages: {},
    failures: {
      total: 7,
      consecutive: 3,
      sameError: 2,
      limits: { perFailure: 3, sameError: 2, total: 10 },
      current: {
        iteration: 7,
        stage: 'VERIFY',
        check: 'types',
        error: "src/retry.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        pattern: 'type-error',
        strategy: 'context_expand',
        signature: 'type-error:ts:abc',
        at,
      },
      tried: [
        { strategy: 'context_expand', iteration: 5, outcome: 'added a type guard in parseDelay → same error' },
        { strategy: 'analyze_then_fix', iteration: 6, outcome: 'changed Delay to a union type → same error' },
      ],
      history: [],
    },
    gates: {},
    checkpoints: [],
    tasks: { completed: [], skipped: [] },
    usage: { log: [], wallMs: 23 * 60_000, tokens: 0, costUsd: 1.84 },
    budget: { minutes: 90, costUsd: 10 },
    metrics: {},
    ...overrides,
  })
}

function check(partial: Partial<CheckResult> & { name: string }): CheckResult {
  return {
    kind: 'custom',
    verdict: 'pass',
    required: true,
    durationMs: 1000,
    exitCode: 0,
    pattern: null,
    confidence: null,
    strategy: null,
    signature: null,
    locations: [],
    excerpt: '',
    autoFixed: false,
    ...partial,
  }
}

const checks: CheckResult[] = [
  check({ name: 'build', kind: 'build', durationMs: 12_100 }),
  check({
    name: 'types',
    kind: 'typecheck',
    verdict: 'fail',
    durationMs: 8_400,
    exitCode: 2,
    pattern: 'type-error',
    confidence: 0.86,
    strategy: 'context_expand',
    locations: [
      { file: 'src/retry.ts', line: 41, column: 7, message: "Type 'string' is not assignable to type 'number'." },
      { file: 'src/retry.ts', line: 57, column: 3, message: 'Another error.' },
    ],
    excerpt: "src/retry.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.",
  }),
  check({ name: 'unit', kind: 'test', verdict: 'skipped', skippedReason: 'needs types' }),
  check({ name: 'lint', kind: 'lint', durationMs: 3_000 }),
  check({
    name: 'format',
    kind: 'format',
    durationMs: 500,
    autoFixed: true,
    pattern: 'format-error',
    strategy: 'auto_fix',
  }),
]

function model(overrides: Partial<ReportModel> = {}, stateOverrides: Partial<LoopState> = {}): ReportModel {
  return {
    ...buildReportModel(state(stateOverrides), {
      checks,
      next: null,
      nextAction: 'retry IMPLEMENT with strategy `context_expand` (attempt 2 of 3)',
      outcome: 'continue',
      links: {
        auditTrail: 'https://github.com/o/r/actions/runs/1/artifacts/2',
        pullRequest: { number: 57, url: 'https://github.com/o/r/pull/57' },
      },
    }),
    ...overrides,
  }
}

describe('renderSummary', () => {
  const summary = renderSummary(model())

  it('has the header, stage, verdict and next action', () => {
    expect(summary).toContain('## 🔁 Running · `issue-42` · iteration 4 of 10')
    expect(summary).toContain('**Stage:** VERIFY (capability 2 of 3: `retry-on-timeout`)')
    expect(summary).toContain('**Verdict:** ❌ 1 of 5 checks failed')
    // A running loop needs nothing of a person; what the loop does next is its own line in the comment.
    expect(summary).toContain('**Next:** Nothing: the loop goes on by itself; to stop it, comment `/loop abort`.')
  })

  it('has the iteration table', () => {
    expect(summary).toContain('| check | verdict | time | analysis |')
    expect(summary).toContain('| `build` | ✅ | 12.1 s |  |')
    expect(summary).toContain('| `types` | ❌ | 8.4 s | `type-error` 0.86 → `context_expand` |')
    expect(summary).toContain('| `unit` | ⏭️ skipped (needs types) |  |  |')
    expect(summary).toContain('| `format` | ✅ auto-fixed | 500 ms | `format-error` → `auto_fix` |')
  })

  it('has a collapsible output per failing check', () => {
    expect(summary).toContain('<details><summary>types: fail (src/retry.ts:41:7, src/retry.ts:57:3)</summary>')
    expect(summary).toContain(
      "```text\nsrc/retry.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.\n```",
    )
    expect(summary).not.toContain('<summary>build')
  })

  it('has what was spent and the links', () => {
    expect(summary).toContain(
      '**Spent:** 23 min 0 s of 90 min · $1.84 of $10.00 · [audit trail](https://github.com/o/r/actions/runs/1/artifacts/2) · [pull request \\#57](https://github.com/o/r/pull/57)',
    )
    expect(summary).toContain('<sub>Updated 2026-01-01 00:00 UTC</sub>')
  })

  it('has only the table columns some check fills', () => {
    const text = renderSummary(model({ checks: [check({ name: 'build' }), check({ name: 'unit' })] }))
    expect(text).toContain('| check | verdict | time |\n| --- | --- | --- |\n| `build` | ✅ | 1.0 s |')
    expect(text).toContain('✅ all 2 checks passed')
    expect(renderSummary(model({ checks: [check({ name: 'build' })] }))).toContain('✅ the 1 check passed')
  })

  it('lists locations past the annotation limit', () => {
    const overflow = Array.from({ length: 3 }, (_, i) => ({
      file: 'a.ts',
      line: i + 1,
      title: 'types',
      message: `m${i}`,
    }))
    const text = renderSummary(model(), { overflowLocations: overflow })
    expect(text).toContain('3 more locations (GitHub shows 10 annotations per step)')
    expect(text).toContain('- `a.ts:3` types: m2')
  })

  it('escapes untrusted output and text', () => {
    const hostile = check({
      name: 'evil',
      verdict: 'fail',
      excerpt: '```\n</details><img src=x onerror=alert(1)>\n::set-output name=x::1\n@octocat',
      locations: [{ file: '<b>x</b>.ts', line: 1 }],
    })
    const text = renderSummary(
      model({ checks: [hostile], nextAction: '<script>alert(1)</script> | @admin `x`', statusReason: 'x' }),
    )
    expect(text).toContain('````text\n```\n</details>')
    expect(text).toContain(':\u200b:set-output')
    expect(text).toContain('<summary>evil: fail (&lt;b&gt;x&lt;/b&gt;.ts:1)</summary>')
    // The hostile next action is a running loop's plan: the checklist shows it, escaped, with its
    // own code span kept (a code span is inert).
    const comment = renderComment(
      model({ checks: [hostile], nextAction: '<script>alert(1)</script> | @admin `x`', statusReason: 'x' }),
    )
    expect(comment).toContain('&lt;script&gt;alert(1)&lt;/script&gt; \\| @\u200badmin `x`')
    expect(text).not.toContain('<script>')
    expect(comment).not.toContain('<script>')
  })

  it('redacts secrets in everything it shows', () => {
    const token = `ghp_${'a'.repeat(36)}`
    const text = renderSummary(
      model({
        checks: [check({ name: 'x', verdict: 'fail', excerpt: `token ${token} and hunter2-secret` })],
        nextAction: `use hunter2-secret`,
      }),
      { redact: createRedactor(['hunter2-secret']) },
    )
    expect(text).not.toContain(token)
    expect(text).not.toContain('hunter2-secret')
    expect(text).toContain('[redacted:github-token]')
  })

  it('stays under 1 MiB with huge inputs, pointing at the audit trail', () => {
    const huge = 'é🔥 error line\n'.repeat(400_000)
    const many = Array.from({ length: 5000 }, (_, i) =>
      check({ name: `check-${i}`, verdict: 'fail', excerpt: 'x', locations: [{ file: 'f.ts', line: i }] }),
    )
    const outputs = Object.fromEntries(many.map((c) => [c.name, huge]))
    const text = renderSummary(model({ checks: many, outputs, nextAction: 'n'.repeat(100_000) }))
    expect(utf8Length(text)).toBeLessThan(SUMMARY_MAX_BYTES)
    expect(text).toContain('trimmed; the full output is in the audit trail')
    expect(text).toContain('… and 4800 more checks')
    expect(text).toContain('… and 4980 more failing checks')
  })

  it('counts one of a kind in the singular', () => {
    const many = Array.from({ length: 201 }, (_, i) => check({ name: `c${i}` }))
    expect(renderSummary(model({ checks: many }))).toContain('_… and 1 more check; every one is in the audit trail._')
    const failing = Array.from({ length: 21 }, (_, i) => check({ name: `f${i}`, verdict: 'fail', excerpt: 'x' }))
    expect(renderSummary(model({ checks: failing }))).toContain('_… and 1 more failing check; its output is in')
    const one = [{ file: 'a.ts', line: 1, title: 't', message: 'm' }]
    expect(renderSummary(model(), { overflowLocations: one })).toContain('1 more location (GitHub')
  })

  it('cuts to any smaller limit and says where the rest is', () => {
    const text = renderSummary(model({ outputs: { types: 'line\n'.repeat(100_000) } }), { limit: 5_000 })
    expect(utf8Length(text)).toBeLessThanOrEqual(5_000)
    expect(text).toContain('audit trail')
  })
})

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

describe('annotations', () => {
  it('selects at most 10, removes duplicates and returns the overflow', () => {
    const failing = check({
      name: 'types',
      verdict: 'fail',
      pattern: 'type-error',
      locations: [
        ...Array.from({ length: 12 }, (_, i) => ({ file: `/work/repo/src/f${i}.ts`, line: i + 1, message: 'bad' })),
        { file: '/work/repo/src/f0.ts', line: 1, message: 'bad' },
      ],
    })
    const passing = check({ name: 'ok', locations: [{ file: 'x.ts', line: 1 }] })
    const { annotations, overflow } = selectAnnotations(locationsOf([passing, failing]), 10, '/work/repo/')
    expect(annotations).toHaveLength(10)
    expect(overflow).toHaveLength(2)
    expect(annotations[0]).toEqual({ file: 'src/f0.ts', line: 1, title: 'types: type-error', message: 'bad' })
    expect(overflow.map((a) => a.file)).toEqual(['src/f10.ts', 'src/f11.ts'])
  })

  it.each([
    {
      name: 'a terse message gets the line that names what failed',
      message: 'expected: 9',
      excerpt: '\nnot ok 1 - a cart total counts every unit\n  expected: 9\n  actual: 8',
      expected: 'not ok 1 - a cart total counts every unit\nexpected: 9',
    },
    {
      name: 'a message that says enough stays alone',
      message: "Type 'string' is not assignable to type 'number'.",
      excerpt: 'src/retry.ts(41,7): error TS2322',
      expected: "Type 'string' is not assignable to type 'number'.",
    },
    {
      name: 'no message: the check and the line',
      message: undefined,
      excerpt: '```\nSegmentation fault',
      expected: 'unit failed here: Segmentation fault',
    },
  ])('$name', ({ message, excerpt, expected }) => {
    const failing = check({
      name: 'unit',
      verdict: 'fail',
      excerpt,
      locations: [{ file: 'a.js', line: 3, ...(message ? { message } : {}) }],
    })
    expect(selectAnnotations(locationsOf([failing])).annotations[0]?.message).toBe(expected)
  })

  it.each([
    { file: './src/a.ts', root: '', expected: 'src/a.ts' },
    { file: 'C:\\w\\src\\a.ts', root: 'C:\\w', expected: 'src/a.ts' },
    { file: '/elsewhere/a.ts', root: '/work', expected: '/elsewhere/a.ts' },
  ])('makes $file relative to $root', ({ file, root, expected }) => {
    expect(annotationPath(file, root)).toBe(expected)
  })
})

describe('escaping and trimming', () => {
  it.each([
    { text: 'a | b', expected: 'a \\| b' },
    { text: 'line1\nline2', expected: 'line1 line2' },
    { text: '<img src=x>', expected: '&lt;img src=x&gt;' },
    { text: '[x](javascript:alert(1))', expected: '\\[x\\](javascript:alert(1))' },
    { text: 'cc @team', expected: 'cc @\u200bteam' },
  ])('inlineText($text)', ({ text, expected }) => {
    expect(inlineText(text)).toBe(expected)
  })

  it.each([
    // The text's own code spans stay code spans: no backslash shows before a backtick.
    { text: 'then `/loop resume` or `loop resume`', expected: 'then `/loop resume` or `loop resume`' },
    { text: 'Fix the cause on `loop/blocked`.', expected: 'Fix the cause on `loop/blocked`.' },
    { text: 'a_b `a_b` *c*', expected: 'a\\_b `a_b` \\*c\\*' },
    // A span is inert, so hostile text inside one stays as it is; outside one it is escaped.
    { text: '`<script>` <script> @x `@x`', expected: '`<script>` &lt;script&gt; @\u200bx `@x`' },
    // What cannot be a span of its own stays escaped: a lone backtick, a `|`, padded or empty spans.
    { text: 'a ` b', expected: 'a \\` b' },
    { text: '`a|b`', expected: '\\`a\\|b\\`' },
    { text: '` a `', expected: '\\` a \\`' },
    { text: '``', expected: '\\`\\`' },
  ])('markdownText($text)', ({ text, expected }) => {
    expect(markdownText(text)).toBe(expected)
  })

  it('picks a fence longer than any backtick run', () => {
    expect(codeBlock('a ````` b')).toBe('``````text\na ````` b\n``````')
  })

  it('keeps head and tail with a marker', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n')
    const trimmed = trimOutput(text, 300)
    expect(trimmed.length).toBeLessThan(400)
    expect(trimmed.startsWith('line 0\n')).toBe(true)
    expect(trimmed.endsWith('line 999')).toBe(true)
    expect(trimmed).toMatch(/… \d+ lines \(\d+ characters\) trimmed; the full output is in the audit trail …/)
  })
})

describe('the metrics line in the summary', () => {
  const metrics = (m: Partial<LoopState['metrics']>): LoopState['metrics'] => ({ ...state().metrics, ...m })
  it.each([
    {
      name: 'a fresh loop',
      metrics: metrics({}),
      expected: ['**Metrics:** 0 agent calls · 0 auto-fixes · 0 flakes · 0 regressions · escalation rate 0%'],
    },
    {
      name: 'a loop with work done and patterns met',
      metrics: metrics({
        workCalls: 3,
        autoFixes: 1,
        flakes: 1,
        regressions: 2,
        byPattern: { 'type-error': { attempts: 2, resolved: 1, escalated: 0 } },
      }),
      expected: ['3 agent calls · 1 auto-fix · 1 flake · 2 regressions', '`type-error`'],
    },
  ])('$name', ({ metrics: m, expected }) => {
    const summary = renderSummary(model({}, { metrics: m }))
    for (const text of expected) expect(summary).toContain(text)
  })
})
