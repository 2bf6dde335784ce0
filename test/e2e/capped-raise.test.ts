// End to end through examples/workflows/loop-from-dispatch.yml (and the reusable workflow it calls): a
// loop stopped at its iteration cap goes on the way its advice says. A `command: resume` without a
// higher cap is refused (said in the summary, the loop left capped); "Run workflow" again with a
// higher `max-iterations` re-opens it, and it runs on to COMPLETE.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ACTION_DIR, checkOperationsExercised, describeJobs, MINUTE, projectFiles, startScenario } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

const example = (name: string) => readFileSync(join(ACTION_DIR, 'examples', 'workflows', name), 'utf8')

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
      const ran = (jobs: Awaited<ReturnType<typeof sandbox.waitForIdle>>) =>
        jobs.filter((job) => job.conclusion !== 'skipped')

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
})
