// End to end: `max-loops` is a limit that cannot jam. A loop's job cancelled in the Actions tab leaves
// its state `running` and its slot held, and nothing else ever frees it: the queue behind it waits for
// good. The scheduled sweeper (`command: sweep`, here without its own `max-loops`: it admits under the
// limit queue.json was last changed under) asks GitHub about the holder's run, finds it over, marks the
// loop BLOCKED and starts the next in line; a queued loop whose issue was closed meanwhile is not started
// and its comment says why. And a person's resume of a BLOCKED loop, with both slots held, queues it
// like a new one (told so in its comment); it starts when a slot frees, never a third at once.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { dashboards, ticked } from './dashboard-fixtures.js'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  type Scenario,
  SWEEP_ON_SCHEDULE,
  SWEEP_SCHEDULE,
  startScenario,
  statusCommentOn,
  sweep,
  until,
  waitForWork,
} from './fixtures.js'
import { queueHistory, queueNow, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** Polls an asynchronous condition (the state branch is read through git). */
async function untilRead(what: string, done: () => Promise<boolean>, timeoutMs = MINUTE): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Cancels a running job as a person's "Cancel workflow" does: its process is killed mid-step. */
async function cancelJob(s: Scenario, job: JobRecord | undefined): Promise<JobRecord> {
  if (!job) throw new Error('no job to cancel')
  await until('the job running', () => job.status === 'running', MINUTE)
  s.sandbox.engine.cancel(job, 'The run was canceled by @alice.')
  await until('the job cancelled', () => job.status === 'completed', MINUTE)
  return job
}

async function closeIssue(s: Scenario, issueNumber: number): Promise<void> {
  const { repo } = s.sandbox.api.model
  const response = await fetch(`${s.sandbox.api.url}/repos/${repo.owner.login}/${repo.name}/issues/${issueNumber}`, {
    method: 'PATCH',
    headers: { authorization: `token ${s.sandbox.tokenOf('alice')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'closed', state_reason: 'not_planned' }),
  })
  expect(response.status).toBe(200)
}

describe('the action bundle in the sandbox: slots that cannot jam', () => {
  it(
    "max-loops 1: the holder's job is cancelled, the line waits until the sweeper marks it BLOCKED and starts the next; a queued loop whose issue was closed is not started",
    async () => {
      const scenario = await startScenario({
        steps: 1,
        schedule: SWEEP_SCHEDULE,
        workflowWith: {
          command: SWEEP_ON_SCHEDULE,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
          'max-loops': "${{ github.event_name == 'schedule' && '' || '1' }}",
        },
      })
      const { sandbox, signals } = scenario
      const stranded = (await sandbox.openIssue('alice', 'Climb first', 'One step.')).number
      const next = (await sandbox.openIssue('alice', 'Climb next', 'One step, next.')).number
      const closed = (await sandbox.openIssue('alice', 'Climb never', 'One step, never.')).number
      writeFileSync(join(signals, 'hold'), '')
      const holderJob = await sandbox.label('alice', stranded, 'loop')
      await waitForWork(scenario, 1)
      await sandbox.label('alice', next, 'loop')
      await until('the next loop queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      await sandbox.label('alice', closed, 'loop')
      const queuedTwo = () => sandbox.jobs.filter((job) => job.outputs.status === 'queued').length === 2
      await until('two loops queued', queuedTwo, MINUTE)
      await closeIssue(scenario, closed)

      // The planted death: the holder's job is cancelled mid-iteration. Nothing frees its slot.
      const cancelled = await cancelJob(scenario, holderJob)
      writeFileSync(join(signals, 'go-1'), '')
      let jobs = await sandbox.waitForIdle(MINUTE)
      let why = describeJobs(jobs)
      expect(cancelled.conclusion, why).toBe('cancelled')
      expect(sandbox.api.model.runs.get(cancelled.runId)?.conclusion).toBe('cancelled')
      expect((await savedState(scenario, `issue-${stranded}`)).status, why).toBe('running')
      const jammed = await queueNow(scenario)
      expect(
        jammed.running.map((holder) => [holder.loopId, holder.run]),
        why,
      ).toEqual([[`issue-${stranded}`, String(cancelled.runId)]])
      expect(jammed.queued.map((entry) => entry.loopId)).toEqual([`issue-${next}`, `issue-${closed}`])

      sweep(scenario)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const sweeper = jobs.find((job) => job.event === 'schedule')
      expect([sweeper?.conclusion, sweeper?.outputs.status], why).toEqual(['success', 'swept'])
      expect(sweeper?.summary, why).toMatch(
        new RegExp(`\`issue-${stranded}\` \\| blocked \\| its job's run ${cancelled.runId} ended \\(cancelled\\)`),
      )
      expect(sweeper?.summary).toMatch(new RegExp(`\`issue-${next}\` \\| started \\| admitted to a freed slot`))
      const blocked = await savedState(scenario, `issue-${stranded}`)
      expect([blocked.status, blocked.iteration], why).toEqual(['blocked', 0])
      expect(blocked.statusReason).toMatch(/`\/loop resume`/)
      // Its status comment, which said running, now says BLOCKED and why (the sweeper wrote it).
      expect(statusCommentOn(scenario, stranded), why).toMatch(
        new RegExp(`BLOCKED[\\s\\S]*run ${cancelled.runId} ended \\(cancelled\\)`),
      )
      // The next loop ran to COMPLETE; the closed issue's loop was never started, and says why.
      expect((await savedState(scenario, `issue-${next}`)).status, why).toBe('complete')
      const never = await savedState(scenario, `issue-${closed}`)
      expect([never.status, never.iteration], why).toEqual(['blocked', 0])
      expect(never.statusReason).toMatch(new RegExp(`issue #${closed} was closed while the loop waited for a slot`))
      // The comment escapes the `#` (no autolink to the issue inside the sentence).
      expect(statusCommentOn(scenario, closed)).toMatch(
        new RegExp(`BLOCKED[\\s\\S]*issue \\\\#${closed} was closed while the loop waited`),
      )
      expect(
        jobs.filter((job) => job.inputs['loop-id'] === `issue-${closed}`),
        why,
      ).toEqual([])
      expect(await queueNow(scenario), why).toMatchObject({ running: [], queued: [] })
      const history = await queueHistory(scenario)
      expect(history.length, why).toBeGreaterThan(2)
      for (const { commit, record } of history) expect(record.running.length, commit).toBeLessThanOrEqual(1)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'max-loops 1: the dispatched job of iteration 2 is cancelled mid-iteration; the sweeper marks the loop BLOCKED rather than dispatching it again, and starts the next',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        schedule: SWEEP_SCHEDULE,
        workflowWith: { command: SWEEP_ON_SCHEDULE, 'max-loops': '1' },
      })
      const { sandbox, signals } = scenario
      const stranded = (await sandbox.openIssue('alice', 'Climb two, stopped', 'Two steps.')).number
      const next = (await sandbox.openIssue('alice', 'Climb two after', 'Two steps, next.')).number
      // Iteration 1 runs through; the job dispatched for iteration 2 holds in its work.
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'go-1'), '')
      await sandbox.label('alice', stranded, 'loop')
      await waitForWork(scenario, 2)
      await sandbox.label('alice', next, 'loop')
      await until('the next loop queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      const second = sandbox.jobs.find(
        (job) => job.inputs['loop-id'] === `issue-${stranded}` && job.inputs.iteration === '2',
      )
      const cancelled = await cancelJob(scenario, second)
      writeFileSync(join(signals, 'go-2'), '')
      await sandbox.waitForIdle(MINUTE)
      // The job that took iteration 2 saved nothing: the loop says running at iteration 1, with iteration 2
      // dispatched, and its slot records the dead run.
      const before = await savedState(scenario, `issue-${stranded}`)
      expect([before.status, before.iteration, before.dispatch?.iteration]).toEqual(['running', 1, 2])
      expect((await queueNow(scenario)).running.map((holder) => holder.run)).toEqual([String(cancelled.runId)])

      const jobsBefore = sandbox.jobs.length
      sweep(scenario)
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const sweeper = jobs.find((job) => job.event === 'schedule')
      expect(sweeper?.summary, why).toMatch(
        new RegExp(
          `\`issue-${stranded}\` \\| blocked \\| its job's run ${cancelled.runId} took iteration 2 and ended \\(cancelled\\)`,
        ),
      )
      const blocked = await savedState(scenario, `issue-${stranded}`)
      expect([blocked.status, blocked.iteration], why).toEqual(['blocked', 1])
      expect(statusCommentOn(scenario, stranded), why).toMatch(
        new RegExp(`BLOCKED[\\s\\S]*run ${cancelled.runId} took iteration 2`),
      )
      // Not dispatched again: the jobs after the sweep are the next loop's alone, and it completes.
      const after = jobs.slice(jobsBefore).filter((job) => job.event !== 'schedule')
      expect(
        after.map((job) => [job.inputs['loop-id'], job.inputs.iteration]),
        why,
      ).toEqual([
        [`issue-${next}`, '1'],
        [`issue-${next}`, '2'],
      ])
      expect((await savedState(scenario, `issue-${next}`)).status, why).toBe('complete')
      expect(await queueNow(scenario), why).toMatchObject({ running: [], queued: [] })
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'max-loops 2: a resume of a BLOCKED loop while both slots are held is queued, told so, and starts when a slot frees',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        schedule: SWEEP_SCHEDULE,
        workflowWith: { command: SWEEP_ON_SCHEDULE, 'max-loops': '2' },
      })
      const { sandbox, signals } = scenario
      const resumed = (await sandbox.openIssue('alice', 'Climb, stopped', 'One step.')).number
      const first = (await sandbox.openIssue('alice', 'Climb one', 'One step.')).number
      const second = (await sandbox.openIssue('alice', 'Climb two', 'One step.')).number
      // A BLOCKED loop, made the way the first scenario makes one: its job dies, the sweeper frees its slot.
      writeFileSync(join(signals, 'hold'), '')
      const doomed = await sandbox.label('alice', resumed, 'loop')
      await waitForWork(scenario, 1)
      await cancelJob(scenario, doomed)
      sweep(scenario)
      await sandbox.waitForIdle(MINUTE)
      expect((await savedState(scenario, `issue-${resumed}`)).status).toBe('blocked')
      expect((await queueNow(scenario)).running).toEqual([])

      // Two loops take both slots and hold in their work.
      await sandbox.label('alice', first, 'loop')
      await sandbox.label('alice', second, 'loop')
      await untilRead('both slots held', async () => (await queueNow(scenario)).running.length === 2)
      const { job: resumeJob } = await sandbox.comment('alice', '/loop resume', resumed)
      await until('the resume applied', () => resumeJob?.status === 'completed', MINUTE)
      const whyResume = describeJobs([resumeJob!])
      expect([resumeJob?.conclusion, resumeJob?.outputs.status], whyResume).toEqual(['success', 'queued'])
      expect((await savedState(scenario, `issue-${resumed}`)).status).toBe('queued')
      const told = statusCommentOn(scenario, resumed)
      expect(told, whyResume).toContain(`\`issue-${resumed}\` is queued`)
      expect(told).toMatch(/all 2 slots are in use \(max-loops: 2\)/)
      expect((await queueNow(scenario)).queued.map((entry) => entry.loopId)).toEqual([`issue-${resumed}`])

      writeFileSync(join(signals, 'go-1'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      for (const issue of [first, second, resumed]) {
        expect([issue, (await savedState(scenario, `issue-${issue}`)).status], why).toEqual([issue, 'complete'])
      }
      // The resumed loop ran in a job dispatched when a slot freed; no version of the record had three.
      expect(
        jobs.filter((job) => job.event === 'workflow_dispatch' && job.inputs['loop-id'] === `issue-${resumed}`),
        why,
      ).toHaveLength(1)
      const history = await queueHistory(scenario)
      expect(history.length, why).toBeGreaterThan(2)
      for (const { commit, record } of history) expect(record.running.length, commit).toBeLessThanOrEqual(2)
      expect(await queueNow(scenario), why).toMatchObject({ running: [], queued: [] })
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    "max-loops 1: a dashboard tick aborts the running loop mid-iteration; its slot stays held until that iteration's job ends, and only then does the queued loop start",
    async () => {
      const scenario = await startScenario({
        steps: 1,
        issueTypes: ['labeled', 'edited'],
        workflowWith: { 'max-loops': '1', dashboard: 'true' },
      })
      const { sandbox, signals } = scenario
      const running = (await sandbox.openIssue('alice', 'Climb, aborted mid-way', 'One step.')).number
      const waiting = (await sandbox.openIssue('alice', 'Climb after', 'One step, after.')).number
      writeFileSync(join(signals, 'hold'), '')
      const runningJob = await sandbox.label('alice', running, 'loop')
      await waitForWork(scenario, 1)
      await sandbox.label('alice', waiting, 'loop')
      const box = `- [ ] <!-- loop-dashboard:abort:issue-${running} -->`
      await until(
        'the second loop queued and the dashboard offering the abort',
        () =>
          sandbox.jobs.some((job) => job.outputs.status === 'queued' && job.status === 'completed') &&
          (dashboards(sandbox)[0]?.body ?? '').includes(box),
        MINUTE,
      )
      const board = dashboards(sandbox)[0]!
      const tickJob = await sandbox.editIssue('alice', board.number, ticked(board.body ?? '', `abort:issue-${running}`))
      await until('the tick applied', () => tickJob?.status === 'completed', MINUTE)
      const whyTick = describeJobs([tickJob!, runningJob!])
      expect(tickJob?.conclusion, whyTick).toBe('success')
      expect(runningJob?.status, whyTick).toBe('running')
      // The iteration still runs: the aborted loop keeps its slot (stopping), nothing starts the next.
      const held = await queueNow(scenario)
      expect(held.running, whyTick).toEqual([
        expect.objectContaining({ loopId: `issue-${running}`, run: String(runningJob?.runId), stopping: true }),
      ])
      expect(held.queued.map((entry) => entry.loopId)).toEqual([`issue-${waiting}`])
      expect(sandbox.jobs.filter((job) => job.inputs['loop-id'] === `issue-${waiting}`)).toEqual([])

      const iterationLetGo = Date.now()
      writeFileSync(join(signals, 'go-1'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect([runningJob?.outputs.status, (await savedState(scenario, `issue-${running}`)).status], why).toEqual([
        'aborted',
        'aborted',
      ])
      const next = jobs.filter((job) => job.inputs['loop-id'] === `issue-${waiting}`)
      expect(
        next.map((job) => job.outputs.status),
        why,
      ).toEqual(['complete'])
      // It was dispatched by the aborted loop's own job, after that job's iteration was let go.
      expect(next[0]?.startedAt ?? 0, why).toBeGreaterThan(iterationLetGo)
      expect(await queueNow(scenario), why).toEqual({ running: [], queued: [], limit: 1 })
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
