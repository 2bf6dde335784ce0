// The report tests' loop: a VERIFY iteration of issue-42 with one failing check of five, its failure
// tried twice, and the report model built from it (each test overrides what it is about).
import { unanalyzedResult } from '../../../src/domain/check-result.js'
import { buildReportModel, type ReportModel } from '../../../src/domain/report/index.js'
import { type CheckResult, type LoopState, loopStateSchema } from '../../../src/domain/state.js'

export const at = '2026-01-01T00:00:00.000Z'

export function state(overrides: Partial<LoopState> = {}): LoopState {
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

export function check(partial: Partial<CheckResult> & { name: string }): CheckResult {
  return {
    ...unanalyzedResult(
      { name: partial.name, kind: 'custom', required: true },
      { verdict: 'pass', durationMs: 1000, exitCode: 0 },
    ),
    ...partial,
  }
}

export const checks: CheckResult[] = [
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

export function model(overrides: Partial<ReportModel> = {}, stateOverrides: Partial<LoopState> = {}): ReportModel {
  return {
    ...buildReportModel(state(stateOverrides), {
      checks,
      next: {
        kind: 'RETRY',
        stage: 'VERIFY',
        capability: 'retry-on-timeout',
        strategy: 'context_expand',
        attempt: 2,
        maxAttempts: 3,
        backoffMs: 0,
        reason: "type-error in 'types' (0.86)",
      },
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
