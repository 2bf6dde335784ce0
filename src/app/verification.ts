/**
 * The verification matrix as one iteration runs it: every check a real process, its output streamed
 * through the analyzer, and the results as the state records them.
 */
import { isAbsolute, join, relative, resolve } from 'node:path'
import { type Analysis, parseJUnit, StreamingAnalyzer } from '../domain/analysis/index.js'
import { displayText } from '../domain/display-text.js'
import { strategyForFixCoverage } from '../domain/fix-coverage.js'
import type { CheckConfig } from '../domain/loop-config.js'
import {
  expandShards,
  mergeShards,
  missingShardResult,
  type ShardLeg,
  shardCount,
  unionTests,
} from '../domain/shards.js'
import type { CheckResult } from '../domain/state.js'
import { testKey } from '../domain/test-ids.js'
import type { RunResult } from '../ports/process.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'
import { removeReports } from './junit-reports.js'
import { type MatrixCheckOutcome, type MatrixLegOutcome, runMatrix } from './matrix.js'
import { safeName } from './step-support.js'

/** A check of this iteration: its config, how the run ended, its recorded result and its analysis. */
export interface LiveCheck {
  check: CheckConfig
  outcome: MatrixCheckOutcome
  result: CheckResult
  analysis: Analysis | null
  log: string
  /** A sharded check's legs, each judged on its own (the flake check re-runs only the failing ones). */
  shards?: LiveShard[]
}

/** One leg of a sharded check: its command and environment, its own result, analysis and output. */
export interface LiveShard {
  leg: ShardLeg
  result: CheckResult
  analysis: Analysis | null
  output: string
}

const EXCERPT_BYTES = 3000
const MISSING_TAIL_BYTES = 1500

/** Runs the verification matrix with streaming analysis of each failing check's output. */
export async function verify(
  input: IterationInput,
  deps: IterationDeps,
  logDir: string,
  env: Record<string, string>,
  iteration: number,
  live: boolean,
  only?: string[],
  /** `runAll`: no check is skipped for an earlier failure (`MatrixInput.runAll`). */
  options: { runAll?: boolean } = {},
): Promise<LiveCheck[]> {
  await deps.workspace.makeDir(logDir)
  const selected = only ? new Set(only) : undefined
  await removeReports(
    input,
    deps,
    input.config.checks.filter((check) => !selected || selected.has(check.name)),
  )
  const analyzers = new Map<string, StreamingAnalyzer>()
  const outcomes = await runMatrix({
    checks: input.config.checks,
    cwd: input.cwd,
    env,
    maxParallel: input.config.matrix['max-parallel'] ?? input.maxParallel,
    failFast: input.config.matrix['fail-fast'],
    runner: deps.runner,
    logDir,
    onCheckStart: (check) => {
      // A sharded check's legs are analyzed apart: each shard's failure is classified on its own output.
      const shards = shardCount(check)
      for (let shard = 1; shard <= shards; shard++) {
        analyzers.set(
          analyzerKey(check.name, shards > 1 ? shard : undefined),
          new StreamingAnalyzer(input.library, { kind: check.kind }),
        )
      }
      if (live) deps.progress?.checkStarted?.(iteration, check)
    },
    onOutput: (name, chunk, shard) => analyzers.get(analyzerKey(name, shard))?.push(chunk),
    ...(only ? { only } : {}),
    ...(options.runAll ? { runAll: true } : {}),
  })
  return outcomes.map((outcome) => {
    const judged = outcome.legs
      ? mergedLegs(input, deps, outcome.check, outcome.legs, analyzers)
      : judge(input, deps, outcome.check, outcome, analyzers.get(outcome.check.name))
    const { result } = judged
    if (live) deps.progress?.checkFinished?.(iteration, result)
    return {
      check: outcome.check,
      outcome,
      result,
      analysis: judged.analysis,
      log: outcome.result?.logFile ?? '',
      ...(judged.shards ? { shards: judged.shards } : {}),
    }
  })
}

function analyzerKey(check: string, shard: number | undefined): string {
  return shard === undefined ? check : `${check}#${shard}`
}

interface Judged {
  result: CheckResult
  analysis: Analysis | null
  shards?: LiveShard[]
}

/** A finished run's recorded result and, when it failed, its analysis. */
function judge(
  input: IterationInput,
  deps: IterationDeps,
  check: CheckConfig,
  outcome: Pick<MatrixCheckOutcome, 'verdict' | 'result' | 'skippedReason'>,
  analyzer: StreamingAnalyzer | undefined,
): Judged {
  const failing = outcome.verdict === 'fail' || outcome.verdict === 'timeout' || outcome.verdict === 'error'
  // A failure no fix command covers is the agent's: never recorded as auto_fix.
  const analysis =
    failing && analyzer
      ? strategyForFixCoverage(
          relativeLocations(
            analyzer.finish({
              timedOut: outcome.verdict === 'timeout',
              exitCode: outcome.result?.exitCode ?? null,
              ...(outcome.result?.spawnError ? { spawnError: outcome.result.spawnError } : {}),
            }),
            input.cwd,
          ),
          Boolean(check.fix),
        )
      : null
  const result: CheckResult = {
    name: check.name,
    kind: check.kind,
    verdict: outcome.verdict,
    required: check.required,
    durationMs: outcome.result?.durationMs ?? 0,
    exitCode: outcome.result?.exitCode ?? null,
    ...(outcome.skippedReason ? { skippedReason: outcome.skippedReason } : {}),
    pattern: analysis?.pattern ?? null,
    confidence: analysis ? round2(analysis.confidence) : null,
    strategy: analysis?.strategy ?? null,
    signature: analysis?.signature ?? null,
    locations: analysis?.locations.slice(0, 20) ?? [],
    excerpt: failing
      ? deps.redact(displayText(analysis?.excerpt || tail(outcome.result?.output ?? '', EXCERPT_BYTES))).slice(0, 4000)
      : '',
    autoFixed: false,
  }
  return { result, analysis }
}

