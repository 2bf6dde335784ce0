// Secrets on the action's side (issue 7, item 5): the report renderers (job summary and sticky comment),
// given a model whose untrusted text is full of planted secrets, print none of them when handed the
// redactor the action builds (known secrets plus token shapes).
import { describe, expect, it } from 'vitest'
import { parseLoopConfig } from '../../src/config/load-config.js'
import { initialState, markBlocked } from '../../src/domain/engine/index.js'
import { policyFromConfig } from '../../src/domain/policy.js'
import { createRedactor } from '../../src/domain/redact.js'
import { buildReportModel, renderComment, renderSummary } from '../../src/domain/report/index.js'
import type { CheckResult } from '../../src/domain/state.js'
import { recordProof } from './record-proof.js'

const repeat = (text: string, n: number) => text.repeat(Math.ceil(n / text.length)).slice(0, n)
const KNOWN = 'zq-planted-input-token-55e1'
const PLANTED = [
  KNOWN,
  `ghp_${repeat('aB3dE5fG7h', 36)}`,
  `github_pat_${repeat('11ABCDEFG0', 22)}_${repeat('xYz9', 59)}`,
  `npm_${repeat('Qw3Er5Ty7U', 36)}`,
  `AKIA${repeat('QWERTYUIOP', 16)}`,
  `sk-proj-${repeat('Ab1Cd2Ef3G', 48)}`,
  `sk-ant-api03-${repeat('Zx9Yw8Vu7T', 60)}`,
]
const PEM_BODY = repeat('MIIEowIBAAKCAQEA', 64)
const PEM = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----`
const text = `${PLANTED.join(' ')}\n${PEM}`

const figures: Record<string, number> = {}
recordProof('reportSecrets', () => figures)

describe('report renderers with planted secrets', () => {
  it('the summary and the comment hold none of them', () => {
    const config = parseLoopConfig('goal: g\nwork:\n  run: w\nchecks:\n  - name: unit\n    run: c\n', 'c.yml')
    const now = new Date(0)
    let state = initialState({ loopId: 'report', goal: `goal ${text}`, policy: policyFromConfig(config), now })
    state = markBlocked(state, `blocked because ${text}`, now).state
    const check: CheckResult = {
      name: 'unit',
      kind: 'test',
      verdict: 'fail',
      required: true,
      durationMs: 10,
      exitCode: 1,
      pattern: 'test-failure',
      confidence: 0.9,
      strategy: 'analyze_then_fix',
      signature: 'sig',
      locations: [{ file: 'test/a.test.js', line: 3, message: text }],
      excerpt: text,
      autoFixed: false,
    }
    const model = buildReportModel(state, {
      checks: [check],
      outputs: { unit: text },
      next: null,
      nextAction: `ask ${text}`,
      outcome: 'blocked',
      handoff: { reason: text, humanAction: text, suggestion: text },
    })
    const redact = createRedactor([KNOWN])
    const rendered = { summary: renderSummary(model, { redact }), comment: renderComment(model, { redact }) }
    const leaks: string[] = []
    for (const [where, output] of Object.entries(rendered)) {
      for (const secret of [...PLANTED, PEM_BODY])
        if (output.includes(secret)) leaks.push(`${secret.slice(0, 12)}… in ${where}`)
    }
    // Not vacuous: without the redactor the same renderers do print them.
    expect(renderComment(model)).toContain(KNOWN)
    expect(leaks).toEqual([])
    Object.assign(figures, { planted: PLANTED.length + 1, inSummaryOrComment: leaks.length })
    console.log(`report: ${PLANTED.length + 1} secrets planted in the report model, 0 in the summary or the comment`)
  })
})
