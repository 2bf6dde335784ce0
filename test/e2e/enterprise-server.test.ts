/**
 * An older GitHub Enterprise Server (issue 13, point 7): it answers a dispatch that asks for
 * `return_run_details` with 400. The loop must dispatch again without it and find the run it started
 * from the workflow's runs, so the chain goes on and the log still links the next run. The action is
 * built from this tree's source.
 */
import { describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import { describeJobs, MINUTE, startScenario } from './fixtures.js'

const action = useActionFromSource()

describe('on a GitHub Enterprise Server without run details', () => {
  it(
    'dispatches without return_run_details after the 400, finds the run, and the loop completes',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        sandbox: { actionDir: action.actionDir, refusesRunDetails: true },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'ghes' }, { actor: 'alice' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(
        jobs.map((job) => job.conclusion),
        why + jobs.map((j) => j.stdout.slice(-3000)).join('\n----\n'),
      ).toEqual(jobs.map(() => 'success'))
      const byTheJob = sandbox.api.exchanges.filter((e) => e.actor === 'github-actions[bot]')
      const dispatches = byTheJob.filter((e) => e.operationId === 'actions/create-workflow-dispatch')
      expect(dispatches.map((e) => e.status)).toEqual([400, 204])
      expect(dispatches[1]?.requestBody).not.toHaveProperty('return_run_details')
      const lookup = byTheJob.find((e) => e.operationId === 'actions/list-workflow-runs')
      expect(lookup?.status).toBe(200)
      // The log links the run the dispatch started, found from the list.
      const second = jobs[1]!
      expect(jobs[0]!.stdout, why).toContain(
        `Dispatched iteration 2 of loop ghes: https://github.com/acme/demo/actions/runs/${second.runId}`,
      )
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    4 * MINUTE,
  )
})
