/**
 * The verifier-gaming guard: what the work changed in protected paths or tests is a gate (or a failure),
 * and gates that watch paths are raised when the work touched them.
 */
import { type FileChange, inspectProtectedChanges, matchGlob } from '../../domain/analysis/index.js'
import { DEFAULT_TEST_FILES } from '../../domain/analysis/test-weakening.js'
import type { FailureInput } from '../../domain/engine/index.js'
import { event, type IterationRecord, type IterationRun, withEvents } from './record.js'
import type { IterationInput } from './types.js'

export async function guard(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, iteration } = run
  const { config } = input
  const since = record.treeBeforeWork
  if (!deps.git || !since) return record
  // Binary and large files too: a protected golden file is no less protected for being binary.
  const changes = await deps.git.changesSince(since, { withUnreadable: true })
  const globs = protectedGlobs(input)
  const ignored = record.ignoredBeforeWork
    ? ignoredChanges(record.ignoredBeforeWork, await deps.git.ignoredFiles(globs), globs)
    : []
  const testGlobs = config.protect['test-files'].length > 0 ? config.protect['test-files'] : [...DEFAULT_TEST_FILES]
  const findings = inspectProtectedChanges([...changes, ...ignored], { protectedGlobs: globs, testGlobs })
  // Gates triggered by paths: raised when the work changed a path they watch, until approved. With
  // `withUnreadable`, the changes name every changed path, so git is not asked a second time.
  const changedPaths = changes.map((change) => change.path)
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

/** The paths the work command may not change: the loop's config and patterns, `.github/`, `protect.paths`. */
export function protectedGlobs(input: IterationInput): string[] {
  const { config } = input
  return [
    ...(input.configPathRelative ? [input.configPathRelative] : []),
    ...(typeof config.patterns === 'string' ? [config.patterns] : []),
    '.github/**',
    ...config.protect.paths,
  ]
}

/**
 * Ignored files on protected paths the work created, changed or deleted: no diff shows them, yet a
 * check may read them. Their sides are fingerprints, not text.
 */
function ignoredChanges(
  before: Record<string, string>,
  after: Record<string, string>,
  globs: readonly string[],
): FileChange[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
  return paths
    .filter((path) => before[path] !== after[path] && globs.some((glob) => matchGlob(glob, path)))
    .map((path) => ({ path, before: before[path] ?? null, after: after[path] ?? null, ignored: true }))
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
    error: `the work changed what verifies it (protect.on-change: fail): ${reason}`,
    protectedChange: true,
  }
}
