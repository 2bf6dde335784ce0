// End to end through examples/workflows/loop-fan-out.yml with `max-loops: 1`: a loop capped at 2 and
// dispatched again with `max-iterations: 5` while another loop holds the one slot asks for a slot as a
// resume does. Its plan does no work (no agent call without a slot), its decide saves the raised cap with
// the loop queued, and the job that ends the other loop dispatches it, which runs under the saved cap of 5
// to COMPLETE. Never two loops hold a slot. With the slot free, decide takes it and dispatches the
// iteration to plan again, with no cap: it runs under the saved one.
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { expectReopenedInTurn, loopsOf } from './capped-fixtures.js'
import { FAN_OUT_EXAMPLE, jobsNamed, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE, until, waitForWork } from './fixtures.js'
import { journeyOf } from './many-loops-fixtures.js'
import { queueNow, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

const ran = (jobs: readonly JobRecord[]) => jobs.filter((job) => job.conclusion !== 'skipped')

describe('a capped fan-out loop re-opened by a higher cap, under max-loops', () => {
  it(
    'max-loops 1: capped at 2 and dispatched with max-iterations 5 while another loop runs, it is not planned but waits in line with the raised cap, and COMPLETEs once the other ends',
    async () => {
      expect(FAN_OUT_EXAMPLE).toContain("# max-loops: '2'")
      const workflow = FAN_OUT_EXAMPLE.replace("# max-loops: '2'", "max-loops: '1'")
      // Three steps, one an iteration: COMPLETE in iteration 3, past a cap of 2. Two loops' rounds, six jobs each.
      const scenario = await startFanOutScenario(
        { '.github/workflows/loop-fan-out.yml': workflow },
        { steps: 3 },
        { maxJobs: 120 },
      )
      const { sandbox, signals } = scenario

      await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '2' })
      const first = await sandbox.waitForIdle(3 * MINUTE)
      expect(jobsNamed(first, 'decide').at(-1)?.outputs.status, describeJobs(first)).toBe('capped')
      expect(await savedState(scenario, 'a')).toMatchObject({ status: 'capped', iteration: 2, maxIterations: 2 })

      // Loop b takes the one slot; its first iteration waits mid-work.
      for (const name of scenario.workRuns()) rmSync(join(signals, name))
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'hold-long'), '')
      await sandbox.dispatch({ 'loop-id': 'b' })
      await waitForWork(scenario, 1, 2 * MINUTE)
      expect(loopsOf(await queueNow(scenario))).toEqual({ running: ['b'], queued: [] })

      // The raised cap re-opens a: its plan does no work, its decide asks for the slot and queues it, green.
      const { runId } = await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '5' })
      const raising = () => ran(sandbox.jobs.filter((job) => job.runId === runId))
      const done = () => raising().length > 0 && raising().every((job) => job.status === 'completed')
      // Without the gate, a's plan would run its iteration 3 beside b's (its work leaves a work-3 marker).
      await until(
        'the run of the raised cap done, or its iteration worked',
        () => done() || scenario.workRuns().includes('work-3'),
        2 * MINUTE,
      )
      const why = describeJobs(sandbox.jobs)
      expect(scenario.workRuns(), `a worked beside b, which holds the only slot\n${why}`).toEqual(['work-1'])
      const plan = jobsNamed(raising(), 'plan')[0]
      expect(plan?.outputs.verify, why).toBe('false')
      expect(plan?.stdout, why).toContain(
        'no work planned: the cap 5 re-opens the capped loop, which asks for its slot first: decide asks for it',
      )
      const decide = jobsNamed(raising(), 'decide')
      expect(
        decide.map((job) => [job.outputs.status, job.conclusion]),
        why,
      ).toEqual([['queued', 'success']])
      expect(decide[0]?.summary, why).toContain('is queued')
      expect(await savedState(scenario, 'a'), why).toMatchObject({ status: 'queued', iteration: 2, maxIterations: 5 })
      expect(loopsOf(await queueNow(scenario)), why).toEqual({ running: ['b'], queued: ['a'] })

      // b goes on and ends; the job that ends it dispatches a, which runs under the saved cap of 5.
      rmSync(join(signals, 'hold'))
      writeFileSync(join(signals, 'go-1'), '')
      const all = await sandbox.waitForIdle(4 * MINUTE)
      const after = describeJobs(all)
      const later = jobsNamed(all, 'decide').filter((job) => job.inputs['loop-id'] === 'a' && job.runId > runId)
      expect(
        later.map((job) => [
          job.event,
          job.inputs.iteration,
          job.inputs['max-iterations'] || 'no cap',
          job.outputs.status,
        ]),
        after,
      ).toEqual([['workflow_dispatch', '3', 'no cap', 'complete']])
      await expectReopenedInTurn(scenario, after)
      expectFaithful(scenario)
    },
    12 * MINUTE,
  )

  it(
    'max-loops 1, the slot free: the run of the raised cap plans nothing, its decide takes the slot and dispatches iteration 3, planned and run under the saved cap of 5 to COMPLETE',
    async () => {
      const workflow = FAN_OUT_EXAMPLE.replace("# max-loops: '2'", "max-loops: '1'")
      const scenario = await startFanOutScenario(
        { '.github/workflows/loop-fan-out.yml': workflow },
        { steps: 3 },
        { maxJobs: 60 },
      )
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '2' })
      const first = await sandbox.waitForIdle(3 * MINUTE)
      expect(jobsNamed(first, 'decide').at(-1)?.outputs.status, describeJobs(first)).toBe('capped')

      const { runId } = await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '5' })
      const all = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(all)
      const after = ran(all).filter((job) => job.runId >= runId)
      // The raised cap's run: no work, the slot taken; then a dispatch of iteration 3 with no cap.
      expect(
        jobsNamed(after, 'decide').map((job) => [
          job.inputs.iteration || 'by hand',
          job.inputs['max-iterations'] || 'no cap',
          job.outputs.status,
        ]),
        why,
      ).toEqual([
        ['by hand', '5', 'running'],
        ['3', 'no cap', 'complete'],
      ])
      const [raisingPlan, admittedPlan] = jobsNamed(after, 'plan')
      expect(raisingPlan?.outputs.verify, why).toBe('false')
      expect(raisingPlan?.stdout, why).toContain('no work planned: the cap 5 re-opens the capped loop')
      expect(jobsNamed(after, 'decide')[0]?.stdout, why).toContain(
        'Loop a holds its slot now; its iteration is dispatched to plan with it.',
      )
      expect(admittedPlan?.stdout, why).toContain('Planned iteration 3')
      expect(await savedState(scenario, 'a'), why).toMatchObject({ status: 'complete', iteration: 3, maxIterations: 5 })
      const journey = (await journeyOf(scenario, 'a')).map((event) => event.type)
      const reopenedAt = journey.indexOf('cap-changed')
      expect(journey.slice(reopenedAt, reopenedAt + 3), journey.join(', ')).toEqual([
        'cap-changed',
        'resumed',
        'admitted',
      ])
      expectFaithful(scenario)
    },
    8 * MINUTE,
  )
})
