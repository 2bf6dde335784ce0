// Invariants of the engine over random runs (fast-check): the cap is never exceeded, BLOCKED always
// follows an exhausted budget, no identical retry, and the state always validates.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  applyOutcome,
  approveGate,
  beginIteration,
  CapExceededError,
  decide,
  type FailureInput,
  markBlocked,
  markCapped,
  markComplete,
  type Policy,
  resume,
  skipTask,
} from '../../../src/domain/engine/index.js'
import { type LoopState, loopStateSchema } from '../../../src/domain/state.js'
import { at, failure, matrix, outcomeOf, policyOf, startState } from './helpers.js'

const TEXTS = [
  "Type 'string' is not assignable to type 'number'",
  'expected 2 to be 3 in retry.test.ts',
  'Cannot find module ./missing.js',
  'no-unused-vars: x is defined but never used',
]

// A small pool, so that the same failure (and the same error) comes back often, as it does in real loops.
const POOL: FailureInput[] = [
  ...TEXTS.slice(0, 2).map((text) => failure('types', { text, alternates: ['analyze_then_fix'] })),
  failure('types', { text: TEXTS[2], maxAutoRetries: 1 }),
  ...TEXTS.slice(0, 2).map((text) =>
    failure('unit', { kind: 'test', pattern: 'test-failure', strategy: 'analyze_then_fix', text, regression: true }),
  ),
  failure('lint', { kind: 'lint', pattern: 'lint-error', strategy: 'auto_fix', text: TEXTS[3] }),
  failure('build', { kind: 'build', pattern: 'network-error', strategy: 'retry_with_backoff', text: 'ETIMEDOUT' }),
  failure('build', { kind: 'build', pattern: null, strategy: 'analyze_then_fix', text: 'weird output' }),
]
const RARE: FailureInput[] = [
  failure('build', {
    kind: 'build',
    pattern: 'permission-error',
    strategy: 'escalate',
    retryable: false,
    text: 'EACCES',
  }),
]
const failureArb: fc.Arbitrary<FailureInput> = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom(...POOL) },
  { weight: 1, arbitrary: fc.constantFrom(...RARE) },
)

const stepArb = fc.record({
  failures: fc.oneof(
    { weight: 1, arbitrary: fc.constant<FailureInput[]>([]) },
    { weight: 6, arbitrary: fc.array(failureArb, { minLength: 1, maxLength: 2 }) },
  ),
  gate: fc.option(fc.constantFrom('database', 'verifier'), { nil: undefined, freq: 8 }),
  blocked: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
  tokens: fc.integer({ min: 0, max: 2000 }),
  wallMs: fc.integer({ min: 0, max: 120_000 }),
  task: fc.boolean(),
  person: fc.constantFrom('resume', 'resume', 'approve', 'approve', 'skip', 'nothing'),
})

const policyArb = fc
  .record({
    pipeline: fc.constantFrom('iterate', 'full', ['IMPLEMENT', 'TEST', 'VERIFY', 'SHIP']),
    max: fc.integer({ min: 3, max: 30 }),
    perFailure: fc.integer({ min: 0, max: 5 }),
    sameError: fc.integer({ min: 1, max: 3 }),
    total: fc.integer({ min: 1, max: 12 }),
    capabilities: fc.subarray(['parse', 'retry', 'report']),
    budgetTokens: fc.option(fc.integer({ min: 1000, max: 50_000 }), { nil: undefined, freq: 4 }),
  })
  .map((p) =>
    policyOf({
      pipeline: p.pipeline as never,
      'max-iterations': p.max,
      ...(p.max > 25 ? { 'cap-reason': 'property test' } : {}),
      retry: { 'per-failure': p.perFailure, 'same-error': p.sameError, total: p.total },
      capabilities: p.capabilities,
      ...(p.budgetTokens ? { budget: { tokens: p.budgetTokens } } : {}),
      stages: p.pipeline === 'full' ? { DOCUMENT: { tasks: [{ name: 'docs', run: 'make docs' }] } } : {},
      gates: [{ name: 'database', paths: ['migrations/**'] }],
    }),
  )

type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never

interface Trace {
  state: LoopState
  checks: ((before: LoopState, after: LoopState, kind: string) => void)[]
}

