// End to end: `max-loops` set in one workflow and not in another. The issue workflow says `max-loops: 1`;
// the jobs dispatched to run the loops it admits from the line say nothing (as a dispatch-only workflow
// such as examples/workflows/loop-from-dispatch.yml does; the sandbox runs one workflow file, so the
// input is an expression of the event). A job without the input keeps the limit queue.json was last
// changed under: each loop that ends hands its slot to one loop, never to the whole line, and the record
// keeps `limit: 1` to the end.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
  until,
  waitForWork,
} from './fixtures.js'
import { queueHistory, savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: max-loops in one workflow, not in the other', () => {
  it(
    'loops admitted from the line run in jobs without max-loops: each release admits one, under the recorded limit 1',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
        workflowWith: { 'max-loops': "${{ github.event_name != 'workflow_dispatch' && '1' || '' }}" },
      })
      const { sandbox, signals } = scenario
      const issues: number[] = []
      for (const name of ['a', 'b', 'c', 'd']) {
        issues.push((await sandbox.openIssue('alice', `Climb ${name}`, 'One step.')).number)
      }
      writeFileSync(join(signals, 'hold'), '')
      await sandbox.label('alice', issues[0]!, 'loop')
      await waitForWork(scenario, 1)
      for (const issue of issues.slice(1)) await sandbox.label('alice', issue, 'loop')
      const queued = () => sandbox.jobs.filter((job) => job.outputs.status === 'queued' && job.status === 'completed')
      await until('three loops queued', () => queued().length === 3, MINUTE)
      writeFileSync(join(signals, 'go-1'), '')

      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      for (const issue of issues) {
        expect([issue, (await savedState(scenario, `issue-${issue}`)).status], why).toEqual([issue, 'complete'])
      }
      // The queued loops ran in dispatched jobs that set no max-loops.
      const dispatched = jobs.filter((job) => job.event === 'workflow_dispatch')
      expect(
        dispatched
          .map((job) => [job.inputs['loop-id'], job.actionInputs['INPUT_MAX-LOOPS'], job.outputs.status])
          .sort(),
        why,
      ).toEqual(issues.slice(1).map((issue) => [`issue-${issue}`, '', 'complete']))
      // No version of the record had two holders, and each kept the limit the issue workflow set.
      const history = await queueHistory(scenario)
      expect(history.length, why).toBeGreaterThan(4)
      for (const { commit, record } of history) {
        expect([record.running.length <= 1, record.limit], `${commit}: ${JSON.stringify(record)}`).toEqual([true, 1])
      }
      expect(history.at(-1)?.record).toEqual({ running: [], queued: [], limit: 1 })
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
