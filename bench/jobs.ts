/**
 * Figure 7: jobs (runner start-ups) per loop. A loop that needs exactly 10 iterations runs through the
 * GitHub sandbox (test/sandbox) with the action's bundle, job after job, as GitHub would run it; the
 * baseline is one job per iteration (re-dispatch after each). The figure is the same loop with
 * `budget-minutes` continuing in the same job (`src/action/job-iterations.ts`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_WORKFLOW } from '../scripts/demo-github.js'
import { loopWorkflow } from '../test/sandbox/loop-workflow.js'
import type { BenchRow } from './lib.js'
import { runSandboxLoop, sandboxAction } from './sandbox-loop.js'

const ITERATIONS = 10
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett']

/** A project whose loop needs exactly ten iterations: each work call adds one chapter, the check wants ten. */
function writeProject(dir: string): void {
  mkdirSync(join(dir, '.github'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{ "name": "ten-chapters", "private": true, "type": "module" }\n')
  writeFileSync(
    join(dir, 'add-chapter.mjs'),
    `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
const words = ${JSON.stringify(WORDS)}
const have = existsSync('chapters.txt') ? readFileSync('chapters.txt', 'utf8').split('\\n').filter(Boolean) : []
writeFileSync('chapters.txt', [...have, words[have.length] ?? 'extra'].join('\\n') + '\\n')
console.log('wrote chapter ' + (have.length + 1))
`,
  )
  writeFileSync(
    join(dir, 'check.mjs'),
    `import { existsSync, readFileSync } from 'node:fs'
const words = ${JSON.stringify(WORDS)}
const have = existsSync('chapters.txt') ? readFileSync('chapters.txt', 'utf8').split('\\n').filter(Boolean) : []
if (have.length < words.length) {
  console.log('missing chapter ' + words[have.length])
  process.exit(1)
}
console.log('all chapters present')
`,
  )
  writeFileSync(
    join(dir, '.github', 'loop.yml'),
    `goal: Write ten chapters, one per iteration.
pipeline: iterate
max-iterations: 12
retry: { per-failure: 20, same-error: 20, total: 100 }
flake-check: { enabled: false }
work:
  run: node add-chapter.mjs
checks:
  - name: chapters
    run: node check.mjs
`,
  )
}

interface SandboxLoop {
  jobs: number
  /** Requests made with the jobs' own GITHUB_TOKEN (REST and GraphQL). */
  requests: number
  seconds: number
  status: string
  ok: boolean
  problems: string[]
}

/** Runs the ten-chapter loop through the sandbox; `budgetMinutes` goes to the action's `budget-minutes`. */
async function sandboxLoop(
  work: string,
  actionDir: string,
  label: string,
  budgetMinutes?: number,
): Promise<SandboxLoop> {
  const project = join(work, `project-${label}`)
  writeProject(project)
  const workflow =
    budgetMinutes === undefined
      ? DEMO_WORKFLOW
      : loopWorkflow({ name: 'loop (demo)', with: { 'budget-minutes': String(budgetMinutes) } })
  const started = performance.now()
  const result = await runSandboxLoop({
    actionDir,
    projectDir: project,
    files: { '.github/workflows/loop.yml': workflow },
    workflowFile: 'loop.yml',
    inputs: { 'loop-id': 'ten' },
    out: join(work, `out-${label}`),
    maxJobs: 15,
    jobTimeoutMs: 120_000,
    timeoutMs: 300_000,
  })
  return {
    jobs: result.jobs.length,
    requests: result.jobTokenRequests,
    seconds: (performance.now() - started) / 1000,
    status: result.finalStatus ?? 'no status',
    ok: result.ok,
    problems: result.problems,
  }
}

/** The jobs' API requests per iteration of the loop: what one iteration costs of the hourly 1,000. */
function requestsPerIteration(loop: SandboxLoop): string {
  return (loop.requests / ITERATIONS).toFixed(1)
}

export async function jobsPerLoop(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'loop-bench-jobs-'))
  try {
    const actionDir = sandboxAction(work)
    const perIteration = await sandboxLoop(work, actionDir, 'per-iteration')
    const describe = (loop: SandboxLoop) =>
      `${loop.jobs} jobs, ${requestsPerIteration(loop)} API requests/iteration, ${loop.seconds.toFixed(0)} s, ${loop.status}`
    const baseline = `one job per iteration: ${describe(perIteration)}`
    const figure = `7. jobs for a ${ITERATIONS}-iteration loop, budget-minutes 10`
    const continued = await sandboxLoop(work, actionDir, 'budget', 10)
    const problems = [...perIteration.problems, ...continued.problems]
    const complete = continued.status === 'complete' && perIteration.status === 'complete'
    return [
      {
        figure,
        value: describe(continued),
        baseline,
        ratio: `${(continued.jobs / perIteration.jobs).toFixed(2)}x jobs, ${(continued.requests / perIteration.requests).toFixed(2)}x requests`,
        budget: 'fewer jobs than iterations',
        met: continued.jobs < ITERATIONS && complete ? 'yes' : 'no',
        ...(problems.length > 0 || !complete
          ? { note: `sandbox: ${complete ? '' : 'a loop did not complete; '}${problems.slice(0, 3).join('; ')}` }
          : {}),
      },
    ]
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
