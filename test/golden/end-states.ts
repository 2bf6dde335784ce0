// One report model per end state a person meets (running, COMPLETE, BLOCKED, capped, waiting at a
// gate, aborted) and one whose output is hostile, built the way the action builds them: a loop state
// and what its last iteration returned. The golden files and the render test both read these.
import { buildReportModel, type ReportModel } from '../../src/domain/report/index.js'
import { type CheckResult, checkResultSchema, type LoopState, loopStateSchema } from '../../src/domain/state.js'

const runUrl = 'https://github.com/acme/demo/actions/runs/9100000003'
const minute = 60_000

function at(minutes: number): string {
  return new Date(Date.UTC(2026, 10, 25, 9, 0) + minutes * minute).toISOString()
}

function check(fields: Partial<CheckResult> & { name: string }): CheckResult {
  return checkResultSchema.parse({ kind: 'test', verdict: 'pass', durationMs: 900, exitCode: 0, ...fields })
}

const passing = [
  check({ name: 'types', kind: 'typecheck', durationMs: 2_310 }),
  check({ name: 'lint', kind: 'lint', durationMs: 640 }),
  check({ name: 'unit', kind: 'test', durationMs: 4_120 }),
]

const assertion = 'AssertionError [ERR_ASSERTION]: sum([4, 5]) should be 9\n\n9 !== 8\n\n    at test/sum.test.js:12:10'
const failingUnit = check({
  name: 'unit',
  verdict: 'fail',
  exitCode: 1,
  durationMs: 3_870,
  pattern: 'test-failure',
  confidence: 0.82,
  strategy: 'analyze_then_fix',
  locations: [{ file: 'test/sum.test.js', line: 12, column: 10, message: 'sum([4, 5]) should be 9: 9 !== 8' }],
  excerpt: assertion,
})

/** A sharded check's output as decide merges its legs': each failing shard's part under its heading. */
const shardFailure =
  '### test shard 3/4: fail\nAssertionError [ERR_ASSERTION]: step 1 breaks shard 3\n    at test/steps.test.js:3:5'

type Usage = LoopState['usage']['log'][number]
function work(iteration: number, strategy?: string, tokens?: number, costUsd?: number): Usage {
  const outputs: Record<string, unknown> = { exitCode: 0 }
  if (tokens !== undefined) outputs.tokens = tokens
  if (costUsd !== undefined) outputs.costUsd = costUsd
  if (strategy) outputs.strategy = strategy
  return {
    iteration,
    what: 'work IMPLEMENT',
    why: '',
    at: at(iteration * 3),
    durationMs: 40_000,
    status: 'done',
    outputs,
  }
}
function verify(iteration: number, failed: string[]): Usage {
  return {
    iteration,
    what: 'verify',
    why: 'verification matrix after IMPLEMENT',
    at: at(iteration * 3 + 1),
    durationMs: 4_000,
    status: failed.length === 0 ? 'pass' : 'fail',
    outputs: { checks: 3, failed },
  }
}

function state(overrides: Record<string, unknown>): LoopState {
  return loopStateSchema.parse({
    schemaVersion: 1,
    loopId: 'issue-42',
    iteration: 3,
    stage: 'IMPLEMENT',
    status: 'running',
    statusReason: '',
    goal: 'make sum() add',
    pipeline: ['IMPLEMENT', 'VERIFY', 'COMPLETE'],
    maxIterations: 8,
    startedAt: at(0),
    updatedAt: at(11),
    stageEnteredAt: at(10),
    capabilities: { total: 0, completed: [], current: null, remaining: [] },
    stages: {},
    failures: {
      total: 0,
      consecutive: 0,
      sameError: 0,
      limits: { perFailure: 3, sameError: 2, total: 10 },
      current: null,
      tried: [],
      history: [],
    },
    gates: {},
    checkpoints: [],
    tasks: { completed: [], skipped: [] },
    usage: { log: [], wallMs: 11 * minute + 20_000, tokens: 0, costUsd: 0 },
    budget: {},
    metrics: {},
    pullRequest: { number: 57, url: 'https://github.com/acme/demo/pull/57', merged: false },
    ...overrides,
  })
}

const links = (loopId = 'issue-42') => ({
  run: runUrl,
  auditTrail: `${runUrl}#artifacts`,
  branch: { name: `loop/${loopId}`, url: `https://github.com/acme/demo/tree/loop/${loopId}` },
  pullRequest: { number: 57, url: 'https://github.com/acme/demo/pull/57' },
  issue: { number: 42, url: 'https://github.com/acme/demo/issues/42' },
})

const openFailure = {
  iteration: 1,
  stage: 'VERIFY',
  check: 'unit',
  error: assertion,
  pattern: 'test-failure',
  strategy: 'context_expand',
  signature: 'test-failure:sum',
  at: at(4),
}

