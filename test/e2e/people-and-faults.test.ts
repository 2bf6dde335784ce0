// End to end: the built action (dist/index.js) in the GitHub sandbox, with people and faults: a gate
// refused from a reader and approved by a writer, the cache evicted mid-loop, a push race (rebased,
// or BLOCKED on a conflict), the API failing with 5xx and secondary rate limits, a fork's
// pull_request_target refused.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  botComments,
  checkOperationsExercised,
  commitSubjects,
  describeJobs,
  expectFaithful,
  MINUTE,
  pullRequests,
  startScenario,
  waitForWork,
} from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: people and faults', () => {
  it(
    'waits at the verifier gate (the work edited the loop config), ignores a reader`s approval, continues after a writer`s `/loop approve`',
    async () => {
      const scenario = await startScenario({ steps: 2, editsConfig: true })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      const waiting = jobs.at(-1)!
      expect(waiting.outputs.status, why).toBe('waiting')
      expect(waiting.conclusion).toBe('success')
      const runsAtGate = scenario.workRuns().length
      const comment = botComments(sandbox)
      expect(comment).toHaveLength(1)
      expect(comment[0]!.body).toMatch(/\/loop approve verifier/)
      expect(scenario.workRuns()).toEqual(['work-1'])

      // bob may comment but not push: his approval is ignored with the reason in the log.
      await sandbox.comment('bob', '/loop approve verifier')
      const refused = (await sandbox.waitForIdle(MINUTE)).at(-1)!
      expect(refused.stdout).toMatch(/Command from @bob: .*write, maintain or admin is needed/)
      expect(scenario.workRuns()).toHaveLength(runsAtGate)

      await sandbox.comment('alice', '/loop approve verifier')
      const all = await sandbox.waitForIdle(2 * MINUTE)
      const end = all.at(-1)!
      expect(end.outputs.status, describeJobs(all)).toBe('complete')
      expect(all.find((job) => job.stdout.includes('Command from @alice'))).toBeDefined()
      expect(scenario.workRuns().length).toBeGreaterThan(runsAtGate)
      expect(botComments(sandbox)).toHaveLength(1)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'carries on from the artifact when the cache is evicted mid-loop',
    async () => {
      // The cache and artifact store (`auto`), chosen as a user would; the default is the git branch.
      const scenario = await startScenario({ steps: 3, workflowWith: { store: 'auto' } })
      const { sandbox } = scenario
      let evicted = 0
      sandbox.engine.onJobFinished((job) => {
        if (job.outputs.iteration === '1') evicted = sandbox.results.evict()
      })
      await sandbox.dispatch({ 'loop-id': 'evicted' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(evicted, 'cache entries evicted after job 1').toBeGreaterThan(0)
      expect(
        jobs.map((job) => job.outputs.iteration),
        why,
      ).toEqual(['1', '2', '3'])
      expect(jobs.at(-1)!.outputs.status).toBe('complete')
      // Job 2 found no cache entry and read the newest artifact snapshot.
      expect(jobs[1]!.stdout).toContain('the cache holds no state for loop evicted (evicted or another branch')
      // Job 2 saved to the cache again, so job 3 reads its state from the cache (the same RUNNER_TEMP
      // path in every job, as on a runner, keeps the cache version the same).
      expect(jobs[2]!.stdout).toContain('Cache hit for restore-key: loop-state-evicted.')
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])
      expect(await sandbox.git.show('loop/evicted', 'progress.txt')).toBe('3\n')
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'rebases over a commit someone else pushed to the loop branch mid-iteration, and continues',
    async () => {
      const scenario = await startScenario({ steps: 2 })
      const { sandbox } = scenario
      writeFileSync(join(scenario.signals, 'hold'), '')
      await sandbox.dispatch({ 'loop-id': 'race' })
      writeFileSync(join(scenario.signals, 'go-1'), '')
      await waitForWork(scenario, 2)
      // Iteration 2 is between its checkout and its push: a person pushes to the same branch.
      await sandbox.git.commit('loop/race', { 'NOTES.md': 'a note from a person\n' }, 'Add a note', 'alice')
      writeFileSync(join(scenario.signals, 'go-2'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const why = describeJobs(jobs)
      expect(jobs.at(-1)!.outputs.status, why).toBe('complete')
      const subjects = await commitSubjects(sandbox, 'loop/race')
      expect(subjects, 'the person`s commit stays (no force push)').toContain('Add a note')
      expect(subjects.indexOf('Add a note')).toBeGreaterThan(0) // the loop's commit was rebased on top of it
      expect(await sandbox.git.show('loop/race', 'NOTES.md')).toBe('a note from a person\n')
      expect(await sandbox.git.show('loop/race', 'progress.txt')).toBe('2\n')
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'ends BLOCKED with merge-conflict when someone else`s push conflicts, never forcing over it',
    async () => {
      const scenario = await startScenario({ steps: 3 })
      const { sandbox } = scenario
      writeFileSync(join(scenario.signals, 'hold'), '')
      await sandbox.dispatch({ 'loop-id': 'clash' })
      writeFileSync(join(scenario.signals, 'go-1'), '')
      await waitForWork(scenario, 2)
      const theirs = await sandbox.git.commit('loop/clash', { 'progress.txt': '7\n' }, 'Set progress by hand', 'alice')
      writeFileSync(join(scenario.signals, 'go-2'), '')
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const last = jobs.at(-1)!
      expect(last.outputs.status, describeJobs(jobs)).toBe('blocked')
      expect(last.conclusion).toBe('failure')
      expect(
        last.summary +
          botComments(sandbox)
            .map((c) => c.body)
            .join('\n'),
      ).toMatch(/merge-conflict/)
      // The remote branch is the person's commit, untouched.
      expect(sandbox.git.resolveRef('refs/heads/loop/clash')).toBe(theirs)
      expect(await sandbox.git.show('loop/clash', 'progress.txt')).toBe('7\n')
      expect(jobs).toHaveLength(2)
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )

  it(
    'finishes through 5xx answers and secondary rate limits without a double comment',
    async () => {
      const scenario = await startScenario({ steps: 3 })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'flaky' })
      sandbox.api.inject({ match: 'POST /repos/*/*/actions/workflows/*/dispatches', status: 502, times: 2 })
      sandbox.api.inject({ match: 'POST /repos/*/*/issues/*/comments', status: 503, times: 1 })
      sandbox.api.inject({
        match: 'PATCH /repos/*/*/issues/comments/*',
        secondaryRateLimit: { retryAfterSeconds: 1 },
        times: 1,
      })
      sandbox.api.inject({ match: 'POST /repos/*/*/pulls', status: 500, times: 1 })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => job.outputs.status),
        why,
      ).toEqual(['running', 'running', 'complete'])
      expect(jobs.every((job) => job.conclusion === 'success')).toBe(true)
      expect(botComments(sandbox)).toHaveLength(1)
      expect(pullRequests(sandbox)).toHaveLength(1)
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2', 'work-3'])
      const faulted = sandbox.api.exchanges.filter((exchange) => exchange.fault)
      expect(faulted.length).toBeGreaterThanOrEqual(4)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )

  it(
    'refuses a pull_request_target from a fork: the step fails with the reason and no work runs',
    async () => {
      const scenario = await startScenario({ steps: 2 })
      const { sandbox } = scenario
      const { job } = await sandbox.openForkPullRequest('mallory', {
        branch: 'patch-1',
        files: { 'tools/work.mjs': 'console.log("mallory was here")\n' },
        title: 'Improve the work',
      })
      const jobs = await sandbox.waitForIdle(MINUTE)
      expect(job ?? jobs.at(-1), describeJobs(jobs)).toBeDefined()
      const refused = jobs.at(-1)!
      expect(refused.event).toBe('pull_request_target')
      expect(refused.conclusion).toBe('failure')
      const errors = refused.annotations.filter((annotation) => annotation.level === 'error').map((a) => a.message)
      expect(errors.join('\n')).toMatch(/pull_request_target/)
      expect(errors.join('\n')).toMatch(/fork|untrusted/i)
      expect(scenario.workRuns()).toEqual([])
      expect(botComments(sandbox)).toEqual([])
      expect(jobs).toHaveLength(1)
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})
