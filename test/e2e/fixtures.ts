// The project and workflow the end-to-end scenarios run the built action (dist/index.js) on: a
// "staircase" whose work command climbs one step per iteration and whose checks pass once the step
// they name is reached, so a loop needs exactly `steps` iterations and each iteration fails a
// different check (no retry of the same failure). Everything is plain Node: jobs stay fast.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, onTestFinished } from 'vitest'
import { loopWorkflow } from '../sandbox/loop-workflow.js'
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/sandbox.js'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { OPERATIONS_EXERCISED, operationsTheActionCalls } from './rest-operations.js'

export { loopWorkflow }

/** The repository root: action.yml and the bundle under test. */
export const ACTION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BUNDLE = join(ACTION_DIR, 'dist', 'index.js')
export const MINUTE = 60_000

/**
 * The work command: climbs one step (progress.txt), optionally also edits the loop config in its first
 * iteration (a protected path: that raises the `verifier` gate),
 * and leaves a marker and a copy of its prompt per run in E2E_SIGNAL_DIR. When `$E2E_SIGNAL_DIR/hold` exists it waits for
 * `$E2E_SIGNAL_DIR/go-<iteration>` after its edit (30 s at most; 5 min with `hold-long`), so a test can act while the job is mid-iteration.
 */
const WORK = `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const signals = process.env.E2E_SIGNAL_DIR
const context = process.env.LOOP_CONTEXT_FILE ? JSON.parse(readFileSync(process.env.LOOP_CONTEXT_FILE, 'utf8')) : {}
const iteration = context.iteration ?? 0
const step = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
if (!existsSync('tools/stuck')) writeFileSync('progress.txt', String(step + 1) + '\\n')
else writeFileSync('attempts.txt', 'tried again in iteration ' + iteration + '\\n', { flag: 'a' })
if (existsSync('tools/touch-config') && step === 0) {
  writeFileSync('.github/loop.yml', readFileSync('.github/loop.yml', 'utf8') + '# tuned by the work in iteration ' + iteration + '\\n')
}
console.log('work: iteration ' + iteration + ', step ' + step + ' -> ' + (existsSync('tools/stuck') ? step : step + 1))
if (signals) {
  writeFileSync(join(signals, 'work-' + iteration), String(Date.now()))
  if (process.env.LOOP_PROMPT_FILE) writeFileSync(join(signals, 'prompt-' + iteration + '.md'), readFileSync(process.env.LOOP_PROMPT_FILE))
  // An agent that prints its own key (as a debug line would): nothing the loop keeps may hold it.
  if (process.env.ANTHROPIC_API_KEY) {
    console.log('debug: agent key ' + process.env.ANTHROPIC_API_KEY)
    writeFileSync(join(signals, 'work-saw-key'), process.env.ANTHROPIC_API_KEY)
  }
  if (existsSync(join(signals, 'hold'))) {
    const until = Date.now() + (existsSync(join(signals, 'hold-long')) ? 300000 : 30000)
    while (!existsSync(join(signals, 'go-' + iteration)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
  }
}
`

/** A check: passes once progress.txt has reached the step it is given. */
const CHECK = `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
const want = Number(process.argv[2])
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
// The project's tests are code the agent may have written: they report any agent key they can read.
if (process.env.E2E_SIGNAL_DIR && process.env.ANTHROPIC_API_KEY) {
  writeFileSync(process.env.E2E_SIGNAL_DIR + '/check-saw-key', process.env.ANTHROPIC_API_KEY)
}
if (existsSync('unblocked.txt') || have >= want) {
  console.log('step ' + want + ' reached (progress ' + have + ')')
} else {
  console.error('AssertionError [ERR_ASSERTION]: step ' + want + ' not reached: expected progress >= ' + want + ', got ' + have)
  console.error('    at test/steps.test.js:' + want + ':5')
  process.exit(1)
}
`

/** What the project's loop looks like. */
export interface ProjectOptions {
  /** Steps to climb: the loop needs this many iterations (default 3). */
  steps?: number
  maxIterations?: number
  /** The work makes no progress: the checks can only pass once someone adds unblocked.txt. */
  stuck?: boolean
  /** The work also edits .github/loop.yml in its first iteration, which raises the `verifier` gate. */
  editsConfig?: boolean
  /** The work command's `timeout` (default `1m`). */
  workTimeout?: string
  /** The config's `pipeline` (default `iterate`). */
  pipeline?: string
  workflowWith?: Record<string, string>
  /** A `schedule:` cron for the workflow (the sweeper's trigger). */
  schedule?: string
  /** The `issues` event types the workflow runs on (default `[labeled]`; the dashboard adds `edited`). */
  issueTypes?: readonly string[]
  /** The config's `depends-on` (one config for every issue's loop, as the example workflows use). */
  configDependsOn?: readonly number[]
}