const blockedFailures = {
  total: 3,
  consecutive: 3,
  sameError: 2,
  limits: { perFailure: 3, sameError: 2, total: 10 },
  current: openFailure,
  tried: [
    { strategy: 'analyze_then_fix', iteration: 2, outcome: 'same error' },
    { strategy: 'context_expand', iteration: 3, outcome: 'same error' },
  ],
  history: [],
}

const usageOf = (log: Usage[], tokens: number, costUsd: number) => ({
  log,
  wallMs: 11 * minute + 20_000,
  tokens,
  costUsd,
})

export interface EndState {
  name: string
  model: ReportModel
}

/** Every end state, in the order a reader meets them. */
export function endStates(): EndState[] {
  return [
    {
      name: 'running',
      model: buildReportModel(
        state({
          iteration: 2,
          failures: { ...blockedFailures, total: 2, consecutive: 2, tried: blockedFailures.tried.slice(0, 1) },
          usage: usageOf(
            [
              work(1, undefined, 1200, 0.01),
              verify(1, ['unit']),
              work(2, 'analyze_then_fix', 1900, 0.02),
              verify(2, ['unit']),
            ],
            3100,
            0.03,
          ),
          metrics: { workCalls: 2 },
        }),
        {
          checks: [...passing.slice(0, 2), failingUnit],
          // The retry rules switched from the pattern's strategy after the same error came back.
          next: {
            kind: 'RETRY',
            stage: 'IMPLEMENT',
            capability: null,
            strategy: 'context_expand',
            attempt: 3,
            maxAttempts: 3,
            backoffMs: 0,
            reason: "test-failure in 'unit' (0.82)",
          },
          nextAction: 'retry IMPLEMENT with strategy context_expand (attempt 3 of 3)',
          outcome: 'continue',
          links: links(),
        },
      ),
    },
    {
      name: 'complete',
      model: buildReportModel(
        state({
          stage: 'COMPLETE',
          status: 'complete',
          statusReason: 'complete after 3 iterations',
          usage: usageOf(
            [work(1), verify(1, ['unit']), work(2, 'context_expand'), verify(2, ['unit']), verify(3, [])],
            0,
            0,
          ),
          metrics: { workCalls: 2 },
        }),
        {
          checks: passing,
          next: null,
          nextAction: 'none: complete (the loop is complete after 3 iterations)',
          outcome: 'complete',
          links: links(),
        },
      ),
    },
    {
      name: 'blocked',
      model: buildReportModel(
        state({
          status: 'blocked',
          statusReason:
            "the same test-failure in 'unit' came back 2 times after analyze_then_fix, context_expand (retry.same-error is 2)",
          failures: blockedFailures,
          usage: usageOf(
            [
              work(1, undefined, 1200, 0.01),
              verify(1, ['unit']),
              work(2, 'analyze_then_fix', 1900, 0.02),
              verify(2, ['unit']),
              work(3, 'context_expand', 2400, 0.03),
              verify(3, ['unit']),
            ],
            5500,
            0.06,
          ),
          metrics: { workCalls: 3 },
        }),
        {
          checks: [...passing.slice(0, 2), failingUnit],
          next: null,
          nextAction: 'a person is needed: the same test-failure came back; then `/loop resume` or `loop resume`',
          outcome: 'blocked',
          handoff: {
            reason:
              "the same test-failure in 'unit' came back 2 times after analyze_then_fix, context_expand (retry.same-error is 2)",
            humanAction:
              'find and fix the likely cause (behaviour that no longer meets a test expectation), or clarify the goal.',
            suggestion:
              'The failing assertion and the code it exercises. Reproduce the single failing test locally and bisect the change.',
          },
          links: links(),
        },
      ),
    },
    {
      name: 'capped',
      model: buildReportModel(
        state({
          iteration: 8,
          status: 'capped',
          statusReason: 'the iteration cap of 8 is reached',
          failures: { ...blockedFailures, total: 8, consecutive: 1, tried: [] },
          usage: usageOf(
            Array.from({ length: 8 }, (_, i) => [
              work(i + 1, i === 0 ? undefined : 'analyze_then_fix'),
              verify(i + 1, ['unit']),
            ]).flat(),
            0,
            0,
          ),
          metrics: { workCalls: 8 },
        }),
        {
          checks: [...passing.slice(0, 2), failingUnit],
          next: null,
          nextAction: 'stopped: the iteration cap of 8 is reached',
          outcome: 'capped',
          links: links(),
        },
      ),
    },
    {
      name: 'waiting',
      model: buildReportModel(
        state({
          iteration: 2,
          stage: 'VERIFY',
          status: 'waiting',
          statusReason: 'gate security waits for approval: paths under auth/ changed',
          gates: { security: { status: 'pending', reason: 'paths under auth/ changed', requestedAt: at(8) } },
          usage: usageOf([work(1), verify(1, ['unit']), work(2, 'context_expand'), verify(2, [])], 0, 0),
          metrics: { workCalls: 2 },
        }),
        {
          checks: passing,
          next: { kind: 'WAIT_FOR_APPROVAL', gate: 'security', reason: 'paths under auth/ changed' },
          nextAction:
            "wait for approval of gate 'security': comment `/loop approve security` or `loop approve security`",
          outcome: 'waiting',
          links: links(),
        },
      ),
    },
    {
      name: 'aborted',
      model: buildReportModel(
        state({
          iteration: 2,
          status: 'aborted',
          statusReason: 'aborted by @alice with /loop abort: wrong approach',
          usage: usageOf([work(1), verify(1, ['unit']), work(2, 'context_expand'), verify(2, ['unit'])], 0, 0),
          metrics: { workCalls: 2 },
        }),
        {
          checks: [...passing.slice(0, 2), failingUnit],
          next: null,
          nextAction: 'none: aborted',
          outcome: 'aborted',
          links: links(),
        },
      ),
    },
    {
      // Aborted while queued, before its first iteration: the job that applied the abort reports it.
      name: 'aborted-queued',
      model: buildReportModel(
        state({
          loopId: 'issue-44',
          iteration: 0,
          stage: 'IMPLEMENT',
          status: 'aborted',
          statusReason:
            'aborted by @alice with /loop abort: not needed now, while queued (1 of 2 in line); it never ran',
          usage: { log: [], wallMs: 0, tokens: 0, costUsd: 0 },
          pullRequest: undefined,
        }),
        {
          checks: [],
          next: null,
          nextAction: 'none: aborted',
          outcome: 'aborted',
          links: {
            run: runUrl,
            auditTrail: `${runUrl}#artifacts`,
            issue: { number: 44, url: 'https://github.com/acme/demo/issues/44' },
          },
        },
      ),
    },
    {
      // Fan-out: decide merged the four verify legs of the sharded `test` check into one; shard 3 failed.
      name: 'fan-out-shard-failed',
      model: buildReportModel(
        state({
          loopId: 'shards',
          iteration: 1,
          maxIterations: 4,
          usage: usageOf([work(1), verify(1, ['test'])], 0, 0),
          metrics: { workCalls: 1 },
        }),
        {
          checks: [
            check({
              name: 'test',
              verdict: 'fail',
              exitCode: 1,
              durationMs: 242,
              pattern: 'test-failure',
              confidence: 0.64,
              strategy: 'analyze_then_fix',
              excerpt: shardFailure,
            }),
            check({ name: 'step-2', durationMs: 61 }),
          ],
          next: {
            kind: 'RETRY',
            stage: 'IMPLEMENT',
            capability: null,
            strategy: 'analyze_then_fix',
            attempt: 1,
            maxAttempts: 3,
            backoffMs: 0,
            reason: "test-failure in 'test' (0.64)",
          },
          nextAction: 'retry IMPLEMENT with strategy analyze_then_fix (attempt 1 of 3)',
          outcome: 'continue',
          links: {
            ...links('shards'),
            issue: undefined,
            failedLegs: [{ name: 'verify (test shard 3/4)', url: `${runUrl}/job/700003` }],
          },
        },
      ),
    },
    {
      name: 'hostile',
      model: buildReportModel(
        state({
          loopId: 'hostile',
          status: 'blocked',
          statusReason: 'agent said: <img src=x onerror=alert(1)> @octocat [click](javascript:alert(1)) | `x`',
          failures: { ...blockedFailures, current: { ...openFailure, check: 'evil`check' } },
          usage: usageOf([work(1), verify(1, ['evil`check'])], 0, 0),
        }),
        {
          checks: [
            check({
              name: 'evil`check',
              verdict: 'fail',
              exitCode: 1,
              excerpt:
                '```\n</details><script>alert(1)</script>\n::set-output name=x::1\n@octocat\n```mermaid\ngraph TD; A-->B',
              locations: [{ file: '<b>x</b>.ts', line: 1, message: '</summary><h1>big</h1>' }],
            }),
          ],
          next: null,
          nextAction: '<script>alert(1)</script> | @admin `x`',
          outcome: 'blocked',
          handoff: {
            reason: 'agent said: <img src=x onerror=alert(1)> @octocat [click](javascript:alert(1)) | `x`',
            humanAction: '</details><details open><summary>@team `<b>bold</b>`',
          },
          links: links('hostile'),
        },
      ),
    },
  ]
}
