/**
 * The kill switch on GitHub, end to end (issue 19, point 1): the action built from this tree's source
 * (src/, as test/security does, so the committed dist/ need not be rebuilt) runs in the sandbox, whose
 * cache is scoped by ref as GitHub's is. A person stops a loop while its iterations are dispatched one
 * after another; no further iteration's work may run.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { useActionFromSource } from '../security/source-bundle.js'
import {
  botComments,
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
  type Scenario,
  startScenario,
  until,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

const action = useActionFromSource()
let scenario: Scenario | undefined

/** The staircase scenario (alice writes), on the action built from source; iteration 1 may start at once. */
async function start(steps: number): Promise<Scenario> {
  scenario = await startScenario({
    steps,
    sandbox: {
      actionDir: action.actionDir,
      // As examples/workflows/loop-step.yml: no pull_request events, so a label on the loop's pull
      // request reaches the loop only if each iteration reads it itself.
      workflow: { file: 'loop.yml', on: ['workflow_dispatch', 'issues', 'issue_comment', 'pull_request_review'] },
    },
  })
  // Every iteration's work waits for its go-<n> signal, so the test acts while a chain is mid-flight.
  writeFileSync(join(scenario.signals, 'hold'), '')
  writeFileSync(join(scenario.signals, 'go-1'), '')
  return scenario
}

const workRan = (s: Scenario, iteration: number) => existsSync(join(s.signals, `work-${iteration}`))

/** The jobs that ran an iteration (dispatched), in order. */
const iterationJobs = (jobs: readonly JobRecord[]) => jobs.filter((job) => job.event === 'workflow_dispatch')

describe('the kill switch on GitHub (action built from source, cache scoped by ref)', () => {
  it(
    'stops a dispatched loop at its next iteration once a writer adds loop/stop to its pull request',
    async () => {
      const s = await start(4)
      const { sandbox } = s
      await sandbox.dispatch({ 'loop-id': 'stop-me' }, { actor: 'alice' })
      await until('iteration 2 to be working', () => workRan(s, 2))
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/stop-me')
      expect(pull, 'iteration 1 opened the loop`s pull request').toBeDefined()
      // This workflow does not listen to pull_request events: the label reaches the loop only if the
      // loop reads it itself.
      const labelJob = await sandbox.label('alice', pull!.number, 'loop/stop')
      expect(labelJob).toBeUndefined()
      writeFileSync(join(s.signals, 'go-2'), '')
      writeFileSync(join(s.signals, 'go-3'), '')

      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(s.workRuns(), why).toEqual(['work-1', 'work-2'])
      const last = iterationJobs(jobs).at(-1)!
      expect(last.outputs.status, why).toBe('aborted')
      // `fail-on` defaults to blocked, capped and aborted: the run of a loop that stopped short shows red.
      expect(last.conclusion).toBe('failure')
      // Who stopped it, as far as the loop can tell: the label, and where it is.
      expect(last.summary).toMatch(new RegExp(`aborted by the loop/stop label on pull request \\\\?#${pull!.number}`))
      const comment = botComments(sandbox).find((c) => c.issueNumber === pull!.number)
      expect(comment?.body).toMatch(/loop\/stop/)
      expectFaithful(s)
    },
    5 * MINUTE,
  )

  it(
    'keeps a writer`s `/loop abort` on the pull request while the iterations run on another ref',
    async () => {
      const s = await start(4)
      const { sandbox } = s
      // The loop is dispatched on a branch other than the default one ("Use workflow from" in the
      // Actions tab); a comment's job runs on the default branch, whose cache scope differs.
      await sandbox.git.commit('trial', { 'TRIAL.md': 'trying the loop here first\n' }, 'Try the loop', 'alice')
      await sandbox.dispatch({ 'loop-id': 'abort-me' }, { ref: 'trial', actor: 'alice' })
      await until('iteration 2 to be working', () => workRan(s, 2))
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/abort-me')
      expect(pull, 'iteration 1 opened the loop`s pull request').toBeDefined()

      const { job: abortJob } = await sandbox.comment('alice', '/loop abort', pull!.number)
      expect(abortJob, 'the workflow hears the comment').toBeDefined()
      await until('the abort to be applied', () => abortJob!.status === 'completed')
      expect(abortJob!.ref).toBe('refs/heads/main')
      expect(abortJob!.conclusion, describeJobs([abortJob!])).toBe('success')
      // Iteration 2 was mid-work when the abort landed: it finishes, and no iteration follows it.
      writeFileSync(join(s.signals, 'go-2'), '')
      writeFileSync(join(s.signals, 'go-3'), '')

      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(s.workRuns(), why).toEqual(['work-1', 'work-2'])
      const iterations = iterationJobs(jobs)
      expect(iterations.every((job) => job.ref === 'refs/heads/trial')).toBe(true)
      expect(iterations.at(-1)!.outputs.status, why).toBe('aborted')
      expect(iterations.at(-1)!.summary).toMatch(/aborted by alice/)
      expectFaithful(s)
    },
    5 * MINUTE,
  )
})
