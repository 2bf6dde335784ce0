/**
 * Figure 12: a sharded test check in the fan-out mode. A fan-out loop through the GitHub sandbox
 * (test/sandbox) with the action's bundle and the reusable workflow, as GitHub would run it: the
 * baseline round, then plan, the verify legs and decide for each of two iterations. The project's suite
 * has a known length, 16 test files of 1 s each, split by `{shard}`; the figure is the loop with
 * `shards: 4` (four verify legs), the baseline the same loop with `shards: 1` (one leg), in the same run.
 * The loop has no baseline at first, so its first run is the baseline round: no work, each leg runs its
 * shard once at the base, decide records the baseline. The work then passes the suite only at its second
 * attempt, so there are three rows: the round, iteration 1, iteration 2. Each row reads the job records
 * of its workflow run: the verify wall time (first leg's start to the last leg's end) and the run's
 * (first job's start to the last job's end), the latter against its ideal: the 4-shard plan and decide
 * plus a quarter of the 1-shard verify.
 * The sandbox starts a job at once: no runner is provisioned, so on GitHub each job adds its queue time.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { JobRecord } from '../test/sandbox/workflow-engine.js'
import type { BenchRow } from './lib.js'
import { runSandboxLoop, sandboxAction } from './sandbox-loop.js'

const ROOT = resolve(import.meta.dirname, '..')
export const TEST_FILES = 16
const TEST_SECONDS = 1
const SHARDS = 4
/** The share of its ideal wall time (`idealIterationSeconds`) the 4-shard iteration must reach. */
const MIN_OF_IDEAL = 0.6

