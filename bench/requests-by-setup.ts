/**
 * A quick count, not a bench figure: the API requests each iteration costs the jobs' GITHUB_TOKEN
 * (what counts against GitHub's 1,000 an hour per repository) in four setups, on a loop of three
 * iterations run through the GitHub sandbox with the action's bundle, one job per iteration:
 * the default `git` store; `git` with `dashboard: true`; `auto` (cache and artifact); `artifact`.
 * Run: `npm run bundle && npx tsx bench/requests-by-setup.ts` (about a minute).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loopWorkflow } from '../test/sandbox/loop-workflow.js'
import { runSandboxLoop, sandboxAction } from './sandbox-loop.js'

const ITERATIONS = 3

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

const SETUPS: ReadonlyArray<{ label: string; with: Record<string, string> }> = [
  { label: 'git store', with: {} },
  { label: 'git store, dashboard', with: { dashboard: 'true' } },
  { label: 'auto store', with: { store: 'auto' } },
  { label: 'artifact store', with: { store: 'artifact' } },
]

const work = mkdtempSync(join(tmpdir(), 'loop-requests-'))
try {
  const actionDir = sandboxAction(work)
  for (const setup of SETUPS) {
    const label = setup.label.replace(/\W+/g, '-')
    const project = join(work, `project-${label}`)
    writeProject(project)
    const result = await runSandboxLoop({
      actionDir,
      projectDir: project,
      files: { '.github/workflows/loop.yml': loopWorkflow({ name: 'loop', with: setup.with }) },
      workflowFile: 'loop.yml',
      inputs: { 'loop-id': 'three' },
      out: join(work, `out-${label}`),
      maxJobs: 8,
      jobTimeoutMs: 120_000,
      timeoutMs: 300_000,
    })
    const perIteration = (result.jobTokenRequests / ITERATIONS).toFixed(1)
    const problems = result.problems.length > 0 ? `; problems: ${result.problems.slice(0, 3).join('; ')}` : ''
    console.log(
      `${setup.label}: ${result.jobs.length} jobs, ${result.jobTokenRequests} requests, ${perIteration} per iteration, ${result.finalStatus}${problems}`,
    )
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