/** The repository's files for a scenario. */
export function projectFiles(options: ProjectOptions = {}): Record<string, string> {
  const steps = options.steps ?? 3
  const checks = Array.from(
    { length: steps },
    (_, index) =>
      `  - name: step-${index + 1}\n    kind: test\n    run: node tools/check.mjs ${index + 1}\n    timeout: 30s\n`,
  ).join('')
  const files: Record<string, string> = {
    'README.md': '# staircase\n\nA project the end-to-end tests run loop-controller on.\n',
    'progress.txt': '0\n',
    'tools/work.mjs': WORK,
    'tools/check.mjs': CHECK,
    '.github/loop.yml': `goal: Climb the staircase to step ${steps}.
pipeline: ${options.pipeline ?? 'iterate'}
max-iterations: ${options.maxIterations ?? 8}
work:
  run: node tools/work.mjs
  timeout: ${options.workTimeout ?? '1m'}
  pass-env: [E2E_SIGNAL_DIR]
checks:
${checks}${options.configDependsOn ? `depends-on: [${options.configDependsOn.join(', ')}]\n` : ''}`,
    '.github/workflows/loop.yml': loopWorkflow({
      ...(options.workflowWith ? { with: options.workflowWith } : {}),
      ...(options.schedule ? { schedule: options.schedule } : {}),
      ...(options.issueTypes ? { issueTypes: options.issueTypes } : {}),
    }),
  }
  if (options.stuck) files['tools/stuck'] = 'the work makes no progress\n'
  if (options.editsConfig) files['tools/touch-config'] = 'the work edits the loop config once\n'
  return files
}

/** A running scenario: the sandbox, the folder the work command signals in, and clean-up (at the test's end, or earlier). */
export interface Scenario {
  sandbox: Sandbox
  signals: string
  /** The work command's runs so far (`work-<iteration>` markers). */
  workRuns(): string[]
  stop(): Promise<void>
}

/** The REST operations the stand-in served to jobs in this test file's scenarios so far. */
const operationsServedToJobs = new Set<string>()

/**
 * After the file's tests, when all ran and passed: every operation rest-operations.ts says this file
 * exercises was served to one of its jobs, and every operation a job called is one the action's source
 * is known to call (a new call, of the action or of a library it bundles, must be listed there).
 */
export function checkOperationsExercised(testFileUrl: string): void {
  const file = basename(fileURLToPath(testFileUrl))
  // biome-ignore lint/correctness/noEmptyPattern: vitest hands the suite second and wants the first destructured
  afterAll(({}, suite) => {
    const tests: { result?: { state?: string } }[] = []
    const walk = (tasks: readonly unknown[]) => {
      for (const task of tasks as { type: string; tasks?: unknown[]; result?: { state?: string } }[]) {
        if (task.type === 'suite') walk(task.tasks ?? [])
        else tests.push(task)
      }
    }
    walk(suite.tasks)
    // A filtered run (-t) or a failed test says nothing about what the file exercises.
    if (tests.some((test) => test.result?.state !== 'pass')) return
    const claimed = OPERATIONS_EXERCISED[file]
    if (!claimed) throw new Error(`test/e2e/rest-operations.ts has no entry for ${file}; add '${file}': [...]`)
    const served = [...operationsServedToJobs].sort()
    const missing = claimed.filter((operationId) => !operationsServedToJobs.has(operationId))
    if (missing.length > 0) {
      throw new Error(
        `${file} claims in rest-operations.ts operations its jobs never called: ${missing.join(', ')}; served to its jobs: ${served.join(', ')}`,
      )
    }
    const known = operationsTheActionCalls()
    const unknown = served.filter((operationId) => !known.has(operationId))
    if (unknown.length > 0) {
      throw new Error(
        `jobs in ${file} called ${unknown.join(', ')}, which rest-operations.ts does not find in the action's source: teach operationsTheActionCalls() the call`,
      )
    }
  })
}

/** Starts a sandbox on the staircase project with users alice (write), bob (triage: reported as read) and mallory (read). */
export async function startScenario(
  options: ProjectOptions & { sandbox?: Partial<SandboxOptions> } = {},
): Promise<Scenario> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run bundle\` before the e2e tests`)
  const signals = mkdtempSync(join(tmpdir(), 'loop-e2e-signals-'))
  const sandbox = await startSandbox({
    actionDir: ACTION_DIR,
    repoFiles: projectFiles(options),
    // bob can comment but may not push: the API reports his permission as read (triage folds into read).
    users: { alice: 'write', bob: 'triage', mallory: 'read' },
    workflow: { file: 'loop.yml' },
    maxJobs: 30,
    jobTimeoutMs: 90_000,
    // On, unlike GitHub's default: every scenario that commits is about something the loop's pull request
    // carries (its comment, reviews, gates), and a scenario added by someone else must not fail for a
    // setting it never meant to test. GitHub's default (off) is proven in pull-request-setting.test.ts
    // with `sandbox: { actionsCanCreatePullRequests: false }`.
    actionsCanCreatePullRequests: true,
    ...options.sandbox,
    extraEnv: { ...options.sandbox?.extraEnv, E2E_SIGNAL_DIR: signals },
  })
  let stopped: Promise<void> | null = null
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      for (const exchange of sandbox.api.exchanges) {
        // The action's own calls carry the job's GITHUB_TOKEN; people's carry theirs; faults reach no handler.
        if (exchange.tokenKind === 'installation' && exchange.operationId && !exchange.fault) {
          operationsServedToJobs.add(exchange.operationId)
        }
      }
      await sandbox.stop()
      rmSync(signals, { recursive: true, force: true })
    })()
    return stopped
  }
  // The scenario ends with the test that started it, however the test ends.
  onTestFinished(stop)
  return {
    sandbox,
    signals,
    workRuns: () =>
      readdirSync(signals)
        .filter((name) => name.startsWith('work-'))
        .sort(),
    stop,
  }
}

