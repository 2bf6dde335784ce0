// Fan-out with the rest of the house: a loop started by a writer's `loop` label on an issue runs as plan →
// verify → decide to COMPLETE, its prompt carrying the issue; the dashboard is refreshed by decide alone
// (one pinned issue listing the loop) and an edit of an issue plans nothing; with `max-loops: 1` a second
// labelled loop is left unplanned (no agent call), queued by decide, admitted when the first ends and
// COMPLETE, never two loops holding a slot; two loops dispatched at the same moment under `max-loops: 1`
// never both run their work (plan works only for a loop that holds its slot). Plan's and verify's tokens
// only read throughout (`contents: read`; verify's also `actions: read`, for the run's artifacts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { dashboards, ticked } from './dashboard-fixtures.js'
import { jobsNamed, startFanOutScenario } from './fan-out-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  type Scenario,
  until,
  waitForWork,
} from './fixtures.js'
import { queueHistory, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** A caller of the reusable workflow with `fan-out: true`, started by labels, edits and dispatches. */
function fanOutCaller(extra: Record<string, string | boolean>): string {
  const lines = Object.entries(extra)
    .map(([name, value]) => `      ${name}: ${JSON.stringify(value)}\n`)
    .join('')
  return `name: loop (fan-out)
on:
  workflow_dispatch:
    inputs:
      loop-id:
        type: string
        required: true
      iteration:
        type: string
        default: ''
      command:
        type: string
        default: run
      gate:
        type: string
        default: ''
  issues:
    types: [labeled, edited]
  issue_comment:
    types: [created]
permissions: {}
jobs:
  loop:
    permissions:
      contents: write
      actions: write
      pull-requests: write
      issues: write
    uses: loop-controller/loop-controller/.github/workflows/loop.yml@v1
    with:
      fan-out: true
      loop-id: \${{ inputs.loop-id }}
      iteration: \${{ inputs.iteration }}
      config: .github/loop.yml
      command: \${{ inputs.command || 'run' }}
      gate: \${{ inputs.gate }}
${lines}`
}

/**
 * The work, wrapped to leave a line `<loop id> <iteration>` in $E2E_SIGNAL_DIR/work.log (outside every
 * checkout) each time it runs, before it climbs. Its first iteration waits a moment for another loop's
 * line, so two loops whose work could run side by side do.
 */
const LOGGED_WORK = `import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
const log = join(process.env.E2E_SIGNAL_DIR, 'work.log')
const context = JSON.parse(readFileSync(process.env.LOOP_CONTEXT_FILE, 'utf8'))
appendFileSync(log, process.env.LOOP_ID + ' ' + context.iteration + '\\n')
const others = () => readFileSync(log, 'utf8').split('\\n').some((line) => line && !line.startsWith(process.env.LOOP_ID + ' '))
const until = Date.now() + 3000
while (context.iteration === 1 && !others() && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
await import('./climb.mjs')
`

async function startFanOut(
  steps: number,
  extra: Record<string, string | boolean>,
  project: Parameters<typeof projectFiles>[0] & { loggedWork?: boolean } = {},
): Promise<Scenario> {
  const files = projectFiles({ steps, ...project })
  const logged: Record<string, string> = project.loggedWork
    ? { 'tools/climb.mjs': files['tools/work.mjs'] ?? '', 'tools/work.mjs': LOGGED_WORK }
    : {}
  return startFanOutScenario(
    { ...logged, '.github/workflows/loop-fan-out.yml': fanOutCaller(extra) },
    { steps, ...project },
    // Two loops, each with its baseline round and its iterations, at five jobs a run: more than the default 30.
    { maxJobs: 60 },
  )
}

/** Plan and verify held a token that reads and nothing else, in every run (verify: code and the run's artifacts). */
function expectReadOnlyPlanAndVerify(jobs: readonly JobRecord[]): void {
  const ran = (job: JobRecord) => job.conclusion !== 'skipped'
  const readers = [...jobsNamed(jobs, 'plan'), ...jobsNamed(jobs, 'verify')].filter(ran)
  expect(readers.length).toBeGreaterThan(0)
  for (const job of jobsNamed(jobs, 'plan').filter(ran)) expect(job.permissions, job.name).toEqual({ contents: 'read' })
  for (const job of jobsNamed(jobs, 'verify').filter(ran)) {
    expect(job.permissions, job.name).toEqual({ contents: 'read', actions: 'read' })
  }
}

describe('fan-out with labels, the dashboard and many loops', () => {
  it(
    "a writer's label starts a fan-out loop on the issue's task, to COMPLETE; decide alone keeps the one pinned dashboard; an edit plans nothing",
    async () => {
      const scenario = await startFanOut(1, { dashboard: true })
      const { sandbox, signals } = scenario
      const body = 'Climb the one step.\n\n$(touch should-not-run) and `rm -rf /`'
      const issue = await sandbox.openIssue('alice', 'Climb it', body)
      await sandbox.label('alice', issue.number, 'loop')
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      // The baseline round's decide, then iteration 1's.
      expect(
        jobsNamed(jobs, 'decide').map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'complete'])
      expect(jobsNamed(jobs, 'decide')[0]?.outputs['loop-id'], why).toBe(`issue-${issue.number}`)
      // The issue is the task, quoted as untrusted text, in the plan's prompt.
      const prompt = readFileSync(join(signals, 'prompt-1.md'), 'utf8')
      expect(prompt).toContain(`## The task: issue #${issue.number}`)
      for (const line of body.split('\n')) expect(prompt).toContain(line === '' ? '>\n' : `> ${line}\n`)
      const state = await savedState(scenario, `issue-${issue.number}`)
      expect([state.status, state.task?.number], why).toEqual(['complete', issue.number])
      expect(
        botComments(sandbox)
          .map((c) => c.body)
          .join('\n'),
      ).toMatch(/COMPLETE · `issue-\d+`/)
      // One pinned dashboard, written by decide, listing the loop.
      const [dashboard, ...more] = dashboards(sandbox)
      expect(more, why).toEqual([])
      expect(dashboard?.pinned).toBe(true)
      expect(dashboard?.body).toContain(`| \`issue-${issue.number}\` |`)
      expect([...sandbox.api.model.issues.values()].filter((i) => i.pinned)).toHaveLength(1)
      // Refreshed by decide: plan and verify never touched it.
      expect(jobsNamed(jobs, 'decide')[0]?.stdout, why).toMatch(/Dashboard #\d+/)
      for (const job of [...jobsNamed(jobs, 'plan'), ...jobsNamed(jobs, 'verify')])
        expect(job.stdout).not.toMatch(/Dashboard/)

      // An edit (as a tick would be) runs no plan: its step is skipped, and decide's job takes the event.
      const before = jobs.length
      await sandbox.editIssue('alice', issue.number, `${body}\nedited`)
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      const edit = jobs.slice(before)
      const ran = edit.filter((job) => job.name !== 'loop / loop iteration').map((job) => [job.name, job.conclusion])
      expect(ran.sort(), why).toEqual([
        ['loop / decide', 'success'],
        ['loop / plan', 'success'],
        ['loop / verify', 'skipped'],
      ])
      expect(jobsNamed(edit, 'plan')[0]?.steps.find((step) => step.id === 'plan')?.outcome, why).toBe('skipped')
      expect(jobsNamed(edit, 'decide')[0]?.stdout).toMatch(/Nothing for the loop in this issues event/)
      expect(existsSync(join(signals, 'work-2'))).toBe(false)
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'max-loops 1: a second labelled loop is not planned but queued by decide, admitted when the first ends, COMPLETE; never two hold a slot',
    async () => {
      const scenario = await startFanOut(2, { 'max-loops': '1' })
      const { sandbox, signals } = scenario
      const first = await sandbox.openIssue('alice', 'First climb', 'Two steps.')
      const second = await sandbox.openIssue('alice', 'Second climb', 'Two steps, later.')
      // The first loop's second iteration holds in its work (it holds the slot by then) until go-2.
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'go-1'), '')
      await sandbox.label('alice', first.number, 'loop')
      await waitForWork(scenario, 2, 2 * MINUTE)
      await sandbox.label('alice', second.number, 'loop')
      await until('the second loop queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      writeFileSync(join(signals, 'go-2'), '')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)

      // The second loop's label: plan saw the slot taken and spent no agent call; decide queued it.
      const labelled = jobs.filter((job) => job.event === 'issues')
      const secondPlan = jobsNamed(labelled, 'plan').find(
        (job) => (job.eventPayload.issue as { number: number }).number === second.number,
      )
      expect(secondPlan?.outputs.verify, why).toBe('false')
      expect(secondPlan?.stdout, why).toMatch(/no work planned: the loop would be queued/)
      const queued = jobsNamed(jobs, 'decide').filter((job) => job.outputs.status === 'queued')
      expect(
        queued.map((job) => job.outputs['loop-id']),
        why,
      ).toEqual([`issue-${second.number}`])
      // Four iterations planned in all (two per loop) and each loop's baseline round, none of them planned
      // twice or dropped as stale.
      expect(
        jobsNamed(jobs, 'plan').filter((job) => job.outputs.verify === 'true'),
        why,
      ).toHaveLength(6)
      expect(
        jobsNamed(jobs, 'decide').filter((job) => job.outputs.status === 'superseded'),
        why,
      ).toEqual([])
      for (const issue of [first.number, second.number]) {
        const state = await savedState(scenario, `issue-${issue}`)
        expect([issue, state.status, state.iteration], why).toEqual([issue, 'complete', 2])
      }
      // The admitted loop's first job is a dispatch of iteration 1, from the job that released the slot: its
      // baseline round, which dispatches iteration 1 again to work.
      const admitted = jobsNamed(jobs, 'decide').filter(
        (job) => job.event === 'workflow_dispatch' && job.inputs['loop-id'] === `issue-${second.number}`,
      )
      expect(
        admitted.map((job) => [job.inputs.iteration, job.outputs.status]),
        why,
      ).toEqual([
        ['1', 'running'],
        ['1', 'running'],
        ['2', 'complete'],
      ])
      // Every version of queue.json: at most one loop holding a slot.
      const history = await queueHistory(scenario)
      expect(history.length, why).toBeGreaterThan(2)
      for (const { commit, record } of history) expect(record.running.length, commit).toBeLessThanOrEqual(1)
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'max-loops 1, two loops dispatched at the same moment: the second works only after the first ended, each iteration planned once, both COMPLETE',
    async () => {
      const scenario = await startFanOut(2, { 'max-loops': '1' }, { loggedWork: true })
      const { sandbox, signals } = scenario
      const starts = await Promise.all([
        sandbox.dispatch({ 'loop-id': 'first' }),
        sandbox.dispatch({ 'loop-id': 'second' }),
      ])
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      for (const loopId of ['first', 'second']) {
        const state = await savedState(scenario, loopId)
        expect([loopId, state.status, state.iteration], why).toEqual([loopId, 'complete', 2])
      }
      // One loop's work, then the other's: never interleaved, none run twice (no agent call dropped).
      const ran = readFileSync(join(signals, 'work.log'), 'utf8').trim().split('\n')
      const [one, other] = ran[0]?.startsWith('first') ? ['first', 'second'] : ['second', 'first']
      expect(ran, why).toEqual([`${one} 1`, `${one} 2`, `${other} 1`, `${other} 2`])
      // Each start planned nothing: decide took the slot (or queued the loop), no plan was dropped.
      const started = jobsNamed(jobs, 'plan').filter((job) => starts.some((start) => start.runId === job.runId))
      expect(started.map((job) => job.outputs.verify).sort(), why).toEqual(['false', 'false'])
      for (const job of started) {
        expect(job.stdout, why).toMatch(/no work planned: the loop (would be queued|does not hold a slot yet)/)
      }
      expect(
        jobsNamed(jobs, 'decide').filter((job) => job.outputs.status === 'superseded'),
        why,
      ).toEqual([])
      expect(
        jobsNamed(jobs, 'decide')
          .map((job) => job.stdout)
          .join('\n'),
      ).not.toMatch(/is dropped/)
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    "the reusable workflow's command input: plan does no work, decide applies it (approve a gate) and the loop goes on to COMPLETE",
    async () => {
      const scenario = await startFanOut(1, {}, { editsConfig: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      // The baseline round's decide, then iteration 1's.
      expect(
        jobsNamed(jobs, 'decide').map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'waiting'])
      const before = jobs.length
      await sandbox.dispatch({ 'loop-id': 'gated', command: 'approve', gate: 'verifier' })
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const approving = jobs.slice(before).filter((job) => job.inputs.command === 'approve')
      const plan = jobsNamed(approving, 'plan')[0]
      expect(plan?.steps.find((step) => step.id === 'plan')?.outcome, why).toBe('skipped')
      expect(jobsNamed(approving, 'decide')[0]?.conclusion, why).toBe('success')
      const state = await savedState(scenario, 'gated')
      expect([state.status, state.gates?.verifier?.status], why).toEqual(['complete', 'approved'])
      expect(jobsNamed(jobs, 'decide').at(-1)?.outputs.status, why).toBe('complete')
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    "a writer's `/loop start` comment (its run plans nothing): decide records the loop with the issue and the words as its task, and plan takes it from there to COMPLETE",
    async () => {
      const scenario = await startFanOut(1, {})
      const { sandbox, signals } = scenario
      const issue = await sandbox.openIssue('alice', 'Climb by comment', 'The one step.')
      await sandbox.comment('alice', '/loop start Only touch progress.txt', issue.number)
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const commented = jobs.filter((job) => job.event === 'issue_comment')
      expect(jobsNamed(commented, 'plan')[0]?.steps.find((step) => step.id === 'plan')?.outcome, why).toBe('skipped')
      expect(
        jobsNamed(commented, 'decide').map((job) => job.outputs.status),
        why,
      ).toEqual(['running'])
      expect(jobsNamed(jobs, 'decide').at(-1)?.outputs.status, why).toBe('complete')
      const prompt = readFileSync(join(signals, 'prompt-1.md'), 'utf8')
      expect(prompt).toContain(`## The task: issue #${issue.number}`)
      expect(prompt).toContain('> The one step.\n')
      expect(prompt).toContain('Added by @alice when starting the loop:\n\n> Only touch progress.txt\n')
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    "a writer's tick on the dashboard (approve a gate): the edit's plan step is skipped, decide's job applies the tick and the loop goes on to COMPLETE",
    async () => {
      const scenario = await startFanOut(1, { dashboard: true }, { editsConfig: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      // The baseline round's decide, then iteration 1's.
      expect(
        jobsNamed(jobs, 'decide').map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'waiting'])
      const [dashboard] = dashboards(sandbox)
      expect(dashboard?.body, why).toContain('- [ ] <!-- loop-dashboard:approve=verifier:gated -->')
      const before = jobs.length
      await sandbox.editIssue('alice', dashboard!.number, ticked(dashboard!.body!, 'approve=verifier:gated'))
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const tick = jobs.slice(before).filter((job) => job.event === 'issues')
      expect(jobsNamed(tick, 'plan')[0]?.steps.find((step) => step.id === 'plan')?.outcome, why).toBe('skipped')
      expect(jobsNamed(tick, 'decide')[0]?.stdout, why).toMatch(/Dashboard edit by alice: 1 tick\(s\) read/)
      expect(jobsNamed(jobs, 'decide').at(-1)?.outputs.status, why).toBe('complete')
      expect(dashboards(sandbox)).toHaveLength(1)
      expectReadOnlyPlanAndVerify(jobs)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