/** The suite's test files, each a second long; the last passes only once the work has written feature.txt. */
function writeProject(dir: string, shards: number): void {
  mkdirSync(join(dir, 'tests'), { recursive: true })
  mkdirSync(join(dir, '.github'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{ "name": "sixteen-seconds", "private": true, "type": "module" }\n')
  writeFileSync(join(dir, '.gitignore'), 'reports/\n')
  for (let i = 1; i <= TEST_FILES; i++) {
    const name = `t${String(i).padStart(2, '0')}.test.mjs`
    const check = i === TEST_FILES ? "if (!existsSync('feature.txt')) throw new Error('feature.txt is missing')\n" : ''
    writeFileSync(
      join(dir, 'tests', name),
      `import { existsSync } from 'node:fs'
export default async function () {
  await new Promise((resolve) => setTimeout(resolve, ${TEST_SECONDS * 1000}))
  ${check}}
`,
    )
  }
  // The runner: the files whose index falls to this shard, one after another, and their JUnit report.
  writeFileSync(
    join(dir, 'run-tests.mjs'),
    `import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const [shard, shards] = process.argv.slice(2).map(Number)
if (!(Number.isInteger(shard) && shard >= 1 && shard <= shards)) {
  console.error('run-tests.mjs: expected <shard> <shards>, got ' + process.argv.slice(2).join(' '))
  process.exit(2)
}
const files = readdirSync('tests').filter((f) => f.endsWith('.test.mjs')).sort().filter((_, i) => i % shards === shard - 1)
const cases = []
for (const file of files) {
  try {
    await (await import(join(process.cwd(), 'tests', file))).default()
    cases.push('<testcase classname="tests" name="' + file + '"/>')
    console.log('ok ' + file)
  } catch (error) {
    cases.push('<testcase classname="tests" name="' + file + '"><failure message="' + error.message + '"/></testcase>')
    console.log('FAIL ' + file + ': ' + error.message)
  }
}
mkdirSync('reports', { recursive: true })
writeFileSync('reports/junit-' + shard + '.xml', '<testsuites><testsuite name="tests">' + cases.join('') + '</testsuite></testsuites>\\n')
process.exit(cases.some((c) => c.includes('<failure')) ? 1 : 0)
`,
  )
  // One shard is no sharding: the placeholders are filled only in a sharded check's legs.
  const testCheck =
    shards > 1
      ? `    shards: ${shards}\n    run: node run-tests.mjs {shard} {shards}\n    junit: reports/junit-{shard}.xml\n`
      : '    run: node run-tests.mjs 1 1\n    junit: reports/junit-1.xml\n'
  // The first attempt leaves a note, the second writes the feature: the loop needs two iterations.
  writeFileSync(
    join(dir, 'work.mjs'),
    "import { existsSync, writeFileSync } from 'node:fs'\nwriteFileSync(existsSync('attempt.txt') ? 'feature.txt' : 'attempt.txt', 'done\\n')\n",
  )
  writeFileSync(
    join(dir, '.github', 'loop.yml'),
    `goal: Make the last test pass.
pipeline: iterate
max-iterations: 3
flake-check: { enabled: false }
retry: { backoff-seconds: 0 }
# Each leg runs one shard, at the base (the baseline round) or on the candidate: the same in both loops.
matrix: { max-parallel: 1 }
work:
  run: node work.mjs
checks:
  - name: test
    kind: test
${testCheck}    timeout: 2m
`,
  )
}

export interface FanOutTimes {
  /** Verify legs that ran. */
  legs: number
  /** First leg's start to the last leg's end, in seconds. */
  verifySeconds: number
  /** First job's start to the last job's end, in seconds. */
  iterationSeconds: number
  planSeconds: number
  decideSeconds: number
}

/** The wall times of one fan-out iteration, from the sandbox's job records (jobs that never started left out). */
export function fanOutTimes(jobs: readonly Pick<JobRecord, 'name' | 'startedAt' | 'durationMs'>[]): FanOutTimes {
  const ran = jobs.filter((job) => job.startedAt !== undefined && job.durationMs !== undefined)
  const span = (list: typeof ran): number => {
    if (list.length === 0) return 0
    const start = Math.min(...list.map((job) => job.startedAt ?? 0))
    const end = Math.max(...list.map((job) => (job.startedAt ?? 0) + (job.durationMs ?? 0)))
    return (end - start) / 1000
  }
  const named = (prefix: string) => ran.filter((job) => job.name.startsWith(`loop / ${prefix}`))
  return {
    legs: named('verify').length,
    verifySeconds: span(named('verify')),
    iterationSeconds: span(ran),
    planSeconds: span(named('plan')),
    decideSeconds: span(named('decide')),
  }
}

/** The jobs of each workflow run, the runs in the order they were made (run ids grow). */
export function jobsByRun<T extends Pick<JobRecord, 'runId'>>(jobs: readonly T[]): T[][] {
  const ids = [...new Set(jobs.map((job) => job.runId))].sort((a, b) => a - b)
  return ids.map((id) => jobs.filter((job) => job.runId === id))
}

/**
 * The wall time an iteration with `shards` legs would take if sharding cost nothing: its own plan and
 * decide, and the one-leg verify divided among the legs.
 */
export function idealIterationSeconds(
  sharded: Pick<FanOutTimes, 'planSeconds' | 'decideSeconds'>,
  oneLegVerifySeconds: number,
  shards: number,
): number {
  return sharded.planSeconds + sharded.decideSeconds + oneLegVerifySeconds / shards
}

/** `2.90x (0.73 of the ideal 4x)`: a speed-up and how much of the ideal it reaches. */
export function speedUp(baselineSeconds: number, seconds: number, ideal: number): string {
  const ratio = baselineSeconds / seconds
  return `${ratio.toFixed(2)}x (${(ratio / ideal).toFixed(2)} of the ideal ${ideal}x)`
}

interface SandboxLoop {
  /** The baseline round, iteration 1 and iteration 2: one workflow run each. */
  runs: [FanOutTimes, FanOutTimes, FanOutTimes]
  status: string
  problems: string[]
}

async function fanOutLoop(work: string, actionDir: string, shards: number): Promise<SandboxLoop> {
  const label = `shards-${shards}`
  const project = join(work, `project-${label}`)
  writeProject(project, shards)
  const workflow = readFileSync(join(ROOT, 'examples', 'workflows', 'loop-fan-out.yml'), 'utf8')
  const result = await runSandboxLoop({
    actionDir,
    projectDir: project,
    files: { '.github/workflows/loop-fan-out.yml': workflow },
    workflowFile: 'loop-fan-out.yml',
    inputs: { 'loop-id': label },
    out: join(work, `out-${label}`),
    maxJobs: 25,
    jobTimeoutMs: 180_000,
    timeoutMs: 400_000,
  })
  const decide = result.jobs.filter((job) => job.name === 'loop / decide').at(-1)
  const runs = jobsByRun(result.jobs)
  const [round, first, second] = runs
  const roundPlan = round?.find((job) => job.name === 'loop / plan')
  if (!roundPlan?.stdout.includes('Planned the baseline round')) {
    throw new Error(
      `the ${label} loop's first run was no baseline round (${roundPlan?.stdout.slice(-400) ?? 'no plan'})`,
    )
  }
  if (!round || !first || !second || runs.length !== 3)
    throw new Error(
      `the ${label} loop ran ${runs.length} runs, not the round and two iterations (${decide?.outputs.status ?? 'no status'})`,
    )
  return {
    runs: [fanOutTimes(round), fanOutTimes(first), fanOutTimes(second)],
    status: decide?.outputs.status ?? 'no status',
    problems: result.problems,
  }
}

export async function fanOutShards(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'loop-bench-fan-out-'))
  try {
    const actionDir = sandboxAction(work, { reusableWorkflow: true })
    const one = await fanOutLoop(work, actionDir, 1)
    const four = await fanOutLoop(work, actionDir, SHARDS)
    const complete = one.status === 'complete' && four.status === 'complete'
    const problems = [...one.problems, ...four.problems]
    const sandboxNote =
      'the sandbox starts each job at once, with no runner to provision' +
      (problems.length > 0 || !complete
        ? `; sandbox: ${complete ? '' : 'a loop did not complete; '}${problems.slice(0, 3).join('; ')}`
        : '')
    const suite = `a ${TEST_FILES} × ${TEST_SECONDS} s test suite in ${SHARDS} shards`
    return [
      runRow(
        0,
        one,
        four,
        complete,
        `12. fan-out, ${suite}, the baseline round (no work; each leg runs its shard once at the base)`,
        sandboxNote,
      ),
      runRow(
        1,
        one,
        four,
        complete,
        `12. fan-out, ${suite}, iteration 1 of 2 (its prompt has the baseline)`,
        sandboxNote,
      ),
      runRow(2, one, four, complete, `12. fan-out, ${suite}, iteration 2 of 2`, sandboxNote),
    ]
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** One run's row (0: the baseline round, else that iteration): the 4-shard loop against the 1-shard one, each against its ideal. */
function runRow(
  run: 0 | 1 | 2,
  one: SandboxLoop,
  four: SandboxLoop,
  complete: boolean,
  figure: string,
  sandboxNote: string,
): BenchRow {
  const oneRun = one.runs[run]
  const fourRun = four.runs[run]
  const what = run === 0 ? 'round' : 'iteration'
  const describe = (it: FanOutTimes, status: string) =>
    `verify ${it.verifySeconds.toFixed(1)} s (${it.legs} leg${it.legs === 1 ? '' : 's'}), ${what} ${it.iterationSeconds.toFixed(1)} s${run === 2 ? `, ${status}` : ''}`
  const verifyRatio = oneRun.verifySeconds / fourRun.verifySeconds
  const ideal = idealIterationSeconds(fourRun, oneRun.verifySeconds, SHARDS)
  const ofIdeal = ideal / fourRun.iterationSeconds
  return {
    figure,
    value: describe(fourRun, four.status),
    baseline: `shards: 1: ${describe(oneRun, one.status)}`,
    ratio:
      `verify ${speedUp(oneRun.verifySeconds, fourRun.verifySeconds, SHARDS)}, ${what} ${(oneRun.iterationSeconds / fourRun.iterationSeconds).toFixed(2)}x; ` +
      `${what} ${fourRun.iterationSeconds.toFixed(1)} s against the ideal ${ideal.toFixed(1)} s (plan + decide + verify/${SHARDS}): ${ofIdeal.toFixed(2)} of it`,
    budget: `${what} >= ${MIN_OF_IDEAL} of its ideal`,
    met: complete && fourRun.legs === SHARDS && verifyRatio > 1 && ofIdeal >= MIN_OF_IDEAL ? 'yes' : 'no',
    note:
      `${run === 0 ? 'the baseline round' : `iteration ${run}`}: plan ${oneRun.planSeconds.toFixed(1)} s / ${fourRun.planSeconds.toFixed(1)} s, ` +
      `decide ${oneRun.decideSeconds.toFixed(1)} s / ${fourRun.decideSeconds.toFixed(1)} s (shards: 1 / shards: ${SHARDS}); ` +
      (run === 0
        ? 'the plan does no work and runs no check; each leg runs its shard once at the base; decide records the baseline, in both loops; '
        : run === 1
          ? "the work's prompt carries the baseline's failure; "
          : '') +
      sandboxNote,
  }
}
