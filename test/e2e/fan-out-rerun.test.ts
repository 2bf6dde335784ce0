// Fan-out and the re-run buttons: "Re-run all jobs" is a new attempt of the same run, which keeps the
// artifacts of the attempts before it; the hand-off artifacts name their attempt, so the new plan's and
// legs' uploads do not collide with the old ones, and decide takes the new attempt's. A leg whose
// controller fails hands its error on to decide under a name that says it failed.
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { jobsNamed, startFanOutScenario } from './fan-out-fixtures.js'
import { botComments, checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'

checkOperationsExercised(import.meta.url)

describe('fan-out: re-run all jobs', () => {
  it(
    'after a decide that failed (its push refused), a re-run of the run plans, verifies and decides again, and the loop reaches COMPLETE',
    async () => {
      const scenario = await startFanOutScenario({}, { steps: 1 })
      const { sandbox } = scenario
      // The baseline round's decide saves and dispatches iteration 1; then pushes are refused, before
      // iteration 1's decide (its plan and leg push nothing).
      let closed: Promise<void> | null = null
      sandbox.engine.onJobFinished((job) => {
        if (job.name !== 'loop / decide' || closed) return
        closed = sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, 'pushes are closed for maintenance')
      })
      const { runId: roundRun } = await sandbox.dispatch({ 'loop-id': 'again' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      await closed
      const fanOut = (attempt: number) =>
        jobs
          .filter((job) => job.runId !== roundRun && job.runAttempt === attempt && job.name !== 'loop / loop iteration')
          .map((job) => [job.name, job.conclusion])
          .sort(([a], [b]) => String(a).localeCompare(String(b)))
      expect(fanOut(1), describeJobs(jobs)).toEqual([
        ['loop / decide', 'failure'],
        ['loop / plan', 'success'],
        ['loop / verify (step-1)', 'success'],
      ])
      const runId = jobsNamed(jobs, 'plan').find((job) => job.runId !== roundRun)?.runId ?? 0
      await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, null)
      sandbox.engine.rerun(runId)
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      // The second attempt is the same run: its plan's and its leg's uploads do not collide with the first's.
      expect(fanOut(2), why).toEqual([
        ['loop / decide', 'success'],
        ['loop / plan', 'success'],
        ['loop / verify (step-1)', 'success'],
      ])
      expect(new Set(jobs.map((job) => job.runId))).toEqual(new Set([roundRun, runId]))
      const decide = jobs.find((job) => job.runAttempt === 2 && job.name === 'loop / decide')
      expect(decide?.outputs.status, why).toBe('complete')
      // Each attempt planned iteration 1 (the first attempt's plan was never kept), and handed it on as its own.
      const plans = jobsNamed(jobs, 'plan').filter((job) => job.runId === runId)
      expect(plans.map((job) => [job.runAttempt, job.outputs.iteration, job.jobOutputs['plan-artifact']])).toEqual([
        [1, '1', 'loop-plan.attempt-1'],
        [2, '1', 'loop-plan.attempt-2'],
      ])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `again` · after 1 iteration/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

/** Local git on the remote's bare repository (no server involved: safe to call synchronously here). */
function bareGit(bareDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', bareDir, ...args], { encoding: 'utf8' }).trim()
}

describe('fan-out: a leg whose controller fails', () => {
  it(
    "hands its error on: decide names it in the check's error (infrastructure), never a pass, and the loop goes on",
    async () => {
      const scenario = await startFanOutScenario({}, { steps: 1 })
      const { sandbox } = scenario
      const bare = sandbox.git.bareDir
      const branch = 'refs/heads/loop/moved'
      // Someone pushes to the loop's branch after iteration 1's plan (the leg then refuses the plan's base),
      // and the branch is gone again before decide: decide takes the plan, and judges the leg by its error.
      // Each runs as the job ends, before the next job of the run starts. The baseline round's run (no
      // work, before iteration 1) is left alone.
      let movedIn: number | undefined
      sandbox.engine.onJobFinished((job) => {
        const round = job.stdout.includes('Planned the baseline round')
        if (job.name === 'loop / plan' && !round && movedIn === undefined) {
          movedIn = job.runId
          const main = bareGit(bare, ['rev-parse', 'refs/heads/main'])
          const tree = bareGit(bare, ['rev-parse', `${main}^{tree}`])
          const other = bareGit(bare, ['commit-tree', tree, '-p', main, '-m', 'someone else'])
          bareGit(bare, ['update-ref', branch, other])
        }
        if (job.name.startsWith('loop / verify') && job.runId === movedIn) bareGit(bare, ['update-ref', '-d', branch])
      })
      await sandbox.dispatch({ 'loop-id': 'moved' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const legs = jobs.filter((job) => job.name.startsWith('loop / verify') && job.runId === movedIn)
      expect(
        legs.map((job) => job.conclusion),
        why,
      ).toEqual(['failure'])
      // The failed leg uploaded its error under its failed name, by the workflow's upload step.
      expect(legs[0]?.steps.map((step) => step.outcome).slice(-2)).toEqual(['failure', 'success'])
      const decides = jobsNamed(jobs, 'decide')
      expect(decides.map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      const state = JSON.parse(bareGit(bare, ['show', 'loop-state:moved/loop-state.json']))
      const failures = state.failures.history as { iteration: number; check: string; pattern: string; error: string }[]
      expect(failures.map((f) => [f.iteration, f.check, f.pattern])).toEqual([[1, 'step-1', 'infrastructure']])
      expect(failures[0]?.error).toMatch(
        /no verdict from step-1: its verify job failed: The plan built on [0-9a-f]{40}; the loop's branch here is at [0-9a-f]{40}/,
      )
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
