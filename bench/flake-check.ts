/**
 * Figure 9: the flake check where flakes are possible. A loop whose slow type check and slow linter fail
 * for several iterations (the agent repairs one error of each per call) runs to COMPLETE twice with the CLI: as
 * the checks are declared (`typecheck`, `lint`: never re-run on unchanged files), and with the same
 * checks declared `custom`, which the flake check still re-runs whole: what every failing check got
 * before. Same agent, same failures, same number of agent calls; compared: the time spent in checks
 * (each check process adds its own wall time to a log) and the loop's wall time.
 *
 * The second row does the same on a real project: ufo (test/real-projects/, TypeScript, whose `tsc` and
 * `eslint` are the slow checks), run by the real-projects harness with the strict oracle agent, as
 * configured and with its typecheck and lint checks declared `custom`. Its time in checks is the
 * harness's (the verification matrices); the flake check's re-runs are outside it, so the row also
 * gives the time outside the agent (wall time less the agent's).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import {
  currentController,
  type LoopOutcome,
  prepareToolchain,
  runLoop as runRealLoop,
} from '../test/real-projects/harness.js'
import { PROJECTS } from '../test/real-projects/projects.js'
import { type BenchRow, commitProject, times } from './lib.js'

const ROOT = resolve(import.meta.dirname, '..')
/** How long each run of the slow checks takes (a real `tsc --noEmit` or `eslint .` takes seconds). */
const CHECK_MS = 400
const NAMES = ['alpha', 'bravo', 'charlie']

/** A check that sleeps, logs its time and fails while its errors file names any error. */
const CHECK = `import { appendFileSync, readFileSync } from 'node:fs'
const [kind] = process.argv.slice(2)
const started = Date.now()
await new Promise((r) => setTimeout(r, ${CHECK_MS}))
const left = readFileSync(kind + '.errors', 'utf8').split('\\n').filter(Boolean)
for (const name of left) {
  if (kind === 'types') console.log('src/' + name + ".ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
  else console.log('src/' + name + ".ts\\n  3:7  error  '" + name + "' is assigned a value but never used  no-unused-vars")
}
if (kind === 'lint' && left.length) console.log('\\n✖ ' + left.length + ' problems')
appendFileSync('checks.log', kind + ' ' + (Date.now() - started) + '\\n')
process.exit(left.length ? 1 : 0)
`

/** The agent: repairs one type error and one lint error per call. */
const AGENT = `import { readFileSync, writeFileSync } from 'node:fs'
for (const kind of ['types', 'lint']) {
  const left = readFileSync(kind + '.errors', 'utf8').split('\\n').filter(Boolean)
  writeFileSync(kind + '.errors', left.slice(1).join('\\n'))
}
`

interface FlakeRun {
  status: string
  workCalls: number
  checkMs: number
  checkRuns: number
  ms: number
}

function config(kinds: { types: string; lint: string }): string {
  return `goal: Repair the types and the lint.
max-iterations: 12
work:
  run: node agent.mjs
checks:
  - name: types
    kind: ${kinds.types}
    run: node check.mjs types
  - name: lint
    kind: ${kinds.lint}
    run: node check.mjs lint
flake-check: { enabled: true, reruns: 1 }
`
}

