/**
 * Analyze: regressions against the baseline, then each failing required check as a failure the retry
 * rules can weigh (its pattern, confidence, strategy and signature).
 */
import { failingTestsFromVerdicts, failingTestsIn } from '../../domain/analysis/failing-tests.js'
import { detectRegressions, regressionEnabled, tallyRegressions } from '../../domain/analysis/index.js'
import type { FailureInput } from '../../domain/engine/index.js'
import type { JourneyEvent } from '../../domain/journey.js'
import { isFailing } from '../step-support.js'
import { junitResults, type LiveCheck } from '../verification.js'
import { event, type IterationRecord, type IterationRun, withEvents } from './record.js'

export async function analyze(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, iteration } = run
  const { config } = input
  const { checks, state } = record
  const events: JourneyEvent[] = []
  // Regressions: a check (or a JUnit test) that passed in the baseline and fails now.
  const current = {
    checks: Object.fromEntries(checks.map((c) => [c.check.name, isFailing(c.result) ? 'fail' : 'pass'] as const)),
    tests: await junitResults(input, deps),
  }
  const regressions =
    regressionEnabled(config.complexity, config.regression) && state.baseline
      ? detectRegressions(state.baseline, current)
      : { checks: [], tests: [] }
  // Counted and told once per check (and test): one that stays red is the same regression.
  const { tally, fresh } = tallyRegressions(state.metrics.regressed ?? { checks: [], tests: [] }, regressions)
  const counted = { ...state, metrics: { ...state.metrics, regressed: tally } }
  counted.metrics.regressions += fresh.checks.length
  const regressed = [...fresh.checks, ...fresh.tests]
  if (regressed.length > 0) {
    const message = `passed in the baseline and fail${regressed.length === 1 ? 's' : ''} now: ${regressed.join(', ')}`
    events.push(event(deps.clock.now(), iteration, 'regression', message, { checks: fresh.checks, tests: fresh.tests }))
  }

  const failures: FailureInput[] = [...record.guardFailures]
  const marked = checks.map((live) => markRegression(live, regressions.checks))
  for (const live of marked) {
    // A failing check's analysis line is told once the retry rules chose what the loop takes (`tellAnalyses`).
    if (!isFailing(live.result) || !live.analysis || !live.check.required) continue
    const regression = live.result.regression === true
    const analysis = live.analysis
    failures.push({
      check: live.check.name,
      kind: live.check.kind,
      pattern: regression && !analysis.pattern ? 'regression-detected' : analysis.pattern,
      confidence: analysis.confidence,
      strategy: regression && !analysis.pattern ? 'context_expand' : analysis.strategy,
      alternates: analysis.alternates,
      retryable: analysis.retryable,
      ...(analysis.maxAutoRetries !== undefined ? { maxAutoRetries: analysis.maxAutoRetries } : {}),
      signature: analysis.signature,
      tokens: analysis.tokens,
      // Progress is judged on the failing tests: the JUnit report's when the check has one, else the runner's own lines.
      failingTests:
        failingTestsFromVerdicts(live.check.name, current.tests) ?? failingTestsIn(live.outcome.result?.output ?? ''),
      error: analysis.excerpt.slice(0, 2000),
      regression,
      security: analysis.pattern === 'security-finding',
    })
    events.push(
      event(
        deps.clock.now(),
        iteration,
        'analysis',
        // No strategy here: the retry rules choose the next attempt's (the engine's analysis event names it).
        `${live.check.name}: ${analysis.pattern ?? 'no match'} (${analysis.confidence.toFixed(2)})`,
        { signature: analysis.signature, locations: analysis.locations.slice(0, 5) },
      ),
    )
  }
  return withEvents({ ...record, state: counted, checks: marked, failures }, ...events)
}

/**
 * A failing check that passed at the baseline is marked a regression; with no pattern of its own it is
 * `regression-detected` (strategy `context_expand`), as the pattern library documents.
 */
function markRegression(live: LiveCheck, regressedChecks: readonly string[]): LiveCheck {
  if (!isFailing(live.result) || !regressedChecks.includes(live.check.name)) return live
  const unclassified = live.result.pattern === null
  return {
    ...live,
    result: {
      ...live.result,
      regression: true,
      ...(unclassified ? { pattern: 'regression-detected', strategy: 'context_expand' as const } : {}),
    },
  }
}
