// End to end through examples/workflows/loop-from-dispatch.yml (and the reusable workflow it calls): a
// loop stopped at its iteration cap goes on the way its advice says. A `command: resume` without a
// higher cap is refused (said in the summary, the loop left capped); "Run workflow" again with a
// higher `max-iterations` re-opens it, and it runs on to COMPLETE. Under `max-loops: 1` the re-opened loop
// asks for a slot as a resume does: while another loop holds the slot it waits in line with its raised
// cap saved, and the job that ends the other loop dispatches it to COMPLETE under that cap.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { expectReopenedInTurn, loopsOf } from './capped-fixtures.js'
import {
  ACTION_DIR,
  checkOperationsExercised,
  describeJobs,
  MINUTE,
  projectFiles,
  startScenario,
  until,
  waitForWork,
} from './fixtures.js'
import { queueNow, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

const example = (name: string) => readFileSync(join(ACTION_DIR, 'examples', 'workflows', name), 'utf8')
const ran = (jobs: readonly JobRecord[]) => jobs.filter((job) => job.conclusion !== 'skipped')

describe('a capped loop, through loop-from-dispatch.yml', () => {
  it(
    'capped at 2: a resume alone is refused; dispatched again with max-iterations 5 it reaches COMPLETE',
    async () => {
      // Three checks, one more passing each iteration: COMPLETE in iteration 3, past a cap of 2.
      const files = {
        ...projectFiles({ steps: 3 }),
        '.github/workflows/loop-from-dispatch.yml': example('loop-from-dispatch.yml'),
      }
      const scenario = await startScenario({
        steps: 3,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario

      await sandbox.dispatch({ 'loop-id': 'capped', 'max-iterations': '2' })
      const first = ran(await sandbox.waitForIdle(2 * MINUTE))
      expect(
        first.map((job) => [job.outputs.iteration, job.outputs.status, job.conclusion]),
        describeJobs(first),
      ).toEqual([
        ['1', 'running', 'success'],
        ['2', 'capped', 'failure'],
      ])
      expect(first[1]!.summary).toContain(
        "where the workflow takes `max-iterations` as an input, run it again with the loop's `loop-id` and one above 2",
      )

      await sandbox.dispatch({ 'loop-id': 'capped', command: 'resume' })
      const refused = ran(await sandbox.waitForIdle(2 * MINUTE)).slice(first.length)
      expect(
        refused.map((job) => job.conclusion),
        describeJobs(refused),
      ).toEqual(['failure'])
      expect(refused[0]!.summary).toContain('did not resume the loop `capped`: it is capped')
      expect(refused[0]!.summary).toContain('max-iterations above 2')
      expect(await savedState(scenario, 'capped')).toMatchObject({ status: 'capped', iteration: 2, maxIterations: 2 })

      await sandbox.dispatch({ 'loop-id': 'capped', 'max-iterations': '5' })
      const all = ran(await sandbox.waitForIdle(2 * MINUTE))
      const raised = all.slice(first.length + refused.length)
      expect(
        raised.map((job) => [job.inputs['max-iterations'], job.outputs.iteration, job.outputs.status, job.conclusion]),
        describeJobs(raised),
      ).toEqual([['5', '3', 'complete', 'success']])
      const state = await savedState(scenario, 'capped')
      expect(state).toMatchObject({ status: 'complete', iteration: 3, maxIterations: 5 })

      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    8 * MINUTE,
  )

  it(
    'max-loops 1: capped at 2 and dispatched with max-iterations 5 while another loop runs, it waits in line with the raised cap and COMPLETEs once the other ends',
    async () => {
      const dispatchWorkflow = example('loop-from-dispatch.yml')
      expect(dispatchWorkflow).toContain("# max-loops: '2'")
      const files = {
        ...projectFiles({ steps: 3 }),
        '.github/workflows/loop-from-dispatch.yml': dispatchWorkflow.replace("# max-loops: '2'", "max-loops: '1'"),
      }
      const scenario = await startScenario({
        steps: 3,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox, signals } = scenario

      await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '2' })
      const first = ran(await sandbox.waitForIdle(2 * MINUTE))
      expect(
        first.map((job) => [job.outputs.iteration, job.outputs.status, job.conclusion]),
        describeJobs(first),
      ).toEqual([
        ['1', 'running', 'success'],
        ['2', 'capped', 'failure'],
      ])

      // Loop b takes the one slot; its first iteration waits mid-work.
      for (const name of scenario.workRuns()) rmSync(join(signals, name))
      writeFileSync(join(signals, 'hold'), '')
      writeFileSync(join(signals, 'hold-long'), '')
      await sandbox.dispatch({ 'loop-id': 'b' })
      await waitForWork(scenario, 1)
      expect(loopsOf(await queueNow(scenario))).toEqual({ running: ['b'], queued: [] })

      // The raised cap re-opens a: it asks for the slot, waits in line, and its job ends green, saying so.
      const { runId } = await sandbox.dispatch({ 'loop-id': 'a', 'max-iterations': '5' })
      const raising = () => ran(sandbox.jobs.filter((job) => job.runId === runId))
      const ranIteration = (iteration: number) => existsSync(join(signals, `work-${iteration}`))
      // Without asking, a's iteration 3 would start beside b's (its work leaves a work-3 marker).
      const done = () => raising().length > 0 && raising().every((job) => job.status === 'completed')
      await until('the job of the raised cap done, or its iteration started', () => done() || ranIteration(3), MINUTE)
      const why = describeJobs(sandbox.jobs)
      expect(scenario.workRuns(), `a ran beside b, which holds the only slot\n${why}`).toEqual(['work-1'])
      expect(
        raising().map((job) => [job.outputs.status, job.conclusion]),
        why,
      ).toEqual([['queued', 'success']])
      expect(raising()[0]!.summary, why).toContain('is queued')
      expect(await savedState(scenario, 'a'), why).toMatchObject({ status: 'queued', iteration: 2, maxIterations: 5 })
      expect(loopsOf(await queueNow(scenario)), why).toEqual({ running: ['b'], queued: ['a'] })

      // b goes on and ends; the job that ends it dispatches a, which runs under the saved cap of 5.
      rmSync(join(signals, 'hold'))
      writeFileSync(join(signals, 'go-1'), '')
      const all = await sandbox.waitForIdle(3 * MINUTE)
      const after = describeJobs(all)
      const later = ran(all).filter((job) => job.inputs['loop-id'] === 'a' && job.runId > runId)
      expect(
        later.map((job) => [
          job.event,
          job.inputs.iteration,
          job.inputs['max-iterations'] ?? 'no cap',
          job.outputs.status,
        ]),
        after,
      ).toEqual([['workflow_dispatch', '3', 'no cap', 'complete']])
      await expectReopenedInTurn(scenario, after)

      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    8 * MINUTE,
  )
})
