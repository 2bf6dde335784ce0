/**
 * Analyze: regressions against the baseline, then each failing required check as a failure the retry
 * rules can weigh (its pattern, confidence, strategy and signature).
 */
import { failingTestsFromVerdicts, failingTestsIn } from '../../domain/analysis/failing-tests.js'
import { detectRegressions, regressionEnabled } from '../../domain/analysis/index.js'
import type { FailureInput } from '../../domain/engine/index.js'
import type { JourneyEvent } from '../../domain/journey.js'
import { isFailing } from '../step-support.js'
import { junitResults } from '../verification.js'
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
  const regressed = [...regressions.checks, ...regressions.tests]
  if (regressed.length > 0) {
    events.push(event(deps.clock.now(), iteration, 'regression', `regressions: ${regressed.join(', ')}`))
  }

  const failures: FailureInput[] = [...record.guardFailures]
  for (const live of checks) {
    if (!isFailing(live.result) || !live.check.required || !live.analysis) continue
    const regression = regressions.checks.includes(live.check.name)
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
  return withEvents({ ...record, failures }, ...events)
}
