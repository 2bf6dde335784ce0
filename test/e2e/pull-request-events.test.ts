/**
 * A loop's pull request speaks to the loop (issue 13 point 3, issue 19 point 5), end to end: GitHub runs
 * a pull request's `pull_request` and `pull_request_review` workflows on `refs/pull/N/merge`, which no
 * dispatch may name (422 "No ref found"), so the job re-dispatches on the default branch. SHIP waits
 * with a green run, marks its draft ready for review (GitHub merges no draft), and the merge's `closed`
 * event completes the loop. The action is built from this tree's source.
 */
import { describe, expect, it } from 'vitest'
import { useActionFromSource } from '../security/source-bundle.js'
import { describeJobs, expectFaithful, MINUTE, pullRequests, startScenario } from './fixtures.js'

const action = useActionFromSource()

describe('events on the loop`s pull request (merge ref)', () => {
  it.each([
    { how: 'an approving review', event: 'pull_request_review' },
    { how: 'the loop/approved:verifier label', event: 'pull_request' },
  ])(
    '$how on the pull request runs on refs/pull/N/merge, approves the gate and re-dispatches on main',
    async ({ event }) => {
      const scenario = await startScenario({ steps: 3, editsConfig: true, sandbox: { actionDir: action.actionDir } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' }, { actor: 'alice' })
      const atGate = await sandbox.waitForIdle(2 * MINUTE)
      expect(atGate.at(-1)?.outputs.status, describeJobs(atGate)).toBe('waiting')
      const before = atGate.length // the engine's live list: count it now
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/gated')
      expect(pull, describeJobs(atGate)).toBeDefined()

      const personJob =
        event === 'pull_request_review'
          ? await sandbox.review('alice', pull!.number, 'APPROVED')
          : await sandbox.label('alice', pull!.number, 'loop/approved:verifier')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(personJob?.event, why).toBe(event)
      expect(personJob?.ref, why).toBe(`refs/pull/${pull!.number}/merge`)
      expect(personJob?.conclusion, why).toBe('success')
      // The review's job approved the gate, ran an iteration and dispatched the next one on main.
      const after = jobs.slice(before + 1)
      expect(after.length, why).toBeGreaterThan(0)
      expect(
        after.map((job) => [job.event, job.ref]),
        why,
      ).toEqual(after.map(() => ['workflow_dispatch', 'refs/heads/main']))
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      const dispatches = sandbox.api.exchanges.filter((e) => e.operationId === 'actions/create-workflow-dispatch')
      expect(
        dispatches.map((e) => e.status),
        why,
      ).toEqual(dispatches.map(() => 200))
      expectFaithful(scenario)
    },
    6 * MINUTE,
  )

  it(
    'SHIP waits with a green run and its pull request ready for review; the merge completes the loop',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        pipeline: '[IMPLEMENT, VERIFY, SHIP, COMPLETE]',
        sandbox: { actionDir: action.actionDir },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'ship' }, { actor: 'alice' })
      const waiting = await sandbox.waitForIdle(3 * MINUTE)
      let why = describeJobs(waiting)
      const before = waiting.length // the engine's live list: count it now
      const last = waiting.at(-1)!
      expect(last.outputs.status, why).toBe('waiting')
      expect(last.outputs.stage, why).toBe('SHIP')
      expect(
        waiting.map((job) => job.conclusion),
        why,
      ).toEqual(waiting.map(() => 'success'))
      expect(before, why).toBeGreaterThan(1)
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/ship')
      expect(pull, why).toBeDefined()
      // Opened as a draft, marked ready before the loop asked for the merge (GitHub merges no draft).
      expect(sandbox.api.exchanges.find((e) => e.operationId === 'pulls/create')?.requestBody).toMatchObject({
        draft: true,
      })
      expect(pull!.draft, why).toBe(false)

      const mergeJob = await sandbox.merge('alice', pull!.number)
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(mergeJob?.event, why).toBe('pull_request')
      expect(mergeJob?.ref, why).toBe(`refs/pull/${pull!.number}/merge`)
      expect(mergeJob?.conclusion, why).toBe('success')
      expect(mergeJob?.outputs.status, why).toBe('complete')
      // Nothing after the merge: a complete loop dispatches no further iteration.
      expect(jobs.slice(before), why).toHaveLength(1)
      expectFaithful(scenario)
    },
    6 * MINUTE,
  )
})