/**
 * A sharded check: each leg judged on its own output (a leg that gave no verdict on its output and the
 * no-verdict line, which the `infrastructure` pattern matches), then merged into the check's one
 * result; the leading shard's analysis is the check's, with the merged excerpt and locations.
 */
function mergedLegs(
  input: IterationInput,
  deps: IterationDeps,
  check: CheckConfig,
  legs: readonly MatrixLegOutcome[],
  analyzers: Map<string, StreamingAnalyzer>,
): Judged {
  const shards: LiveShard[] = legs.map((leg) => {
    const analyzer = analyzers.get(analyzerKey(check.name, leg.leg.shard))
    if (leg.noVerdict === null) {
      const judged = judge(input, deps, check, { verdict: leg.verdict, result: leg.result }, analyzer)
      return { leg: leg.leg, result: judged.result, analysis: judged.analysis, output: leg.result.output }
    }
    const missing = missingShardResult(check, leg.leg.shard, leg.leg.shards, leg.noVerdict)
    analyzer?.push(`\n${missing.excerpt}\n`)
    const judged = judge(input, deps, check, { verdict: 'error', result: { ...leg.result, exitCode: null } }, analyzer)
    // The line first, then what the shard printed last: where it was when it was lost.
    const printed = deps.redact(displayText(tail(leg.result.output, MISSING_TAIL_BYTES))).trim()
    const excerpt = (printed ? `${missing.excerpt}\n${printed}` : missing.excerpt).slice(0, 4000)
    const result = { ...judged.result, durationMs: leg.result.durationMs, excerpt }
    return { leg: leg.leg, result, analysis: judged.analysis, output: leg.result.output }
  })
  const merged = mergeShards(
    check,
    legs[0]?.leg.shards ?? shardCount(check),
    shards.map((s) => ({ shard: s.leg.shard, result: s.result })),
  )
  const leading = shards.find((s) => s.leg.shard === merged.leading)?.analysis ?? null
  const analysis = leading ? { ...leading, excerpt: merged.result.excerpt, locations: merged.result.locations } : null
  return { result: merged.result, analysis, shards }
}

export async function rerunCheck(
  input: IterationInput,
  deps: IterationDeps,
  check: CheckConfig,
  logDir: string,
  env: Record<string, string>,
  label: string,
): Promise<RunResult> {
  // A sharded check comes here only with a command of its own (its failing tests): no shard's report is its.
  if (shardCount(check) === 1) await removeReports(input, deps, [check])
  return deps.runner.run({
    command: check.run,
    cwd: input.cwd,
    env: { ...env, ...check.env },
    timeoutMs: check.timeout * 1000,
    logFile: join(logDir, `${safeName(label)}.log`),
  })
}

/**
 * The JUnit verdicts of every check that writes a report, `<check>:<test id>`; a sharded check's shards
 * united (fail wins). With `input.recordedTests` (fan-out's decide: the verify legs read the reports
 * where the checks ran), those are the verdicts, and no report is read here.
 */
export async function junitResults(
  input: IterationInput,
  deps: IterationDeps,
): Promise<Record<string, 'pass' | 'fail'>> {
  if (input.recordedTests) return { ...input.recordedTests }
  const tests: Record<string, 'pass' | 'fail'> = {}
  for (const check of input.config.checks) {
    if (!check.junit) continue
    const perShard: Record<string, 'pass' | 'fail'>[] = []
    for (const leg of expandShards(check)) {
      const xml = leg.junit ? await deps.workspace.readText(resolve(input.cwd, leg.junit), 32 * 1024 * 1024) : null
      if (!xml) continue
      const verdicts: Record<string, 'pass' | 'fail'> = {}
      for (const test of parseJUnit(xml)) {
        if (test.status !== 'skipped') verdicts[testKey(check.name, test.id)] = test.status
      }
      perShard.push(verdicts)
    }
    Object.assign(tests, unionTests(perShard))
  }
  return tests
}

function relativeLocations(analysis: Analysis, cwd: string): Analysis {
  return {
    ...analysis,
    locations: analysis.locations.map((location) => {
      let file = location.file.replace(/^file:\/\//, '')
      if (isAbsolute(file)) {
        const rel = relative(cwd, file)
        if (!rel.startsWith('..')) file = rel
      }
      return { ...location, file }
    }),
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100
}

function tail(text: string, bytes: number): string {
  return text.length > bytes ? text.slice(text.length - bytes) : text
}

/**
 * The names of the checks that run in every iteration (all but the verify-only ones), or undefined when
 * no check is verify-only, so the whole matrix runs as configured.
 */
export function everyIterationChecks(checks: readonly CheckConfig[]): string[] | undefined {
  if (!checks.some((c) => c['verify-only'])) return undefined
  return checks.filter((c) => !c['verify-only']).map((c) => c.name)
}
