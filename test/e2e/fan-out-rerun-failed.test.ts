// Fan-out under GitHub's "Re-run failed jobs": a new attempt of the same run where only the failed jobs
// and the jobs after them run again; the others keep their result, outputs and artifacts of the attempt
// before. The plan job's output `plan-artifact` names the attempt-1 plan, and decide takes each leg's
// latest verdict and checks it against that leg's job of the attempt it came from.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  commitSubjects,
  describeJobs,
  expectFaithful,
  MINUTE,
  type Scenario,
  until,
  waitForWork,
} from './fixtures.js'
import { savedState, savedStateIfAny } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** The jobs of one attempt of a run, name and conclusion, by name; `anew` marks those that ran in it. */
function attemptOf(jobs: readonly JobRecord[], runId: number, attempt: number): [string, string | null, string][] {
  return jobs
    .filter((job) => job.runId === runId && job.runAttempt === attempt && job.name !== 'loop / loop iteration')
    .map((job): [string, string | null, string] => [job.name, job.conclusion, job.startedAt ? 'ran' : 'kept'])
    .sort(([a], [b]) => a.localeCompare(b))
}

/** How many workflow dispatches the loop's jobs made (their own token; the test's dispatch is a person's). */
function dispatchesByJobs(scenario: Pick<Scenario, 'sandbox'>): number {
  return scenario.sandbox.api.exchanges.filter(
    (e) => e.operationId === 'actions/create-workflow-dispatch' && e.tokenKind === 'installation' && e.status < 300,
  ).length
}

