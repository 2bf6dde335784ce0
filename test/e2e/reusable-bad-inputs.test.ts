// A caller's bad value for an input of the reusable workflow fails the run at once, in the first job that
// reads it, with one error annotation that names the input, the value and what it takes: no agent call,
// nothing saved, pushed or posted. Through the examples as a user copies them, one line changed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
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

/** `text` with `from` replaced by `to`, which must be in it (the example changed: the test must too). */
function edited(text: string, [from, to]: readonly [string, string]): string {
  const changed = text.replace(from, to)
  expect(changed).not.toBe(text)
  return changed
}

const errorsOf = (job: JobRecord) => job.annotations.filter((note) => note.level === 'error').map((n) => n.message)

const CONFIG_LINE = '      config: .github/loop.yml\n'
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
const COMMAND_LINE = "      command: ${{ inputs.command || 'run' }}\n"

/**
 * loop-from-dispatch.yml, with one line edited, dispatched for `loopId`: its one job that ran, which
 * failed, and the scenario.
 */
async function singleJob(
  loopId: string,
  edit: readonly [string, string] | null,
  inputs: Record<string, string> = {},
): Promise<{ scenario: Scenario; job: JobRecord }> {
  const example = readFileSync(join(ACTION_DIR, 'examples', 'workflows', 'loop-from-dispatch.yml'), 'utf8')
  const caller = edit ? edited(example, edit) : example
  const files = { ...projectFiles({ steps: 2 }), '.github/workflows/loop-from-dispatch.yml': caller }
  const scenario = await startScenario({
    steps: 2,
    sandbox: { repoFiles: files, workflow: { file: 'loop-from-dispatch.yml' } },
  })
  await scenario.sandbox.dispatch({ 'loop-id': loopId, ...inputs })
  const jobs = (await scenario.sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.conclusion !== 'skipped')
  expect(
    jobs.map((job) => [job.name, job.conclusion]),
    describeJobs(jobs),
  ).toEqual([['loop / loop iteration', 'failure']])
  return { scenario, job: jobs[0]! }
}

/** The fan-out example, with one line edited, dispatched for `loopId`: its jobs by name, and the scenario. */
async function fanOut(loopId: string, edit: readonly [string, string]) {
  const caller = edited(FAN_OUT_EXAMPLE, edit)
  const scenario = await startFanOutScenario({ '.github/workflows/loop-fan-out.yml': caller })
  await scenario.sandbox.dispatch({ 'loop-id': loopId })
  const jobs = (await scenario.sandbox.waitForIdle(2 * MINUTE)).filter((job) => job.name !== 'loop / loop iteration')
  const why = describeJobs(jobs)
  const named = (name: string) => jobs.find((job) => job.name === `loop / ${name}`)!
  return { scenario, why, conclusions: jobs.map((job) => [job.name, job.conclusion]).sort(), named }
}

const TIMEOUT_REFUSED =
  "Input 'timeout-minutes' of the reusable workflow must be a whole number of minutes from 1 to 7200 (each of its jobs' timeout-minutes); got '0'."

describe('a bad input of the reusable workflow', () => {
  it(
    'single job: a dispatch with iteration abc and max-iterations -1 fails the job with one annotation naming both',
    async () => {
      const { scenario, job } = await singleJob('bad-numbers', null, { iteration: 'abc', 'max-iterations': '-1' })
      expect(errorsOf(job)).toEqual([
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
      const { scenario, job } = await singleJob('bad-plan', [COMMAND_LINE, '      command: plan\n'])
      // The check failed; the timeout's check, checkout, set-up, install and the action never ran.
      expect(job.steps.map((step) => step.outcome)).toEqual([
        'failure',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
      ])
      expect(errorsOf(job)).toEqual([
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
      const run = await fanOut('bad-fail-on', [CONFIG_LINE, `${CONFIG_LINE}      fail-on: sometimes\n`])
      expect(run.conclusions, run.why).toEqual([
        ['loop / decide', 'skipped'],
        ['loop / plan', 'failure'],
        ['loop / verify', 'skipped'],
      ])
      expect(errorsOf(run.named('plan'))).toEqual([
        "Input 'fail-on' must be a comma-separated list of blocked, capped, aborted, or none; got 'sometimes'.",
      ])
      await expectUntouched(run.scenario, 'bad-fail-on')
      expectFaithful(run.scenario)
    },
    2 * MINUTE,
  )

  it(
    "fan-out: an unknown command reaches decide alone (plan works only for run), which names the workflow's 'command'",
    async () => {
      const run = await fanOut('bad-command', [COMMAND_LINE, '      command: merge\n'])
      expect(run.conclusions, run.why).toEqual([
        ['loop / decide', 'failure'],
        ['loop / plan', 'success'],
        ['loop / verify', 'skipped'],
      ])
      expect(errorsOf(run.named('decide'))).toEqual([
        "Input 'person-command' must be one of run, resume, approve, abort, skip (the reusable workflow's 'command', which decide applies); got 'merge'.",
      ])
      await expectUntouched(run.scenario, 'bad-command')
      expectFaithful(run.scenario)
    },
    2 * MINUTE,
  )

  it(
    'single job: timeout-minutes 0 fails the job in its first steps, naming the workflow`s timeout-minutes, before the checkout',
    async () => {
      const { scenario, job } = await singleJob('bad-timeout', [
        CONFIG_LINE,
        `${CONFIG_LINE}      timeout-minutes: 0\n`,
      ])
      // The command's check (skipped: run is good), the timeout's (failed); nothing after it ran.
      expect(job.steps.map((step) => step.outcome)).toEqual([
        'skipped',
        'failure',
        'skipped',
        'skipped',
        'skipped',
        'skipped',
      ])
      expect(errorsOf(job)).toEqual([TIMEOUT_REFUSED])
      await expectUntouched(scenario, 'bad-timeout')
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )

  it(
    'fan-out: timeout-minutes 0 fails the plan job before the agent runs, naming the workflow`s timeout-minutes; the legs and decide never start',
    async () => {
      const run = await fanOut('bad-fan-out-timeout', [CONFIG_LINE, `${CONFIG_LINE}      timeout-minutes: 0\n`])
      expect(run.conclusions, run.why).toEqual([
        ['loop / decide', 'skipped'],
        ['loop / plan', 'failure'],
        ['loop / verify', 'skipped'],
      ])
      const plan = run.named('plan')
      expect(plan.steps[0]!.outcome, run.why).toBe('failure')
      expect(plan.steps.slice(1).map((step) => step.outcome)).not.toContain('success')
      expect(errorsOf(plan)).toEqual([TIMEOUT_REFUSED])
      await expectUntouched(run.scenario, 'bad-fan-out-timeout')
      expectFaithful(run.scenario)
    },
    2 * MINUTE,
  )
})