/** Drives a loop with random outcomes and people, checking `check` after every operation. */
function drive(policy: Policy, steps: Step[], trace: Trace) {
  let state = trace.state
  const after = (next: LoopState, kind: string) => {
    for (const check of trace.checks) check(state, next, kind)
    state = next
  }
  for (const step of steps) {
    const decision = decide(state, { now: at(state.iteration) }, policy)
    if (decision.kind === 'COMPLETE') {
      if (state.status !== 'complete') after(markComplete(state, at(state.iteration)).state, 'complete')
      break
    }
    if (decision.kind === 'ABORTED') break
    if (decision.kind === 'CAP_REACHED') {
      after(markCapped(state, decision, at(state.iteration)).state, 'capped')
      if (decision.limit === 'iterations') {
        // The cap is structural: even handed a decision, beginIteration refuses.
        const forced = { kind: 'EXECUTE_STAGE' as const, stage: state.stage, capability: null, reason: 'forced' }
        expect(() => beginIteration({ ...state, status: 'running' }, forced, at(0))).toThrow(CapExceededError)
      }
      break
    }
    if (decision.kind === 'ESCALATE') {
      after(markBlocked(state, decision.reason, at(state.iteration)).state, 'escalate')
      continue
    }
    if (decision.kind === 'WAIT_FOR_APPROVAL') {
      if (step.person !== 'nothing')
        after(approveGate(state, decision.gate, '@p', at(state.iteration)).state, 'approve')
      continue
    }
    if (decision.kind === 'WAIT_FOR_HUMAN') {
      if (state.stage === 'SHIP' && state.status === 'waiting' && step.person === 'approve') {
        after(markComplete(state, at(state.iteration)).state, 'merged')
      } else if (step.person !== 'nothing') after(resume(state, '@p', at(state.iteration)).state, 'resume')
      continue
    }
    // A person skips only a task that is still open (the engine refuses to skip a completed one).
    const open = !state.tasks.skipped.length && !state.tasks.completed.includes('docs')
    if (step.person === 'skip' && policy.stageTasks[state.stage] && open) {
      after(skipTask(state, 'docs', 'not needed', '@p', at(state.iteration)).state, 'skip')
      continue
    }
    const started = beginIteration(state, decision, at(state.iteration))
    after(started, 'begin')
    const failing = step.failures.filter((f, i, all) => all.findIndex((g) => g.check === f.check) === i)
    const outcome = outcomeOf(started, policy, {
      failing,
      checks: matrix(
        policy,
        failing.map((f) => f.check),
      ),
      gatesRaised: step.gate ? [{ gate: step.gate, reason: 'paths changed' }] : [],
      tasksCompleted: step.task ? ['docs'] : [],
      work: { exitCode: step.blocked ? 3 : 0, blocked: step.blocked, durationMs: 10, tokens: step.tokens },
      wallMs: step.wallMs,
      ...(decision.kind === 'RETRY' ? { strategyUsed: decision.strategy } : {}),
    })
    after(applyOutcome(started, outcome, policy).state, 'apply')
  }
  return state
}

const runArb = fc.tuple(policyArb, fc.array(stepArb, { minLength: 10, maxLength: 60, size: 'large' }))

describe('engine invariants', () => {
  it('never exceeds the iteration cap', () => {
    fc.assert(
      fc.property(runArb, ([policy, steps]) => {
        const final = drive(policy, steps, {
          state: startState(policy),
          checks: [(_b, a) => expect(a.iteration).toBeLessThanOrEqual(policy.maxIterations)],
        })
        expect(final.iteration).toBeLessThanOrEqual(policy.maxIterations)
      }),
      { numRuns: 150 },
    )
  })

  it('goes BLOCKED whenever a failure exhausts the retry budget', () => {
    fc.assert(
      fc.property(runArb, ([policy, steps]) => {
        drive(policy, steps, {
          state: startState(policy),
          checks: [
            (before, a, kind) => {
              if (kind !== 'apply' || a.failures.total <= before.failures.total) return
              const current = a.failures.current
              const maxAttempts = current?.maxAttempts ?? policy.retry.perFailure
              const exhausted =
                a.failures.total >= policy.retry.total ||
                a.failures.consecutive > maxAttempts ||
                a.failures.sameError >= policy.retry.sameError
              if (exhausted) expect(a.status).toBe('blocked')
              if (a.status === 'running') {
                const next = decide(a, { now: at(99) }, policy)
                if (next.kind === 'RETRY') expect(next.attempt).toBeLessThanOrEqual(next.maxAttempts)
              }
            },
          ],
        })
      }),
      { numRuns: 150 },
    )
  })

  it('never retries the same error with the same pattern and strategy twice in a row', () => {
    fc.assert(
      fc.property(runArb, ([policy, steps]) => {
        drive(policy, steps, {
          state: startState(policy),
          checks: [
            (before, a, kind) => {
              if (kind !== 'apply' || a.status !== 'running' || a.failures.sameError === 0) return
              const previous = before.failures.current
              const current = a.failures.current
              expect(current).not.toBeNull()
              expect(previous).not.toBeNull()
              if (previous && current && previous.pattern === current.pattern) {
                expect(current.strategy).not.toBe(previous.strategy)
                expect(a.failures.tried.map((t) => t.strategy)).not.toContain(current.strategy)
              }
            },
          ],
        })
      }),
      { numRuns: 150 },
    )
  })

  it('always leaves a state that validates and survives a JSON round trip', () => {
    fc.assert(
      fc.property(runArb, ([policy, steps]) => {
        drive(policy, steps, {
          state: startState(policy),
          checks: [
            (_b, a) => {
              const parsed = loopStateSchema.safeParse(JSON.parse(JSON.stringify(a)))
              if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues.slice(0, 3)))
            },
          ],
        })
      }),
      { numRuns: 80 },
    )
  })
})
