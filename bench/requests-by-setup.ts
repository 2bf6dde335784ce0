/**
 * `npm run bench:requests`: the API requests each iteration costs the jobs' GITHUB_TOKEN (what counts
 * against GitHub's 1,000 an hour per repository) in six setups, on a loop of three iterations run
 * through the GitHub sandbox with the action's bundle: one job per iteration with the default `git`
 * store, `git` with `dashboard: true`, `auto` (cache and artifact) and `artifact`; and fan-out
 * (examples/workflows/loop-fan-out.yml: plan, the verify legs, decide), whose downloads of the plan and
 * the verdicts go through REST with the jobs' token, with one verify leg and with four (the same check
 * with `shards: 4`).
 *
 * A full run writes what it measured (each setup's jobs, requests, requests per iteration, the loop's
 * final status and the sandbox's problems; the workflow runs and jobs; the date, the machine, node's version) to
 * bench/results/requests-by-setup.json, committed: scripts/perf-tables.mjs renders README.md's table
 * from it. It writes only when every setup ran and ended `complete` with no problem; otherwise it exits
 * 1 naming the setups that did not, and the committed results stay as they were. A word after it runs
 * only the setups whose label holds it (`npm run bench:requests -- fan-out`) and writes nothing.
 * Run `npm run bundle` first; the whole run takes a few minutes.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loopWorkflow } from '../test/sandbox/loop-workflow.js'
import { machine } from './lib.js'
import { runSandboxLoop, sandboxAction } from './sandbox-loop.js'

const ITERATIONS = 3
const ROOT = resolve(import.meta.dirname, '..')
const RESULTS = join('bench', 'results', 'requests-by-setup.json')

/** A project whose loop needs exactly three iterations: each work call adds a line, the check wants three. */
function writeProject(dir: string, shards: number): void {
  mkdirSync(join(dir, '.github'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{ "name": "three-lines", "private": true, "type": "module" }\n')
  writeFileSync(
    join(dir, 'add.mjs'),
    `import { appendFileSync } from 'node:fs'\nappendFileSync('lines.txt', 'line\\n')\n`,
  )
  writeFileSync(
    join(dir, 'check.mjs'),
    `import { existsSync, readFileSync } from 'node:fs'\nconst have = existsSync('lines.txt') ? readFileSync('lines.txt', 'utf8').split('\\n').filter(Boolean).length : 0\nprocess.exit(have >= ${ITERATIONS} ? 0 : 1)\n`,
  )
  // A sharded check must name its shard; each shard checks the whole file, so each leg gives the same verdict.
  const check = shards > 1 ? `    run: node check.mjs {shard}\n    shards: ${shards}\n` : '    run: node check.mjs\n'
  writeFileSync(
    join(dir, '.github', 'loop.yml'),
    `goal: Write ${ITERATIONS} lines, one per iteration.\npipeline: iterate\nmax-iterations: 5\nretry: { per-failure: 20, same-error: 20, total: 100 }\nflake-check: { enabled: false }\nwork:\n  run: node add.mjs\nchecks:\n  - name: lines\n${check}`,
  )
}

interface Setup {
  label: string
  /** Fan-out's verify legs an iteration; null for the single-job workflow. */
  legs: number | null
  file: string
  workflow: () => string
}

const singleJob = (label: string, inputs: Record<string, string>): Setup => ({
  label,
  legs: null,
  file: 'loop.yml',
  workflow: () => loopWorkflow({ name: 'loop', with: inputs }),
})

const fanOut = (label: string, legs: number): Setup => ({
  label,
  legs,
  file: 'loop-fan-out.yml',
  workflow: () => readFileSync(join(ROOT, 'examples', 'workflows', 'loop-fan-out.yml'), 'utf8'),
})

const SETUPS: readonly Setup[] = [
  singleJob('git store', {}),
  singleJob('git store, dashboard', { dashboard: 'true' }),
  singleJob('auto store', { store: 'auto' }),
  singleJob('artifact store', { store: 'artifact' }),
  fanOut('fan-out, one leg', 1),
  fanOut('fan-out, four legs (shards: 4)', 4),
]

/** One setup's measurement, as bench/results/requests-by-setup.json records it. */
interface SetupResult {
  label: string
  legs: number | null
  /** Workflow runs: one an iteration, and fan-out's baseline round before iteration 1. */
  runs: number
  jobs: number
  requests: number
  perIteration: number
  status: string
  problems: string[]
}

async function measure(setup: Setup, actionDir: string, work: string): Promise<SetupResult> {
  const slug = setup.label.replace(/\W+/g, '-')
  const project = join(work, `project-${slug}`)
  writeProject(project, setup.legs ?? 1)
  const result = await runSandboxLoop({
    actionDir,
    projectDir: project,
    files: { [`.github/workflows/${setup.file}`]: setup.workflow() },
    workflowFile: setup.file,
    inputs: { 'loop-id': 'three' },
    out: join(work, `out-${slug}`),
    // Fan-out's runs record 3 + legs jobs a round (plan, the legs, decide, and the skipped single-job one).
    maxJobs: 40,
    jobTimeoutMs: 120_000,
    timeoutMs: 300_000,
  })
  // In fan-out the loop's status is decide's output; the run's last job is the caller's.
  const status = result.jobs.filter((job) => job.name.endsWith('decide')).at(-1)?.outputs.status ?? result.finalStatus
  // Skipped: the reusable workflow's single-job iteration, which fan-out does not run.
  const failedJobs = result.jobs
    .filter((job) => job.conclusion !== 'success' && job.conclusion !== 'cancelled' && job.conclusion !== 'skipped')
    .map((job) => `job ${job.name} (run ${job.runId}) ended ${job.conclusion}`)
  return {
    label: setup.label,
    legs: setup.legs,
    runs: new Set(result.jobs.map((job) => job.runId)).size,
    jobs: result.jobs.length,
    requests: result.jobTokenRequests,
    perIteration: Number((result.jobTokenRequests / ITERATIONS).toFixed(1)),
    status: status ?? 'unknown',
    problems: [...result.problems, ...failedJobs],
  }
}

async function main(): Promise<number> {
  const only = process.argv[2]
  const chosen = SETUPS.filter((setup) => !only || setup.label.includes(only))
  if (chosen.length === 0) {
    console.error(`no setup's label holds '${only}'; the setups: ${SETUPS.map((s) => s.label).join('; ')}`)
    return 2
  }
  const work = mkdtempSync(join(tmpdir(), 'loop-requests-'))
  const setups: SetupResult[] = []
  try {
    const actionDir = sandboxAction(work, { reusableWorkflow: true })
    for (const setup of chosen) {
      const measured = await measure(setup, actionDir, work)
      setups.push(measured)
      const problems = measured.problems.length > 0 ? `; problems: ${measured.problems.slice(0, 3).join('; ')}` : ''
      console.log(
        `${measured.label}: ${measured.runs} runs, ${measured.jobs} jobs, ${measured.requests} requests, ${measured.perIteration} per iteration, ${measured.status}${problems}`,
      )
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const failed = setups.filter((setup) => setup.status !== 'complete' || setup.problems.length > 0)
  if (failed.length > 0) {
    const which = failed.map((setup) => `${setup.label} (${setup.status}, ${setup.problems.length} problems)`)
    console.error(`not complete, or with problems: ${which.join('; ')}; ${RESULTS} left as it was`)
    return 1
  }
  if (only) {
    console.log(`a run of some setups only: ${RESULTS} left as it was`)
    return 0
  }
  const results = {
    date: new Date().toISOString(),
    machine: machine(),
    node: process.version,
    iterations: ITERATIONS,
    setups,
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(join(ROOT, RESULTS), `${JSON.stringify(results, null, 2)}\n`)
  console.log(`written to ${RESULTS}; 'node scripts/perf-tables.mjs --write' renders it into README.md`)
  return 0
}

process.exitCode = await main()
