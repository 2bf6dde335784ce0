/**
 * Shared pieces of the benchmarks (issue 8): the row every figure reports, timing helpers, child-process
 * timing, and a synthetic long loop built with the real engine. Every figure is a ratio against a
 * baseline measured in the same run, because the machines these run on are noisy.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { type LoopConfigInput, loopConfigSchema } from '../src/config/loop-config.js'
import { normaliseTokens } from '../src/domain/analysis/index.js'
import { unanalyzedResult } from '../src/domain/check-result.js'
import {
  applyOutcome,
  beginIteration,
  compactState,
  decide,
  type FailureInput,
  initialState,
  type Policy,
  policyFromConfig,
} from '../src/domain/engine/index.js'
import type { CheckResult, LoopState } from '../src/domain/state.js'

/** The machine, as the committed results (performance, requests, reliability) show it: CPU model, cores, node version. */
export function machine(): string {
  let cpu = 'unknown CPU'
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (model?.[1]) cpu = model[1].trim()
  } catch {}
  return `${cpu}, ${availableParallelism()} cores, node ${process.version}, ${process.platform}`
}

/** One line of the benchmark table. */
export interface BenchRow {
  figure: string
  value: string
  baseline: string
  ratio: string
  budget: string
  /** `yes`, `no`, `n/a` (informational) or `not measured`. */
  met: 'yes' | 'no' | 'n/a' | 'not measured'
  /** Why a budget is not met or a figure not measured; printed under the table. */
  note?: string
}