/** The loop's comments (posted by the job token, a Bot). */
export function botComments(sandbox: Sandbox): { id: number; body: string; issueNumber: number }[] {
  return sandbox.api.model.comments
    .filter((comment) => comment.user.type === 'Bot')
    .map((comment) => ({ id: comment.id, body: comment.body, issueNumber: comment.issueNumber }))
}

/** Every comment the loop posted on the issue, joined. */
export function commentsOn(s: Pick<Scenario, 'sandbox'>, issueNumber: number): string {
  return botComments(s.sandbox)
    .filter((comment) => comment.issueNumber === issueNumber)
    .map((comment) => comment.body)
    .join('\n')
}

/** The loop's status comment on the issue (one at most, kept up to date), or '' when there is none yet. */
export function statusCommentOn(s: Pick<Scenario, 'sandbox'>, issueNumber: number): string {
  const comments = botComments(s.sandbox).filter((comment) => comment.issueNumber === issueNumber)
  expect(comments.length).toBeLessThanOrEqual(1)
  return comments[0]?.body ?? ''
}

/** A short account of the jobs, for failure messages. */
export function describeJobs(jobs: readonly JobRecord[]): string {
  return jobs
    .map(
      (job) =>
        `run ${job.runId} ${job.event} ${job.conclusion} status=${job.outputs.status ?? '-'} iteration=${job.outputs.iteration ?? '-'}${job.reason ? ` (${job.reason})` : ''}\n${job.stderr.trim().split('\n').slice(-6).join('\n')}`,
    )
    .join('\n')
}

/** The commit subjects of `ref` on the remote, newest first. */
export async function commitSubjects(sandbox: Sandbox, ref: string): Promise<string[]> {
  const { execFile } = await import('node:child_process')
  const { promisify } = await import('node:util')
  const { stdout } = await promisify(execFile)('git', ['log', '--format=%s', ref], { cwd: sandbox.git.bareDir })
  return stdout.trim().split('\n').filter(Boolean)
}

/** Reads a text file, or undefined. */
export function readText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined
}

/** The repository's pull requests: number, head branch, draft. */
export function pullRequests(sandbox: Sandbox): { number: number; head: string; draft: boolean; title: string }[] {
  return [...sandbox.api.model.issues.values()]
    .filter((issue) => issue.pull !== undefined)
    .map((issue) => ({
      number: issue.number,
      head: issue.pull?.head.ref ?? '',
      draft: issue.pull?.draft ?? false,
      title: issue.title,
    }))
}

/** Waits for `done()` (polled every 50 ms); throws naming `what` after `timeoutMs`. */
export async function until(what: string, done: () => boolean, timeoutMs = MINUTE): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Waits until the work command of `iteration` has made its edit (and, with `hold`, is waiting for its go). */
export function waitForWork(s: Scenario, iteration: number, timeoutMs = MINUTE): Promise<void> {
  return until(
    `the work command of iteration ${iteration}`,
    () => existsSync(join(s.signals, `work-${iteration}`)),
    timeoutMs,
  )
}

/** The stand-in saw nothing GitHub would refuse, and its engine nothing it could not run. */
export function expectFaithful(s: Pick<Scenario, 'sandbox'>): void {
  expect(s.sandbox.api.violations).toEqual([])
  expect(s.sandbox.engine.problems).toEqual([])
}

/** The cron of the scenarios' sweeper: the loop workflow's `schedule`. */
export const SWEEP_SCHEDULE = '*/15 * * * *'
/** The loop workflow's `command`: it sweeps when its schedule starts it, and runs the loop otherwise. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
export const SWEEP_ON_SCHEDULE = "${{ github.event_name == 'schedule' && 'sweep' || 'run' }}"

/** Starts a scheduled run of the loop workflow, as GitHub's cron does (the workflow needs `schedule: SWEEP_SCHEDULE`). */
export function sweep(s: Pick<Scenario, 'sandbox'>): void {
  const owner = s.sandbox.api.model.user('alice')
  const schedule = { schedule: SWEEP_SCHEDULE, workflow: '.github/workflows/loop.yml' }
  expect(s.sandbox.engine.trigger('schedule', schedule, owner)).toBeDefined()
}
