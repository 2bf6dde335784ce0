// End to end through the repository's own reusable workflow: examples/workflows/loop-from-dispatch.yml
// calls .github/workflows/loop.yml (mapped from loop-controller/loop-controller/...@v1 to this
// repository), whose job checks out, skips the setup and install steps it is not asked for, and runs
// the built action; the action re-dispatches the calling workflow until the loop is COMPLETE.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ACTION_DIR,
  botComments,
  checkOperationsExercised,
  describeJobs,
  projectFiles,
  pullRequests,
  type Scenario,
  startScenario,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

const MINUTE = 60_000
let scenario: Scenario | undefined
afterEach(async () => {
  await scenario?.stop()
  scenario = undefined
})

const example = (name: string) => readFileSync(join(ACTION_DIR, 'examples', 'workflows', name), 'utf8')

describe('the reusable workflow, called by the example workflows', () => {
  it(
    'runs loop-from-dispatch.yml → .github/workflows/loop.yml to COMPLETE, one called job per iteration',
    async () => {
      const files = {
        ...projectFiles({ steps: 2 }),
        '.github/workflows/loop-from-dispatch.yml': example('loop-from-dispatch.yml'),
      }
      scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'called' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)

      expect(
        jobs.map((job) => [job.name, job.event, job.conclusion]),
        why,
      ).toEqual([
        ['loop / loop iteration', 'workflow_dispatch', 'success'],
        ['loop / loop iteration', 'workflow_dispatch', 'success'],
      ])
      // The called job's steps: checkout ran; setup-node and the agent install were skipped (not asked for).
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual(['success', 'skipped', 'skipped', 'success'])
      expect(jobs.map((job) => job.outputs.status)).toEqual(['running', 'complete'])
      // The reusable workflow's job outputs, from the action step's.
      const pull = pullRequests(sandbox)[0]!
      expect(jobs.map((job) => job.jobOutputs)).toEqual([
        { status: 'running', stage: jobs[0]!.outputs.stage, 'pr-number': String(pull.number) },
        { status: 'complete', stage: jobs[1]!.outputs.stage, 'pr-number': String(pull.number) },
      ])
      // The controller re-dispatched the caller (GITHUB_WORKFLOW_REF names it), not the reusable workflow.
      expect(jobs[0]!.env.GITHUB_WORKFLOW_REF).toBe(
        'acme/demo/.github/workflows/loop-from-dispatch.yml@refs/heads/main',
      )
      expect(jobs[1]!.inputs).toMatchObject({ 'loop-id': 'called', iteration: '2' })
      // The called job's token has what the caller grants, and the reusable job's concurrency group.
      expect(jobs[0]!.permissions).toEqual({
        contents: 'write',
        actions: 'write',
        'pull-requests': 'write',
        issues: 'write',
      })
      expect(jobs[0]!.concurrencyGroup).toBe('loop-controller-loop/called')
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `called` · after 2 iterations/)
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    3 * MINUTE,
  )
})
