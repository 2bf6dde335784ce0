/**
 * The verification matrix as one iteration runs it: every check a real process, its output streamed
 * through the analyzer, and the results as the state records them.
 */
import { isAbsolute, join, relative, resolve } from 'node:path'
import { type Analysis, parseJUnit, StreamingAnalyzer } from '../domain/analysis/index.js'
import { displayText } from '../domain/display-text.js'
import { strategyForFixCoverage } from '../domain/fix-coverage.js'
import type { CheckConfig } from '../domain/loop-config.js'
import type { CheckResult } from '../domain/state.js'
import type { RunResult } from '../ports/process.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'
import { type MatrixCheckOutcome, runMatrix } from './matrix.js'
import { safeName } from './step-support.js'

/** A check of this iteration: its config, how the run ended, its recorded result and its analysis. */
export interface LiveCheck {
  check: CheckConfig
  outcome: MatrixCheckOutcome
  result: CheckResult
  analysis: Analysis | null
  log: string
}

const EXCERPT_BYTES = 3000

/** Runs the verification matrix with streaming analysis of each failing check's output. */
export async function verify(
  input: IterationInput,
  deps: IterationDeps,
  logDir: string,
  env: Record<string, string>,
  iteration: number,
  live: boolean,
  only?: string[],
): Promise<LiveCheck[]> {
  await deps.workspace.makeDir(logDir)
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
      analyzers.set(check.name, new StreamingAnalyzer(input.library, { kind: check.kind }))
      if (live) deps.progress?.checkStarted?.(iteration, check)
    },
    onOutput: (name, chunk) => analyzers.get(name)?.push(chunk),
    ...(only ? { only } : {}),
  })
  return outcomes.map((outcome) => {
    const analyzer = analyzers.get(outcome.check.name)
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
            Boolean(outcome.check.fix),
          )
        : null
    const result: CheckResult = {
      name: outcome.check.name,
      kind: outcome.check.kind,
      verdict: outcome.verdict,
      required: outcome.check.required,
      durationMs: outcome.result?.durationMs ?? 0,
      exitCode: outcome.result?.exitCode ?? null,
      ...(outcome.skippedReason ? { skippedReason: outcome.skippedReason } : {}),
      pattern: analysis?.pattern ?? null,
      confidence: analysis ? round2(analysis.confidence) : null,
      strategy: analysis?.strategy ?? null,
      signature: analysis?.signature ?? null,
      locations: analysis?.locations.slice(0, 20) ?? [],
      excerpt: failing
        ? deps
            .redact(displayText(analysis?.excerpt || tail(outcome.result?.output ?? '', EXCERPT_BYTES)))
            .slice(0, 4000)
        : '',
      autoFixed: false,
    }
    if (live) deps.progress?.checkFinished?.(iteration, result)
    return { check: outcome.check, outcome, result, analysis, log: outcome.result?.logFile ?? '' }
  })
}

export async function rerunCheck(
  input: IterationInput,
  deps: IterationDeps,
  check: CheckConfig,
  logDir: string,
  env: Record<string, string>,
  label: string,
): Promise<RunResult> {
  return deps.runner.run({
    command: check.run,
    cwd: input.cwd,
    env: { ...env, ...check.env },
    timeoutMs: check.timeout * 1000,
    logFile: join(logDir, `${safeName(label)}.log`),
  })
}

export async function junitResults(
  input: IterationInput,
  deps: IterationDeps,
): Promise<Record<string, 'pass' | 'fail'>> {
  const tests: Record<string, 'pass' | 'fail'> = {}
  for (const check of input.config.checks) {
    if (!check.junit) continue
    const xml = await deps.workspace.readText(resolve(input.cwd, check.junit), 32 * 1024 * 1024)
    if (!xml) continue
    for (const test of parseJUnit(xml)) {
      if (test.status !== 'skipped') tests[`${check.name}:${test.id}`] = test.status
    }
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
