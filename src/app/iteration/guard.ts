/**
 * The verifier-gaming guard: what the work changed in protected paths or tests is a gate (or a failure),
 * and gates that watch paths are raised when the work touched them.
 */
import { inspectProtectedChanges, matchGlob } from '../../domain/analysis/index.js'
import type { FailureInput } from '../../domain/engine/index.js'
import { event, type IterationRecord, type IterationRun, withEvents } from './record.js'

const DEFAULT_TEST_GLOBS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/test_*.py',
  '**/*_test.py',
  '**/*_test.go',
]

export async function guard(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, iteration } = run
  const { config } = input
  const since = record.treeBeforeWork
  if (!deps.git || !since) return record
  const changes = await deps.git.changesSince(since)
  const protectedGlobs = [
    ...(input.configPathRelative ? [input.configPathRelative] : []),
    ...(typeof config.patterns === 'string' ? [config.patterns] : []),
    '.github/**',
    ...config.protect.paths,
  ]
  const testGlobs = config.protect['test-files'].length > 0 ? config.protect['test-files'] : DEFAULT_TEST_GLOBS
  const findings = inspectProtectedChanges(changes, { protectedGlobs, testGlobs })
  // Gates triggered by paths: raised when the work changed a path they watch, until approved.
  const changedPaths = await deps.git.changedPaths(since)
  const gatesRaised = [...record.gatesRaised]
  for (const gate of config.gates) {
    if (gate.paths.length === 0 || record.state.gates[gate.name]?.status === 'approved') continue
    const touched = changedPaths.filter((path) => gate.paths.some((glob) => matchGlob(glob, path)))
    if (touched.length > 0) {
      gatesRaised.push({
        gate: gate.name,
        reason: `the work changed ${touched.slice(0, 5).join(', ')}${touched.length > 5 ? ` and ${touched.length - 5} more` : ''}`,
      })
    }
  }
  if (findings.length === 0) return { ...record, gatesRaised }
  const reason = findings.map((f) => `${f.path}: ${f.reason}`).join('; ')
  const guarded = withEvents(
    record,
    event(deps.clock.now(), iteration, 'guard', `protected changes: ${reason}`, { findings }),
  )
  return config.protect['on-change'] === 'gate'
    ? { ...guarded, gatesRaised: [...gatesRaised, { gate: 'verifier', reason }] }
    : { ...guarded, gatesRaised, guardFailures: [...record.guardFailures, guardFailure(reason)] }
}

function guardFailure(reason: string): FailureInput {
  return {
    check: 'verifier-guard',
    kind: 'custom',
    pattern: null,
    confidence: null,
    strategy: 'escalate',
    alternates: [],
    retryable: false,
    signature: 'verifier-guard:none:00000000',
    tokens: [],
    error: `The work changed protected paths: ${reason}`,
  }
}
