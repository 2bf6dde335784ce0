/**
 * Figure 8: agent calls saved. On examples/demo and examples/lint-only, a real loop (the CLI's `run`, in a
 * fresh git copy of the project) to COMPLETE with the project's config, against a naive loop: the same
 * config without `fix` commands, without `install` and with the flake check off, so that every failure
 * wakes the agent. Both loops use the same agent (examples/naive/agent.mjs, which can repair everything
 * the examples need), so they differ only in the config. Counted: work-command invocations (the state's
 * metrics.workCalls, cross-checked with the agent's own call counter) and the wall time to COMPLETE.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { parse, stringify } from 'yaml'
import { type BenchRow, commitProject, times } from './lib.js'

const ROOT = resolve(import.meta.dirname, '..')
const AGENT = join(ROOT, 'examples', 'naive', 'agent.mjs')
/** The controller's loop should need well under half of the naive loop's agent calls. */
const BUDGET_SHARE = 0.5

interface LoopRun {
  status: string
  workCalls: number
  counted: number
  iterations: number
  ms: number
}

type Variant = 'controller' | 'naive'

/** The example's own config, with room for the naive loop and the agent's variables passed through. */
function configFor(example: string, variant: Variant): Record<string, unknown> {
  const config = parse(readFileSync(join(ROOT, 'examples', example, '.github', 'loop.yml'), 'utf8')) as Record<
    string,
    unknown
  > & { work: { 'pass-env'?: string[] }; checks: Record<string, unknown>[] }
  config['max-iterations'] = 20
  config.work['pass-env'] = ['LOOP_AGENT', 'LOOP_DEMO_AGENT', 'LOOP_AGENT_CALLS']
  if (variant === 'naive') {
    config['flake-check'] = { enabled: false }
    delete config.install
    for (const check of config.checks) delete check.fix
    config.patterns = agentOnlyPatterns()
  }
  return config
}

/** Patterns whose remedy the controller carries out itself (auto_fix, dependency_check). */
const CONTROLLER_REMEDIES = ['lint-error', 'format-error', 'import-not-found', 'command-not-found']

/**
 * The default library's patterns for lint, format and missing dependencies, with the agent as their
 * remedy (`analyze_then_fix`, no alternates): without `fix` and `install` the controller would otherwise
 * still pick auto_fix or dependency_check, which then have nothing to run.
 */
function agentOnlyPatterns(): Record<string, unknown>[] {
  const library = parse(readFileSync(join(ROOT, 'src', 'config', 'patterns.yml'), 'utf8')) as {
    patterns: { id: string }[]
  }
  return library.patterns
    .filter((pattern) => CONTROLLER_REMEDIES.includes(pattern.id))
    .map((pattern) => ({ ...pattern, strategy: 'analyze_then_fix', alternates: [] }))
}

function runLoop(example: string, variant: Variant): LoopRun {
  const work = mkdtempSync(join(tmpdir(), `loop-bench-${example}-${variant}-`))
  const counter = join(work, '..', `${work.split('/').pop()}.calls`)
  try {
    cpSync(join(ROOT, 'examples', example), work, { recursive: true })
    writeFileSync(join(work, '.github', 'loop.yml'), stringify(configFor(example, variant)))
    commitProject(work, 'the example project, with seeded defects')
    writeFileSync(counter, '')
    const started = performance.now()
    const run = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(ROOT, 'src', 'cli-entry.ts'), 'run', '--loop-id', 'bench'],
      {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
          LOOP_AGENT: AGENT,
          LOOP_DEMO_AGENT: AGENT,
          LOOP_AGENT_CALLS: counter,
          CI: 'true',
        },
        timeout: 240_000,
      },
    )
    const ms = performance.now() - started
    const statePath = join(work, '.loop', 'bench', 'loop-state.json')
    if (!existsSync(statePath)) {
      throw new Error(`${example} (${variant}): no state written; the CLI said:\n${run.stdout}\n${run.stderr}`)
    }
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
      status: string
      iteration: number
      metrics: { workCalls: number }
    }
    if (process.env.BENCH_VERBOSE) console.error(`--- ${example} (${variant})\n${run.stdout}\n${run.stderr}`)
    return {
      status: state.status,
      workCalls: state.metrics.workCalls,
      counted: readFileSync(counter, 'utf8').split('\n').filter(Boolean).length,
      iterations: state.iteration,
      ms,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
    rmSync(counter, { force: true })
    // The flaky test's run counter (examples/lint-only/test/cache.test.js), keyed on the project's path.
    const key = createHash('sha256').update(work).digest('hex').slice(0, 16)
    rmSync(join(tmpdir(), `loop-lint-only-flaky-${key}`), { force: true })
  }
}

export async function agentCalls(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const example of ['demo', 'lint-only']) {
    const controller = runLoop(example, 'controller')
    const naive = runLoop(example, 'naive')
    const describe = (run: LoopRun) =>
      `${run.workCalls} calls, ${run.iterations} it., ${(run.ms / 1000).toFixed(1)} s, ${run.status}`
    const share = naive.workCalls > 0 ? controller.workCalls / naive.workCalls : Number.NaN
    const bothComplete = controller.status === 'complete' && naive.status === 'complete'
    const countsAgree = controller.counted === controller.workCalls && naive.counted === naive.workCalls
    rows.push({
      figure: `8. agent calls to COMPLETE, examples/${example}`,
      value: describe(controller),
      baseline: `naive ${describe(naive)}`,
      ratio: `${times(share)} calls, ${times(controller.ms / naive.ms)} time`,
      budget: `< ${BUDGET_SHARE}x naive calls`,
      met: bothComplete && share < BUDGET_SHARE ? 'yes' : 'no',
      ...(!bothComplete
        ? {
            note: `examples/${example}: a loop did not complete (controller ${controller.status}, naive ${naive.status})`,
          }
        : !countsAgree
          ? {
              note: `examples/${example}: the agent counted ${controller.counted} / ${naive.counted} calls, the state ${controller.workCalls} / ${naive.workCalls}`,
            }
          : {}),
    })
  }
  return rows
}
