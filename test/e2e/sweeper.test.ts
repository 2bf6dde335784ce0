// End to end: a re-dispatch that fails (GitHub answers 502 through every retry) leaves the loop running
// with nothing scheduled; the job records it in the state, fails its step saying so, and the status
// comment says so. A scheduled run of the same workflow (`command: sweep`) finds the loop and
// dispatches the iteration again, once, however many sweepers run: the loop then finishes. An iteration
// whose dispatched run still works past the stale time is left to it. With `dashboard: true` the sweeper
// rewrites the dashboard when it changes a loop: a loop it marks BLOCKED shows so there, with its resume
// box, though no loop job runs after it.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dashboardBody, dashboardRow, dashboards, ticked } from './dashboard-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  SWEEP_ON_SCHEDULE,
  SWEEP_SCHEDULE,
  startScenario,
  sweep,
  until,
  waitForWork,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: the sweeper', () => {
  it(
    'a failed re-dispatch is recorded and said; two scheduled sweepers dispatch it again once and the loop finishes',
    async () => {
      const scenario = await startScenario({
        steps: 3,
        schedule: SWEEP_SCHEDULE,
        // The same workflow sweeps when the schedule starts it.
        workflowWith: { command: SWEEP_ON_SCHEDULE },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'swept' })
      // The first attempt and the client's three retries all fail.
      sandbox.api.inject({ match: 'POST /repos/*/*/actions/workflows/*/dispatches', status: 502, times: 4 })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      expect(jobs, why).toHaveLength(1)
      const stranded = jobs[0]!
      expect(stranded.outputs.status, why).toBe('running')
      expect(stranded.conclusion, why).toBe('failure')
      const errors = stranded.annotations.filter((a) => a.level === 'error').map((a) => a.message)
      expect(errors.join('\n'), why).toMatch(/re-dispatch of iteration 2 of loop swept failed: .*502/)
      expect(errors.join('\n')).toMatch(/command: sweep/)
      expect(errors.join('\n')).not.toMatch(/loop-controller failed/)
      const state = await savedState(scenario, 'swept')
      expect(state.dispatch).toMatchObject({ iteration: 2, workflow: 'loop.yml', ref: 'refs/heads/main' })
      expect(state.dispatch?.failed).toMatch(/502/)
      const [comment] = botComments(sandbox)
      expect(comment?.body).toMatch(/re-dispatch of iteration 2 failed .*nothing is scheduled/s)

      // Two scheduled runs of the sweeper: the first re-dispatches, the second finds it done.
      sweep(scenario)
      sweep(scenario)
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      why = describeJobs(jobs)
      const sweepers = jobs.filter((job) => job.event === 'schedule')
      expect(
        sweepers.map((job) => [job.conclusion, job.outputs.status]),
        why,
      ).toEqual([
        ['success', 'swept'],
        ['success', 'swept'],
      ])
      expect(sweepers.map((job) => job.summary).join('\n'), why).toMatch(/`swept` \| dispatched/)
      // It says where the loops are kept: the branch, no loop's folder (no placeholder for a loop id).
      for (const job of sweepers) {
        expect(job.summary, why).toMatch(
          /^## loop-controller sweep\n\n\d+ loop\(s\) in git branch loop-state of [^,;\s]+; /,
        )
        expect(job.summary, why).not.toMatch(/folder|%E2%80%A6|…/)
      }
      const dispatched = jobs.filter((job) => job.event === 'workflow_dispatch').slice(1)
      expect(
        dispatched.map((job) => [job.inputs.iteration, job.outputs.status]),
        why,
      ).toEqual([
        ['2', 'running'],
        ['3', 'complete'],
      ])
      // The sweepers ran no project code: each iteration's work ran once.
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])
      const comments = botComments(sandbox)
      expect(comments).toHaveLength(1)
      expect(comments[0]?.body).not.toMatch(/nothing is scheduled/)
      expectFaithful(scenario)
    },
    6 * MINUTE,
  )

  it(
    'an iteration whose dispatched run is still in progress past stale-after-minutes is kept: not dispatched again, not BLOCKED',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        schedule: SWEEP_SCHEDULE,
        workflowWith: { command: SWEEP_ON_SCHEDULE, 'stale-after-minutes': '1' },
        // The held iteration outlives the stale time (a minute), within its work's and its job's time.
        workTimeout: '3m',
        sandbox: { jobTimeoutMs: 4 * MINUTE },
      })
      const { sandbox, signals } = scenario
      // Iteration 1 runs through; the job dispatched for iteration 2 works on past the stale time.
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'hold-long'), '')
      writeFileSync(join(signals, 'go-1'), '')
      await sandbox.dispatch({ 'loop-id': 'live' })
      await waitForWork(scenario, 2)
      // A job saves nothing until its iteration ends: the state knows only the dispatch and its run.
      const dispatched = (await savedState(scenario, 'live')).dispatch
      const live = sandbox.jobs.find((job) => job.inputs['loop-id'] === 'live' && job.inputs.iteration === '2')
      expect([dispatched?.iteration, dispatched?.run]).toEqual([2, String(live?.runId)])
      const staleAt = Date.parse(dispatched?.at ?? '') + MINUTE + 1000
      await until('the dispatch stale', () => Date.now() > staleAt, 2 * MINUTE)

      sweep(scenario)
      await until('the sweeper done', () => sandbox.jobs.some((job) => job.event === 'schedule' && job.conclusion))
      writeFileSync(join(signals, 'go-2'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const sweeper = jobs.find((job) => job.event === 'schedule')
      expect(sweeper?.summary, why).toMatch(
        new RegExp(
          `\`live\` \\| skipped \\| iteration 2 was dispatched \\d+ min ago and its run ${live?.runId} is in_progress; kept`,
        ),
      )
      // The first job's own, then iteration 2 once: nothing dispatched it again.
      const runs = jobs.filter((job) => job.event === 'workflow_dispatch').slice(1)
      expect(
        runs.map((job) => [job.inputs.iteration, job.outputs.status]),
        why,
      ).toEqual([['2', 'complete']])
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )

  it(
    'dashboard: true: the loop the sweeper marks BLOCKED shows BLOCKED on the dashboard with the resume box; a tick on it runs the loop to COMPLETE',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        schedule: SWEEP_SCHEDULE,
        issueTypes: ['labeled', 'edited'],
        workflowWith: { command: SWEEP_ON_SCHEDULE, 'max-loops': '1', dashboard: 'true' },
      })
      const { sandbox, signals } = scenario
      // Iteration 1 runs through; the job dispatched for iteration 2 holds in its work and is cancelled.
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'go-1'), '')
      await sandbox.dispatch({ 'loop-id': 'stranded' })
      await waitForWork(scenario, 2)
      const second = sandbox.jobs.find((job) => job.inputs['loop-id'] === 'stranded' && job.inputs.iteration === '2')
      if (!second) throw new Error('no job took iteration 2')
      await until('the job of iteration 2 running', () => second.status === 'running')
      sandbox.engine.cancel(second, 'The run was canceled by @alice.')
      writeFileSync(join(signals, 'go-2'), '')
      let jobs = await sandbox.waitForIdle(MINUTE)
      let why = describeJobs(jobs)
      expect(second.conclusion, why).toBe('cancelled')
      // The dashboard as the loop's last job left it: running, with an abort box and no resume box.
      let body = dashboardBody(sandbox)
      expect(dashboardRow(body, 'stranded')?.[2], body).toBe('running')
      expect(body).toContain('<!-- loop-dashboard:abort:stranded -->')
      expect(body).not.toContain('<!-- loop-dashboard:resume:stranded -->')

      const jobsBefore = jobs.length
      sweep(scenario)
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      // The sweeper was the last job: nothing else ran to rewrite the dashboard.
      expect(
        jobs.slice(jobsBefore).map((job) => [job.event, job.conclusion, job.outputs.status]),
        why,
      ).toEqual([['schedule', 'success', 'swept']])
      const sweeper = jobs.at(-1)
      expect(sweeper?.summary, why).toMatch(/`stranded` \| blocked \| its job's run \d+ took iteration 2/)
      expect((await savedState(scenario, 'stranded')).status, why).toBe('blocked')
      body = dashboardBody(sandbox)
      expect(dashboardRow(body, 'stranded')?.[2], body).toBe('blocked')
      expect(body).toContain('<!-- loop-dashboard:resume:stranded -->')
      expect(body).not.toContain('<!-- loop-dashboard:abort:stranded -->')
      expect(body).toContain(`/actions/runs/${sweeper?.runId})`)

      // alice ticks resume: the loop asks for the free slot, is dispatched, and completes iteration 2.
      const board = dashboards(sandbox)[0]!
      const tickJob = await sandbox.editIssue('alice', board.number, ticked(body, 'resume:stranded'))
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(tickJob?.conclusion, why).toBe('success')
      const resumed = jobs.filter((job) => job.event === 'workflow_dispatch').slice(2)
      expect(
        resumed.map((job) => [job.inputs['loop-id'], job.inputs.iteration, job.outputs.status]),
        why,
      ).toEqual([['stranded', '2', 'complete']])
      expect(dashboardRow(dashboardBody(sandbox), 'stranded')?.[2], why).toBe('complete')
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