/** The median of a list of numbers (the list is not changed). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** Milliseconds with one decimal for the table. */
export const ms = (value: number): string => `${value.toFixed(1)} ms`
/** A ratio for the table, e.g. `1.84x`. */
export const times = (value: number): string => `${value.toFixed(2)}x`
/** Bytes as KiB or MiB for the table. */
export function bytes(value: number): string {
  if (value >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(2)} MiB`
  return `${(value / 1024).toFixed(1)} KiB`
}

/** One timed run of a real iteration: its wall time and the part of it during which a child ran (ms). */
export interface IterationSample {
  total: number
  children: number
}

/** Rounds to the one decimal the table prints. */
const tenth = (value: number): number => Math.round(value * 10) / 10

/**
 * The controller's share of a real iteration, as printed: the run whose own time (total minus children)
 * is the median, with its total and children rounded to the printed decimal first and its own time their
 * difference, so `controller = total - children` holds for the printed figures. (Medians taken column by
 * column do not add up: the run with the median total is rarely the run with the median children.)
 */
export function controllerShare(samples: readonly IterationSample[]): IterationSample & { controller: number } {
  if (samples.length === 0) throw new Error('no iteration samples')
  const byOwnTime = [...samples].sort((a, b) => a.total - a.children - (b.total - b.children))
  const middle = byOwnTime[Math.floor((byOwnTime.length - 1) / 2)] as IterationSample
  const total = tenth(middle.total)
  const children = tenth(middle.children)
  return { total, children, controller: tenth(total - children) }
}

/** Runs `body` once to warm up, then `runs` times, and returns the median wall time in ms. */
export async function timeMedian(runs: number, body: () => Promise<unknown> | unknown): Promise<number> {
  await body()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await body()
    samples.push(performance.now() - started)
  }
  return median(samples)
}

/** Starts a process and resolves with its wall time to exit (ms), its exit code and its output. */
export function timeProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ ms: performance.now() - started, code, stdout, stderr }))
  })
}

/** The median wall time of `runs` starts of a process (after one warm-up start). */
export async function medianProcessMs(
  runs: number,
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  await timeProcess(command, args, options)
  const samples: number[] = []
  for (let i = 0; i < runs; i++) samples.push((await timeProcess(command, args, options)).ms)
  return median(samples)
}

/** The checks of the synthetic long loop; a config that reuses the state must use the same names. */
export const SYNTHETIC_CHECKS = [
  { name: 'types', run: 'true', kind: 'typecheck' },
  { name: 'lint', run: 'true', kind: 'lint' },
  { name: 'unit', run: 'true', kind: 'test' },
] as const

/** A loop config through the real schema, allowed to run long enough for the synthetic history. */
export function syntheticConfig(overrides: Partial<LoopConfigInput> = {}) {
  return loopConfigSchema.parse({
    goal: 'A long synthetic loop for the benchmarks',
    'max-iterations': 1000,
    'cap-reason': 'benchmark: a synthetic long history',
    retry: { 'per-failure': 20, 'same-error': 20, total: 100 },
    'flake-check': { enabled: false },
    work: { run: 'true' },
    checks: SYNTHETIC_CHECKS,
    commit: { enabled: false },
    ...overrides,
  })
}

const LONG_TEXT = Array.from({ length: 300 }, (_, i) => `word${i % 50}`).join(' ')

function syntheticFailure(i: number): FailureInput {
  const lint = i % 2 === 1
  const text = lint ? `${LONG_TEXT} lint ${i}` : `${LONG_TEXT} Type 'string' is not assignable ${i}`
  const tokens = normaliseTokens(text)
  const pattern = lint ? 'lint-error' : 'type-error'
  return {
    check: lint ? 'lint' : 'types',
    kind: lint ? 'lint' : 'typecheck',
    pattern,
    confidence: 0.9,
    strategy: 'context_expand',
    alternates: [],
    retryable: true,
    signature: `${pattern}:ts:${(i % 17).toString(16)}`,
    tokens,
    error: text,
  }
}

function checkResult(name: string, kind: CheckResult['kind'], failing: boolean): CheckResult {
  return unanalyzedResult(
    { name, kind, required: true },
    { verdict: failing ? 'fail' : 'pass', durationMs: 1200, exitCode: failing ? 1 : 0 },
  )
}

/**
 * A state with `iterations` iterations of history, built with the engine itself (decide, beginIteration,
 * applyOutcome, compactState) over synthetic outcomes: failures on alternating checks with long output,
 * a green matrix every fifth iteration. A loop that completes or blocks is reopened so that history keeps
 * growing, as a long loop's would across stages and resumes.
 */
export function syntheticState(iterations: number, config = syntheticConfig()): { state: LoopState; policy: Policy } {
  // The schema caps a loop at 1,000 iterations; longer histories (10,000 is ten such loops' worth in
  // one state) lift the cap on the policy and the state only, to show that compaction keeps them bounded.
  const configured = policyFromConfig(config)
  const policy = { ...configured, maxIterations: Math.max(configured.maxIterations, iterations) }
  const t0 = Date.parse('2026-01-01T00:00:00.000Z')
  let state: LoopState = initialState({ loopId: 'bench', goal: config.goal, policy, now: new Date(t0) })
  for (let i = 0; i < iterations; i++) {
    const now = new Date(t0 + i * 60_000)
    const decision = decide(state, { now }, policy)
    if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
      throw new Error(`synthetic history: iteration ${i + 1} got ${decision.kind}: ${decision.reason}`)
    }
    const started = beginIteration(state, decision, now)
    const failing = i % 5 === 4 ? [] : [syntheticFailure(i)]
    const applied = applyOutcome(
      started,
      {
        now,
        stage: started.stage,
        work: { exitCode: 0, blocked: false, durationMs: 30_000, tokens: 1200, costUsd: 0.004 },
        checks: SYNTHETIC_CHECKS.map((c) =>
          checkResult(
            c.name,
            c.kind,
            failing.some((f) => f.check === c.name),
          ),
        ),
        failures: failing,
        flaky: [],
        autoFixed: [],
        gatesRaised: [],
        tasksCompleted: [],
        wallMs: 45_000,
        ...(decision.kind === 'RETRY' ? { strategyUsed: decision.strategy } : {}),
      },
      policy,
    )
    state = compactState(applied.state)
    if (state.status === 'complete') state = { ...state, status: 'running', stage: 'IMPLEMENT' }
    if (state.status === 'blocked') {
      state = {
        ...state,
        status: 'running',
        failures: { ...state.failures, total: 0, current: null, consecutive: 0, sameError: 0, tried: [] },
      }
    }
  }
  return { state, policy }
}

/** Renders rows as a Markdown table (also readable as plain text). */
export function renderTable(rows: readonly BenchRow[]): string {
  const header = ['figure', 'value', 'baseline', 'ratio', 'budget', 'met?']
  const cells = rows.map((r) =>
    [r.figure, r.value, r.baseline, r.ratio, r.budget, r.met].map((cell) => cell.replaceAll('|', '\\|')),
  )
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => (row[c] ?? '').length)))
  const line = (row: readonly string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}

/** Makes `dir` a git repository with everything in it committed as `message` (a bench identity, no hooks). */
export function commitProject(dir: string, message: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], {
      cwd: dir,
      stdio: 'pipe',
    })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-qm', message)
}
