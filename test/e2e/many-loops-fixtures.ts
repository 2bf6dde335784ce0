// What many-loops.test.ts watches while its loops run: the dashboard each job left, the status comment
// of each queued loop at every step, the loops' journeys and how many iterations ran at once.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { dashboardRows, dashboards } from './dashboard-fixtures.js'
import { botComments, type Scenario } from './fixtures.js'

const run = promisify(execFile)

/** The events of a loop's journey log on the state branch, oldest first. */
export async function journeyOf(s: Pick<Scenario, 'sandbox'>, loopId: string) {
  const log = (await s.sandbox.git.show('loop-state', `${loopId}/audit/journey-log.jsonl`)) ?? ''
  return log
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; at: string; message: string })
}

/**
 * The most iterations running at one moment. An iteration runs from its job's start to the moment its
 * loop was saved COMPLETE (its journey's `completed` event): the job gives its slot back after that,
 * before its last steps (the report, the dashboard), so the next job may start while it ends.
 */
export async function mostIterationsAtOnce(s: Scenario, jobs: readonly JobRecord[]): Promise<number> {
  const edges: Array<[number, number]> = []
  for (const job of jobs.filter((candidate) => candidate.outputs.status === 'complete')) {
    const loopId = job.outputs['loop-id']
    const completed = (await journeyOf(s, loopId ?? '')).find((event) => event.type === 'completed')
    if (job.startedAt === undefined || !completed) throw new Error(`job ${job.runId} of ${loopId}: no start or end`)
    edges.push([job.startedAt, 1], [Date.parse(completed.at), -1])
  }
  // At one instant an end comes before a start: touching is not overlapping.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let running = 0
  let most = 0
  for (const [, step] of edges) {
    running += step
    most = Math.max(most, running)
  }
  return most
}

export interface DashboardSeen {
  job: JobRecord
  body: string | undefined
}

/**
 * The dashboard each job left: the body its token last wrote, or where it wrote none (its listing found
 * the body current), the body it last read. Not the issue at the job's end: a job whose listing predates
 * a loop's first state may be between its write and the rewrite its second listing makes, and the issue
 * has no compare-and-swap to stop that.
 */
export function watchDashboards(s: Scenario): DashboardSeen[] {
  const seen: DashboardSeen[] = []
  s.sandbox.engine.onJobFinished((job) => {
    const number = dashboards(s.sandbox)[0]?.number
    seen.push({ job, body: number === undefined ? undefined : bodyLeftBy(s, job.token, number) })
  })
  return seen
}

/** What `token` last wrote to issue `number` (a create or an edit), else the body it last read. */
function bodyLeftBy(s: Pick<Scenario, 'sandbox'>, token: string, number: number): string | undefined {
  const own = s.sandbox.api.exchanges.filter(
    (exchange) =>
      exchange.token === token &&
      exchange.status >= 200 &&
      exchange.status < 300 &&
      new URL(exchange.path, 'http://api').pathname.endsWith(
        `/issues${exchange.method === 'POST' ? '' : `/${number}`}`,
      ),
  )
  const bodyOf = (value: unknown) => (value as { body?: string; number?: number } | undefined) ?? {}
  const writes = own.filter(
    (exchange) =>
      (exchange.method === 'PATCH' && bodyOf(exchange.requestBody).body !== undefined) ||
      (exchange.method === 'POST' && bodyOf(exchange.responseBody).number === number),
  )
  const written = writes.at(-1)
  if (written) return bodyOf(written.requestBody).body
  return bodyOf(own.filter((exchange) => exchange.method === 'GET').at(-1)?.responseBody).body
}

/** When each loop's first state reached the state branch (ms; its commit's second, rounded up). */
async function firstStates(s: Pick<Scenario, 'sandbox'>): Promise<Map<string, number>> {
  const git = (...args: string[]) => run('git', ['--git-dir', s.sandbox.git.bareDir, ...args])
  const saved = new Map<string, number>()
  const folders = (await git('ls-tree', '--name-only', 'loop-state')).stdout.split('\n').filter(Boolean)
  for (const loopId of folders.filter((name) => !name.includes('.'))) {
    const times = (await git('log', '--reverse', '--format=%ct', 'loop-state', '--', `${loopId}/loop-state.json`))
      .stdout
    const first = times.split('\n').find(Boolean)
    if (first) saved.set(loopId, (Number(first) + 1) * 1000)
  }
  return saved
}

/**
 * After every job, its dashboard listed every loop that had a state before that job started (a state
 * is never taken away, so the job's listing must have found it: running, queued or ended alike). Returns,
 * for each job, how many loops it was held to.
 */
export async function expectEveryLoopListed(
  s: Pick<Scenario, 'sandbox'>,
  seen: readonly DashboardSeen[],
): Promise<Map<JobRecord, number>> {
  const saved = await firstStates(s)
  const heldTo = new Map<JobRecord, number>()
  for (const { job, body } of seen) {
    const rows = dashboardRows(body ?? '')
    const started = job.startedAt ?? Number.POSITIVE_INFINITY
    const required = [...saved].filter(([, at]) => at <= started).map(([loopId]) => loopId)
    const after = `after run ${job.runId} (${job.outputs['loop-id']}: ${job.outputs.status})\n${body}`
    expect(
      required.filter((loopId) => !rows.has(loopId)),
      after,
    ).toEqual([])
    heldTo.set(job, required.length)
  }
  return heldTo
}

/** What a loop's status comment says, in short. */
export function commentPhase(body: string): 'none' | 'queued' | 'started' | 'complete' | 'other' {
  if (body === '') return 'none'
  if (/` is queued/.test(body)) return 'queued'
  if (/` started\n/.test(body)) return 'started'
  if (body.includes('COMPLETE')) return 'complete'
  return 'other'
}

/**
 * Each issue's status comment as it changes, read every 50 ms and at each job's end: the phases it went
 * through, in order, each once, and the bodies it had (`stop` ends the polling).
 */
export function watchComments(
  s: Scenario,
  issues: readonly number[],
): { phases: Map<number, string[]>; started: Map<number, string>; bodies: Map<number, string[]>; stop(): void } {
  const phases = new Map<number, string[]>(issues.map((issue) => [issue, []]))
  /** The first comment each issue's loop said it started with. */
  const started = new Map<number, string>()
  /** Every body each comment had, in order. */
  const bodies = new Map<number, string[]>(issues.map((issue) => [issue, []]))
  const look = () => {
    for (const issue of issues) {
      const body = botComments(s.sandbox).find((comment) => comment.issueNumber === issue)?.body ?? ''
      const seen = phases.get(issue) ?? []
      const phase = commentPhase(body)
      if (seen.at(-1) !== phase) seen.push(phase)
      if (phase === 'started' && !started.has(issue)) started.set(issue, body)
      const had = bodies.get(issue) ?? []
      if (body !== '' && had.at(-1) !== body) had.push(body)
    }
  }
  look()
  s.sandbox.engine.onJobFinished(look)
  const timer = setInterval(look, 50)
  return { phases, started, bodies, stop: () => clearInterval(timer) }
}
