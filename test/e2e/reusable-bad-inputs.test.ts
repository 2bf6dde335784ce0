// A caller's bad value for an input of the reusable workflow fails the run at once, in the first job that
// reads it, with one error annotation that names the input, the value and what it takes: no agent call,
// nothing saved, pushed or posted. Through the examples as a user copies them, one line changed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FAN_OUT_EXAMPLE, startFanOutScenario } from './fan-out-fixtures.js'
import {
  ACTION_DIR,
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  type Scenario,
  startScenario,
} from './fixtures.js'
import { savedStateIfAny } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** Nothing of loop `loopId` was saved, pushed or posted, and no work ran. */
async function expectUntouched(scenario: Scenario, loopId: string): Promise<void> {
  expect(await savedStateIfAny(scenario, loopId)).toBeUndefined()
  expect(scenario.sandbox.engine.resolveRef(`refs/heads/loop/${loopId}`)).toBeUndefined()
  expect(botComments(scenario.sandbox)).toEqual([])
  expect(scenario.workRuns()).toEqual([])
}

describe('a bad input of the reusable workflow', () => {
  it(
    'single job: a dispatch with iteration abc and max-iterations -1 fails the job with one annotation naming both',
    async () => {
      const caller = readFileSync(join(ACTION_DIR, 'examples', 'workflows', 'loop-from-dispatch.yml'), 'utf8')
      const files = { ...projectFiles({ steps: 2 }), '.github/workflows/loop-from-dispatch.yml': caller }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-numbers', iteration: 'abc', 'max-iterations': '-1' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      expect(
        jobs.map((job) => [job.name, job.conclusion]),
        describeJobs(jobs),
      ).toEqual([['loop / loop iteration', 'failure']])
      expect(jobs[0]!.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        [
          "Input 'max-iterations' must be a whole number from 1 to 1000; got '-1'.",
          "Input 'iteration' must be a whole number (the iteration a re-dispatch runs); got 'abc'.",
        ].join('\n'),
      ])
      await expectUntouched(scenario, 'bad-numbers')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )

  it(
    'single job: a command the workflow does not take (plan, a fan-out job`s) fails the job at once, before the checkout',
    async () => {
      const example = readFileSync(join(ACTION_DIR, 'examples', 'workflows', 'loop-from-dispatch.yml'), 'utf8')
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      const caller = example.replace("      command: ${{ inputs.command || 'run' }}\n", '      command: plan\n')
      expect(caller).not.toBe(example)
      const files = { ...projectFiles({ steps: 2 }), '.github/workflows/loop-from-dispatch.yml': caller }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-plan' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      expect(
        jobs.map((job) => [job.name, job.conclusion]),
        describeJobs(jobs),
      ).toEqual([['loop / loop iteration', 'failure']])
      // The check failed; the timeout's check, checkout, set-up, install and the action never ran.
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual([
        'failure',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
      ])
      expect(jobs[0]!.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        "Input 'command' of the reusable workflow must be one of run, resume, approve, abort, skip; got 'plan'.",
      ])
      await expectUntouched(scenario, 'bad-plan')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )

  it(
    "fan-out: decide's fail-on fails the plan job, before the agent runs; the legs and decide never start",
    async () => {
      const caller = FAN_OUT_EXAMPLE.replace(
        '      config: .github/loop.yml\n',
        '      config: .github/loop.yml\n      fail-on: sometimes\n',
      )
      expect(caller).not.toBe(FAN_OUT_EXAMPLE)
      const scenario = await startFanOutScenario({ '.github/workflows/loop-fan-out.yml': caller })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-fail-on' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.name !== 'loop / loop iteration')
      const why = describeJobs(jobs)
      expect(jobs.map((job) => [job.name, job.conclusion]).sort(), why).toEqual([
        ['loop / decide', 'skipped'],
        ['loop / plan', 'failure'],
        ['loop / verify', 'skipped'],
      ])
      const plan = jobs.find((job) => job.name === 'loop / plan')!
      expect(plan.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        "Input 'fail-on' must be a comma-separated list of blocked, capped, aborted, or none; got 'sometimes'.",
      ])
      await expectUntouched(scenario, 'bad-fail-on')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )

  it(
    "fan-out: an unknown command reaches decide alone (plan works only for run), which names the workflow's 'command'",
    async () => {
      const caller = FAN_OUT_EXAMPLE.replace(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
        "      command: ${{ inputs.command || 'run' }}\n",
        '      command: merge\n',
      )
      expect(caller).not.toBe(FAN_OUT_EXAMPLE)
      const scenario = await startFanOutScenario({ '.github/workflows/loop-fan-out.yml': caller })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-command' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.name !== 'loop / loop iteration')
      const why = describeJobs(jobs)
      expect(jobs.map((job) => [job.name, job.conclusion]).sort(), why).toEqual([
        ['loop / decide', 'failure'],
        ['loop / plan', 'success'],
        ['loop / verify', 'skipped'],
      ])
      const decide = jobs.find((job) => job.name === 'loop / decide')!
      expect(decide.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        "Input 'person-command' must be one of run, resume, approve, abort, skip (the reusable workflow's 'command', which decide applies); got 'merge'.",
      ])
      await expectUntouched(scenario, 'bad-command')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
  it(
    'single job: timeout-minutes 0 fails the job in its first steps, naming the workflow`s timeout-minutes, before the checkout',
    async () => {
      const example = readFileSync(join(ACTION_DIR, 'examples', 'workflows', 'loop-from-dispatch.yml'), 'utf8')
      const caller = example.replace(
        '      config: .github/loop.yml\n',
        '      config: .github/loop.yml\n      timeout-minutes: 0\n',
      )
      expect(caller).not.toBe(example)
      const files = { ...projectFiles({ steps: 2 }), '.github/workflows/loop-from-dispatch.yml': caller }
      const scenario = await startScenario({
        steps: 2,
        sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-timeout' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
      expect(
        jobs.map((job) => [job.name, job.conclusion]),
        describeJobs(jobs),
      ).toEqual([['loop / loop iteration', 'failure']])
      // The command's check (skipped: run is good), the timeout's (failed); nothing after it ran.
      expect(jobs[0]!.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'failure',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
      ])
      expect(jobs[0]!.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        "Input 'timeout-minutes' of the reusable workflow must be a whole number of minutes from 1 to 7200 (each of its jobs' timeout-minutes); got '0'.",
      ])
      await expectUntouched(scenario, 'bad-timeout')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )

  it(
    'fan-out: timeout-minutes 0 fails the plan job before the agent runs, naming the workflow`s timeout-minutes; the legs and decide never start',
    async () => {
      const caller = FAN_OUT_EXAMPLE.replace(
        '      config: .github/loop.yml\n',
        '      config: .github/loop.yml\n      timeout-minutes: 0\n',
      )
      expect(caller).not.toBe(FAN_OUT_EXAMPLE)
      const scenario = await startFanOutScenario({ '.github/workflows/loop-fan-out.yml': caller })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'bad-fan-out-timeout' })
      const jobs = (await sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.name !== 'loop / loop iteration')
      const why = describeJobs(jobs)
      expect(jobs.map((job) => [job.name, job.conclusion]).sort(), why).toEqual([
        ['loop / decide', 'skipped'],
        ['loop / plan', 'failure'],
        ['loop / verify', 'skipped'],
      ])
      const plan = jobs.find((job) => job.name === 'loop / plan')!
      expect(plan.steps[0]!.outcome, why).toBe('failure')
      expect(plan.steps.slice(1).map((step) => step.outcome)).not.toContain('success')
      expect(plan.annotations.filter((note) => note.level === 'error').map((note) => note.message)).toEqual([
        "Input 'timeout-minutes' of the reusable workflow must be a whole number of minutes from 1 to 7200 (each of its jobs' timeout-minutes); got '0'.",
      ])
      await expectUntouched(scenario, 'bad-fan-out-timeout')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})
