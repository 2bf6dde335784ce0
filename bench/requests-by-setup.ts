/**
 * A quick count, not a bench figure: the API requests each iteration costs the jobs' GITHUB_TOKEN
 * (what counts against GitHub's 1,000 an hour per repository) in five setups, on a loop of three
 * iterations run through the GitHub sandbox with the action's bundle, one job per iteration:
 * the default `git` store; `git` with `dashboard: true`; `auto` (cache and artifact); `artifact`;
 * and fan-out (examples/workflows/loop-fan-out.yml: plan, one verify leg, decide), whose downloads of
 * the plan and the verdict go through REST with the jobs' token.
 * Run: `npm run bundle && npx tsx bench/requests-by-setup.ts` (about two minutes); a word after it runs
 * only the setups whose label holds it (`... requests-by-setup.ts fan-out`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loopWorkflow } from '../test/sandbox/loop-workflow.js'
import { runSandboxLoop, sandboxAction } from './sandbox-loop.js'

const ITERATIONS = 3
const ROOT = resolve(import.meta.dirname, '..')

/** A project whose loop needs exactly three iterations: each work call adds a line, the check wants three. */
function writeProject(dir: string): void {
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
  writeFileSync(
    join(dir, '.github', 'loop.yml'),
    `goal: Write ${ITERATIONS} lines, one per iteration.\npipeline: iterate\nmax-iterations: 5\nretry: { per-failure: 20, same-error: 20, total: 100 }\nflake-check: { enabled: false }\nwork:\n  run: node add.mjs\nchecks:\n  - name: lines\n    run: node check.mjs\n`,
  )
}

/** The store setups: the single-job workflow with these inputs. */
const STORE_SETUPS: ReadonlyArray<{ label: string; with: Record<string, string> }> = [
  { label: 'git store', with: {} },
  { label: 'git store, dashboard', with: { dashboard: 'true' } },
  { label: 'auto store', with: { store: 'auto' } },
  { label: 'artifact store', with: { store: 'artifact' } },
]

/** Each setup's workflow file and its text. */
const SETUPS: ReadonlyArray<{ label: string; file: string; workflow: () => string }> = [
  ...STORE_SETUPS.map((setup) => ({
    label: setup.label,
    file: 'loop.yml',
    workflow: () => loopWorkflow({ name: 'loop', with: setup.with }),
  })),
  {
    label: 'fan-out, one leg',
    file: 'loop-fan-out.yml',
    workflow: () => readFileSync(join(ROOT, 'examples', 'workflows', 'loop-fan-out.yml'), 'utf8'),
  },
]

const work = mkdtempSync(join(tmpdir(), 'loop-requests-'))
try {
  const actionDir = sandboxAction(work, { reusableWorkflow: true })
  const only = process.argv[2]
  for (const setup of SETUPS.filter((s) => !only || s.label.includes(only))) {
    const label = setup.label.replace(/\W+/g, '-')
    const project = join(work, `project-${label}`)
    writeProject(project)
    const result = await runSandboxLoop({
      actionDir,
      projectDir: project,
      files: { [`.github/workflows/${setup.file}`]: setup.workflow() },
      workflowFile: setup.file,
      inputs: { 'loop-id': 'three' },
      out: join(work, `out-${label}`),
      // Fan-out's runs record four jobs an iteration (the caller's, plan, the leg, decide).
      maxJobs: 20,
      jobTimeoutMs: 120_000,
      timeoutMs: 300_000,
    })
    const perIteration = (result.jobTokenRequests / ITERATIONS).toFixed(1)
    // In fan-out the loop's status is decide's output; the run's last job is the caller's.
    const status = result.jobs.filter((job) => job.name.endsWith('decide')).at(-1)?.outputs.status ?? result.finalStatus
    const problems = result.problems.length > 0 ? `; problems: ${result.problems.slice(0, 3).join('; ')}` : ''
    console.log(
      `${setup.label}: ${result.jobs.length} jobs, ${result.jobTokenRequests} requests, ${perIteration} per iteration, ${status}${problems}`,
    )
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