function runLoop(kinds: { types: string; lint: string }): FlakeRun {
  const work = mkdtempSync(join(tmpdir(), 'loop-bench-flake-'))
  try {
    execFileSync('mkdir', ['-p', join(work, '.github')])
    writeFileSync(join(work, '.github', 'loop.yml'), config(kinds))
    writeFileSync(join(work, 'check.mjs'), CHECK)
    writeFileSync(join(work, 'agent.mjs'), AGENT)
    writeFileSync(join(work, 'types.errors'), NAMES.join('\n'))
    writeFileSync(join(work, 'lint.errors'), NAMES.join('\n'))
    writeFileSync(join(work, '.gitignore'), 'checks.log\n')
    commitProject(work, 'three type errors, three lint errors')
    const started = performance.now()
    const run = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(ROOT, 'src', 'cli-entry.ts'), 'run', '--loop-id', 'bench'],
      {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` },
        timeout: 240_000,
      },
    )
    const ms = performance.now() - started
    if (process.env.BENCH_VERBOSE) console.error(`--- ${kinds.types}/${kinds.lint}\n${run.stdout}\n${run.stderr}`)
    const state = JSON.parse(readFileSync(join(work, '.loop', 'bench', 'loop-state.json'), 'utf8')) as {
      status: string
      metrics: { workCalls: number }
    }
    const log = readFileSync(join(work, 'checks.log'), 'utf8').split('\n').filter(Boolean)
    return {
      status: state.status,
      workCalls: state.metrics.workCalls,
      checkRuns: log.length,
      checkMs: log.reduce((sum, line) => sum + Number(line.split(' ')[1] ?? 0), 0),
      ms,
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

export async function flakeCheckTime(): Promise<BenchRow[]> {
  const now = runLoop({ types: 'typecheck', lint: 'lint' })
  const before = runLoop({ types: 'custom', lint: 'custom' })
  const describe = (run: FlakeRun) =>
    `${(run.checkMs / 1000).toFixed(1)} s in ${run.checkRuns} check runs, ${(run.ms / 1000).toFixed(1)} s wall, ${run.workCalls} calls, ${run.status}`
  const fair = now.status === 'complete' && before.status === 'complete' && now.workCalls === before.workCalls
  return [
    {
      figure: '9. time in checks, slow typecheck and lint failing',
      value: describe(now),
      baseline: `every failing check re-run: ${describe(before)}`,
      ratio: `${times(now.checkMs / before.checkMs)} check time, ${times(now.ms / before.ms)} wall`,
      budget: '< 1x check time',
      met: fair && now.checkMs < before.checkMs ? 'yes' : 'no',
      ...(fair
        ? {}
        : {
            note: `the two loops differ (${now.status}/${before.status}, ${now.workCalls}/${before.workCalls} calls): not comparable`,
          }),
    },
    await realProjectRow(),
  ]
}

const REAL_FIGURE = '9. flake check on a real project: ufo (TypeScript)'

/** ufo's typecheck and lint checks declared `custom`: the flake check re-runs them whole, as every failing check was before. */
export function slowChecksAsCustom(yaml: string): string {
  return yaml.replace(/^(\s+kind: )(typecheck|lint)$/gm, '$1custom')
}

async function realProjectRow(): Promise<BenchRow> {
  const project = PROJECTS.find((p) => p.name === 'ufo')
  const toolchain = project ? prepareToolchain(project) : 'ufo is not among the real projects'
  if (!project || typeof toolchain === 'string')
    return {
      figure: REAL_FIGURE,
      value: '',
      baseline: '',
      ratio: '',
      budget: '',
      met: 'not measured',
      note: String(toolchain),
    }
  const measure = async (config?: (yaml: string) => string) => {
    const outcome = await runRealLoop(project, currentController(), toolchain, config ? { config } : {})
    const reruns = flakeReruns(outcome.repo)
    rmSync(dirname(outcome.repo), { recursive: true, force: true })
    return { ...outcome, reruns }
  }
  const now = await measure()
  const before = await measure(slowChecksAsCustom)
  const outsideAgent = (o: LoopOutcome) => Math.max(0, o.wallMs - o.workMs)
  const describe = (o: LoopOutcome & { reruns: number }) =>
    `${(o.checksMs / 1000).toFixed(1)} s in checks, ${o.reruns} flake re-runs, ${(outsideAgent(o) / 1000).toFixed(1)} s outside the agent, ${(o.wallMs / 1000).toFixed(1)} s wall, ${o.iterations} iterations, ${o.agentCalls} calls, ${o.status}`
  const comparable = now.status === 'complete' && before.status === 'complete' && now.agentCalls === before.agentCalls
  // Where no failing check reached the flake check, the two declarations run the same commands: no saving to show.
  const fair = comparable && before.reruns > 0
  return {
    figure: REAL_FIGURE,
    value: describe(now),
    baseline: `typecheck and lint declared custom: ${describe(before)}`,
    ratio: `${times(now.checksMs / before.checksMs)} check time, ${times(outsideAgent(now) / outsideAgent(before))} outside the agent, ${times(now.wallMs / before.wallMs)} wall`,
    budget: '< 1x wall',
    met: fair ? (now.wallMs < before.wallMs ? 'yes' : 'no') : comparable ? 'n/a' : 'no',
    ...(fair
      ? {}
      : {
          note: comparable
            ? `no failing check reached the flake check in either loop (${before.iterations} iteration${before.iterations === 1 ? '' : 's'}): the same commands ran, the difference is noise`
            : `the two loops differ (${now.status}/${before.status}, ${now.agentCalls}/${before.agentCalls} calls): not comparable`,
        }),
  }
}

/** The flake check's re-runs in a loop's audit trail (each leaves `runs/<n>/<check>.rerun-<k>.log`). */
function flakeReruns(repo: string): number {
  const loops = join(repo, '.loop')
  if (!existsSync(loops)) return 0
  return readdirSync(loops, { recursive: true, encoding: 'utf8' }).filter((path) => /\.rerun-\d+\.log$/.test(path))
    .length
}