describe('fan-out: re-run failed jobs after decide failed', () => {
  it(
    "runs decide alone again: it takes attempt 1's plan and verdicts, the work ran once, and the loop reaches COMPLETE",
    async () => {
      const scenario = await startFanOutScenario({}, { steps: 1 })
      const { sandbox } = scenario
      // The baseline round's decide saves and dispatches iteration 1; then pushes are refused, before
      // iteration 1's decide (its plan and leg push nothing).
      let closed: Promise<void> | null = null
      sandbox.engine.onJobFinished((job: JobRecord) => {
        if (job.name !== 'loop / decide' || closed) return
        closed = sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, 'pushes are closed for maintenance')
      })
      const { runId: roundRun } = await sandbox.dispatch({ 'loop-id': 'decide-again' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      await closed
      const runId = jobsNamed(jobs, 'plan').find((job) => job.runId !== roundRun)?.runId ?? 0
      expect(attemptOf(jobs, runId, 1), describeJobs(jobs)).toEqual([
        ['loop / decide', 'failure', 'ran'],
        ['loop / plan', 'success', 'ran'],
        ['loop / verify (step-1)', 'success', 'ran'],
      ])
      // Decide failed at its push, and the state branch refused its save as well: nothing of iteration 1 is
      // kept, only the baseline round's state.
      expect((await savedStateIfAny(scenario, 'decide-again'))?.iteration).toBe(0)

      await sandbox.gitServer.rejectPushes(sandbox.gitRepositoryName, null)
      sandbox.engine.rerun(runId, 'failed')
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(attemptOf(jobs, runId, 2), why).toEqual([
        ['loop / decide', 'success', 'ran'],
        ['loop / plan', 'success', 'kept'],
        ['loop / verify (step-1)', 'success', 'kept'],
      ])
      expect(new Set(jobs.map((job) => job.runId)), why).toEqual(new Set([roundRun, runId]))
      // The kept plan hands on attempt 1's plan; decide of attempt 2 takes it and the kept leg's verdict.
      const plans = jobsNamed(jobs, 'plan').filter((job) => job.runId === runId)
      expect(plans.map((job) => [job.runAttempt, job.jobOutputs['plan-artifact']])).toEqual([
        [1, 'loop-plan.attempt-1'],
        [2, 'loop-plan.attempt-1'],
      ])
      const decide = jobsNamed(jobs, 'decide').find((job) => job.runAttempt === 2)
      expect(decide?.outputs.status, why).toBe('complete')
      expect(`${decide?.stdout}${decide?.stderr}`, why).not.toContain('not trusted')
      // The leg's verdict came from attempt 1: decide checked it against attempt 1's jobs (and its own attempt's).
      const listed = sandbox.api.exchanges
        .filter((e) => e.operationId === 'actions/list-jobs-for-workflow-run-attempt' && e.status === 200)
        .map((e) => e.path.replace(/^.*\/attempts\/(\d+)\/jobs.*$/, '$1'))
      expect([...new Set(listed)].sort(), why).toEqual(['1', '2'])
      // One agent call for the one iteration; nothing dispatched but iteration 1, by the baseline round's
      // decide (the loop is COMPLETE).
      expect(scenario.workRuns()).toEqual(['work-1'])
      expect(dispatchesByJobs(scenario)).toBe(1)
      const state = await savedState(scenario, 'decide-again')
      expect([state.status, state.iteration]).toEqual(['complete', 1])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `decide-again` · after 1 iteration/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

/**
 * A `lint` check that passes in the baseline (its leg, at the base), and hangs once in its verify leg (a runner that stops
 * answering): the test ends that job as GitHub ends one whose runner is lost. Every later run of it passes.
 */
const HANGS_ONCE = `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
const have = Number(readFileSync('progress.txt', 'utf8').trim() || 0)
const marker = process.env.E2E_SIGNAL_DIR + '/lint-hanging'
if (have >= 1 && !existsSync(marker)) {
  writeFileSync(marker, String(Date.now()))
  await new Promise((resolve) => setTimeout(resolve, 10 * 60_000))
}
console.log('lint passed at progress ' + have)
`

describe('fan-out: re-run failed jobs after a leg was lost', () => {
  it(
    "is moot once decide carried the loop on: the leg run anew refuses the old plan, decide runs no iteration, nothing is dispatched twice and the leg's infrastructure verdict stays",
    async () => {
      const project = { steps: 1 }
      const config = staircaseConfigWith(
        'checks:\n',
        'checks:\n  - name: lint\n    kind: lint\n    run: node tools/lint.mjs\n    timeout: 10m\n',
        project,
      )
      const scenario = await startFanOutScenario({ '.github/loop.yml': config, 'tools/lint.mjs': HANGS_ONCE }, project)
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'lost-leg' })
      await until('the lint leg to hang', () => existsSync(join(scenario.signals, 'lint-hanging')), 2 * MINUTE)
      // Iteration 1's lint leg (the baseline round's passed, before the work): its run is the one re-run.
      const lint = sandbox.jobs.find((job) => job.name === 'loop / verify (lint)' && job.status === 'running')
      expect(lint?.status, describeJobs(sandbox.jobs)).toBe('running')
      const runId = lint?.runId ?? 0
      // Its runner is lost: GitHub ends the job, no step after it runs, no verdict is uploaded.
      if (lint) sandbox.engine.cancel(lint, 'The runner has received a shutdown signal.')
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      let why = describeJobs(jobs)
      expect(attemptOf(jobs, runId, 1), why).toEqual([
        ['loop / decide', 'success', 'ran'],
        ['loop / plan', 'success', 'ran'],
        ['loop / verify (lint)', 'cancelled', 'ran'],
        ['loop / verify (step-1)', 'success', 'ran'],
      ])
      // After the baseline round, decide of attempt 1 judged the lost leg (infrastructure), saved iteration 1
      // and dispatched iteration 2, which verified the same work again without an agent call (an
      // infrastructure failure is no reason to change the code) and completed the loop.
      expect(jobsNamed(jobs, 'decide').map((job) => job.outputs.status)).toEqual(['running', 'running', 'complete'])
      expect(scenario.workRuns()).toEqual(['work-1'])
      const before = await savedState(scenario, 'lost-leg')
      const branchBefore = await commitSubjects(sandbox, 'refs/heads/loop/lost-leg')
      expect(dispatchesByJobs(scenario)).toBe(2)

      sandbox.engine.rerun(runId, 'failed')
      jobs = await sandbox.waitForIdle(3 * MINUTE)
      why = describeJobs(jobs)
      expect(attemptOf(jobs, runId, 2), why).toEqual([
        ['loop / decide', 'success', 'ran'],
        ['loop / plan', 'success', 'kept'],
        ['loop / verify (lint)', 'failure', 'ran'],
        ['loop / verify (step-1)', 'success', 'kept'],
      ])
      // The leg run anew refuses the kept plan: it was made on the loop's branch before iteration 1.
      const lintAgain = jobsNamed(jobs, 'verify').find((job) => job.runAttempt === 2 && job.startedAt !== undefined)
      expect(`${lintAgain?.stdout}${lintAgain?.stderr}`, why).toMatch(
        /The plan built on [0-9a-f]{40}; the loop's branch here is at [0-9a-f]{40}/,
      )
      // Decide of attempt 2 (its run dispatched for iteration 1, which ran) is superseded: it runs no
      // iteration, saves nothing, and leaves the status comment as iteration 2 left it.
      const decide = jobsNamed(jobs, 'decide').find((job) => job.runId === runId && job.runAttempt === 2)
      expect(decide?.outputs.status, why).toBe('superseded')
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `lost-leg` · after 2 iterations/)
      expect(botComments(sandbox)[0]?.body).toMatch(/Checks of iteration 2: ✅/)
      // No second agent call, no third iteration, no dispatch, the branch as it was, the verdict kept.
      expect(scenario.workRuns()).toEqual(['work-1'])
      expect(dispatchesByJobs(scenario)).toBe(2)
      expect(await commitSubjects(sandbox, 'refs/heads/loop/lost-leg')).toEqual(branchBefore)
      const after = await savedState(scenario, 'lost-leg')
      expect([after.status, after.iteration]).toEqual(['complete', 2])
      expect(after.failures.history).toEqual(before.failures.history)
      expect(after.failures.history.map((f) => [f.iteration, f.check, f.pattern])).toEqual([
        [1, 'lint', 'infrastructure'],
      ])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

describe('fan-out: re-run failed jobs while the loop runs on', () => {
  it(
    "of iteration 1's run, clicked while a later iteration runs: it waits for that run, and dispatches nothing again",
    async () => {
      const project = { steps: 3 }
      const config = staircaseConfigWith(
        'checks:\n',
        'checks:\n  - name: lint\n    kind: lint\n    run: node tools/lint.mjs\n    timeout: 10m\n',
        project,
      )
      // The baseline round, four runs and a re-run: more jobs than the scenarios' usual bound of 30.
      const files = { '.github/loop.yml': config, 'tools/lint.mjs': HANGS_ONCE }
      const scenario = await startFanOutScenario(files, project, { maxJobs: 60 })
      const { sandbox } = scenario
      // Iteration 1's lint leg is lost; iteration 2 verifies the same work again (no agent call), and
      // iteration 3's work waits for its go: the person clicks "Re-run failed jobs" on run 1 meanwhile.
      writeFileSync(join(scenario.signals, 'hold'), 'wait for go-<iteration>\n')
      for (const iteration of [1, 2, 4]) writeFileSync(join(scenario.signals, `go-${iteration}`), 'go\n')
      await sandbox.dispatch({ 'loop-id': 'runs-on' })
      await until('the lint leg to hang', () => existsSync(join(scenario.signals, 'lint-hanging')), 2 * MINUTE)
      // Iteration 1's lint leg (the baseline round's passed, before the work).
      const lint = sandbox.jobs.find((job) => job.name === 'loop / verify (lint)' && job.status === 'running')
      if (lint) sandbox.engine.cancel(lint, 'The runner has received a shutdown signal.')
      const runId = lint?.runId ?? 0
      await waitForWork(scenario, 3, 2 * MINUTE)
      sandbox.engine.rerun(runId, 'failed')
      // The re-run's calling job waits in the caller's concurrency group behind run 3, and there it is
      // ahead of run 4, which run 3 dispatches as it ends: its decide finds the loop past iteration 1, for
      // which its run was dispatched, and is superseded.
      writeFileSync(join(scenario.signals, 'go-3'), 'go\n')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const decide = jobsNamed(jobs, 'decide').find((job) => job.runId === runId && job.runAttempt === 2)
      expect(decide?.outputs.status, why).toBe('superseded')
      // It started after run 3's last job (the caller's concurrency group) and dispatched nothing (below).
      const run3Id = jobsNamed(jobs, 'plan').find((job) => job.outputs.iteration === '3')?.runId
      const run3 = jobs.filter((job) => job.runId === run3Id && job.startedAt !== undefined)
      const run3Ended = Math.max(...run3.map((job) => (job.startedAt ?? 0) + (job.durationMs ?? 0)))
      expect(decide?.startedAt ?? 0, why).toBeGreaterThanOrEqual(run3Ended)
      // The baseline round, one run per iteration, each planned once, one dispatch of each next iteration:
      // the loop reaches COMPLETE.
      expect(new Set(jobs.map((job) => job.runId)).size, why).toBe(5)
      const planned = jobsNamed(jobs, 'plan').filter((job) => job.startedAt !== undefined)
      expect(planned.map((job) => job.outputs.iteration)).toEqual(['1', '1', '2', '3', '4'])
      expect(dispatchesByJobs(scenario)).toBe(4)
      expect(scenario.workRuns()).toEqual(['work-1', 'work-3', 'work-4'])
      const state = await savedState(scenario, 'runs-on')
      expect([state.status, state.iteration]).toEqual(['complete', 4])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
