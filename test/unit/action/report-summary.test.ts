// The job summary of an iteration: what it shows, escaped and redacted, within GitHub's size limit.
import { describe, expect, it } from 'vitest'
import { createRedactor } from '../../../src/domain/redact.js'
import { renderComment, renderSummary, SUMMARY_MAX_BYTES, utf8Length } from '../../../src/domain/report/index.js'
import type { LoopState } from '../../../src/domain/state.js'
import { check, model, state } from './report-fixtures.js'

describe('renderSummary', () => {
  const summary = renderSummary(model())

  it('has the header, stage, verdict and next action', () => {
    expect(summary).toContain('## 🔁 Running · `issue-42` · iteration 4 of 10')
    expect(summary).toContain('**Stage:** VERIFY (capability 2 of 3: `retry-on-timeout`)')
    expect(summary).toContain('**Verdict:** ❌ 1 of 5 checks failed')
    // A running loop needs nothing of a person; what the loop does next is its own line in the comment.
    expect(summary).toContain('**Next:** Nothing: the loop goes on by itself; to stop it, comment `/loop abort`.')
  })

  it.each([
    {
      status: 'blocked' as const,
      next: "Push a fix to `loop/issue-42` or clarify the goal, then run the workflow again with the loop's `loop-id` and `command: resume`; to give up, run the workflow again with the loop's `loop-id` and `command: abort`.",
    },
    {
      status: 'capped' as const,
      // A dispatch with a higher cap re-opens the loop; a resume without one was refused.
      next: "Run the workflow again with the loop's `loop-id` and a `max-iterations` above 4 (above 25 it needs a `cap-reason`): the higher cap re-opens the loop; or finish `loop/issue-42` by hand.",
    },
    {
      status: 'running' as const,
      next: "Nothing: the loop goes on by itself; to stop it, run the workflow again with the loop's `loop-id` and `command: abort`.",
    },
  ])(
    'a $status loop with no issue and no pull request: the workflow `command` input, no comment',
    ({ status, next }) => {
      const base = model({}, { status })
      const text = renderSummary({ ...base, links: { run: 'https://github.com/o/r/actions/runs/1' } })
      expect(text).toContain(`**Next:** ${next}`)
      expect(text).not.toContain('comment `/loop')
      // With a pull request to comment on, the comment is the way.
      expect(renderSummary(base)).toContain('comment `/loop')
    },
  )

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
