/**
 * One concurrency group per loop, with `queue: max` (issue 13, point 4), end to end. The job a label
 * starts, every dispatched iteration and a person's comment on the issue share the loop's group, so a
 * comment waits for the running iteration instead of running beside it, and it is not cancelled when the
 * next iteration queues behind it. A comment on the loop's pull request cannot name the group: its job
 * records the command and dispatches the iteration into the group. The action is built from source.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { useActionFromSource } from '../security/source-bundle.js'
import { describeJobs, MINUTE, pullRequests, startScenario, until } from './fixtures.js'

const action = useActionFromSource()

/** Pairs of jobs that ran at the same time. */
function overlaps(jobs: readonly JobRecord[]): string[] {
  const ran = jobs.filter((job) => job.startedAt !== undefined && job.durationMs !== undefined)
  const found: string[] = []
  for (const a of ran) {
    for (const b of ran) {
      if (a.runId >= b.runId) continue
      const [aStart, aEnd] = [a.startedAt!, a.startedAt! + a.durationMs!]
      const [bStart, bEnd] = [b.startedAt!, b.startedAt! + b.durationMs!]
      if (aStart < bEnd && bStart < aEnd) found.push(`${a.runId} (${a.event}) with ${b.runId} (${b.event})`)
    }
  }
  return found
}

describe('one concurrency group per loop', () => {
  it(
    'a comment on the loop`s issue waits for the running iteration and is not cancelled by the next one',
    async () => {
      const scenario = await startScenario({ steps: 4, sandbox: { actionDir: action.actionDir } })
      const s = scenario
      const { sandbox } = s
      writeFileSync(join(s.signals, 'hold'), '')
      writeFileSync(join(s.signals, 'go-1'), '')
      const issue = await sandbox.openIssue('alice', 'Climb the stairs', 'Four steps.')
      await sandbox.label('alice', issue.number, 'loop')
      await until('iteration 2 to be working', () => existsSync(join(s.signals, 'work-2')))

      const { job: commentJob } = await sandbox.comment('alice', '/loop abort', issue.number)
      expect(commentJob, 'the workflow hears the comment').toBeDefined()
      await new Promise((resolve) => setTimeout(resolve, 1500))
      // The iteration holds the group: the comment waits its turn.
      expect(commentJob!.status, describeJobs(sandbox.jobs)).toBe('pending')
      writeFileSync(join(s.signals, 'go-2'), '')
      writeFileSync(join(s.signals, 'go-3'), '')

      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(overlaps(jobs), why).toEqual([])
      expect(
        jobs.filter((job) => job.conclusion === 'cancelled'),
        why,
      ).toEqual([])
      // The abort ran before the iteration queued behind it: that one found the loop aborted.
      expect(s.workRuns(), why).toEqual(['work-1', 'work-2'])
      expect(jobs.at(-1)?.outputs.status, why).toBe('aborted')
      expect(new Set(jobs.map((job) => job.concurrencyGroup?.toLowerCase()))).toEqual(
        new Set([`loop-controller-loop/issue-${issue.number}`]),
      )
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    5 * MINUTE,
  )

  it(
    'a comment on the loop`s pull request records the approval and dispatches the iteration into the group',
    async () => {
      const scenario = await startScenario({ steps: 3, editsConfig: true, sandbox: { actionDir: action.actionDir } })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' }, { actor: 'alice' })
      const atGate = await sandbox.waitForIdle(2 * MINUTE)
      expect(atGate.at(-1)?.outputs.status, describeJobs(atGate)).toBe('waiting')
      const before = atGate.length
      const pull = pullRequests(sandbox).find((p) => p.head === 'loop/gated')
      const runsAtGate = scenario.workRuns().length

      const { job: commentJob } = await sandbox.comment('alice', '/loop approve verifier', pull!.number)
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(commentJob?.conclusion, why).toBe('success')
      // The comment's job ran no iteration: no work, no iteration output; the next job did, in the group.
      expect(commentJob?.outputs.iteration, why).toBeUndefined()
      const next = jobs[before + 1]
      expect([next?.event, next?.concurrencyGroup], why).toEqual(['workflow_dispatch', 'loop-controller-loop/gated'])
      expect(scenario.workRuns().length, why).toBeGreaterThan(runsAtGate)
      expect(jobs.at(-1)?.outputs.status, why).toBe('complete')
      expect(overlaps(jobs.slice(before + 1)), why).toEqual([])
      expect(sandbox.api.violations).toEqual([])
      expect(sandbox.engine.problems).toEqual([])
    },
    5 * MINUTE,
  )
})
