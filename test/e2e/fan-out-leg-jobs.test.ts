// Fan-out's decide judges each leg's verdict by the leg's own job (GitHub's Jobs API,
// `actions/list-jobs-for-workflow-run-attempt`), end to end through the example workflow: a passing
// verdict planted under a leg's artifact name before the leg ran is not taken (the leg's own upload met
// 409, its job failed), and a leg that hung and was ended is charged its job's wall time, not its
// check's timeout.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { zipFolder } from '../sandbox/zip.js'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** The `plan.json` the plan handed on, read from its artifact in the run's artifact folder. */
function handedPlan(runArtifacts: string): { loopId: string; iteration: number; candidate: string; baseline: boolean } {
  const planArtifact = readdirSync(runArtifacts).find((name) => name.startsWith('loop-plan.attempt-'))
  if (!planArtifact) throw new Error(`no plan artifact in ${runArtifacts}: ${readdirSync(runArtifacts).join(', ')}`)
  const find = (dir: string): string | undefined => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isFile() && entry.name === 'plan.json') return path
      if (entry.isDirectory()) {
        const found = find(path)
        if (found) return found
      }
    }
    return undefined
  }
  const file = find(join(runArtifacts, planArtifact))
  if (!file) throw new Error(`no plan.json in ${planArtifact}`)
  return JSON.parse(readFileSync(file, 'utf8'))
}

describe('fan-out: a verdict forged under a leg artifact name', () => {
  it(
    "is not taken: the leg's job failed (its own upload met 409), so its check is an error and the loop does not complete",
    async () => {
      // The work is stuck: step-1 fails on the candidate, and only a forged pass could complete the loop.
      const scenario = await startFanOutScenario({}, { steps: 1, stuck: true, maxIterations: 1 })
      const { sandbox } = scenario
      let forged = ''
      // Stands for the plan's work on a runner without process isolation: it reads the runner's
      // ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL from the controller's /proc/<pid>/environ and uploads
      // a passing verdict as `loop-verdict-step-1.attempt-1` to the run's artifact service before the leg
      // runs, made as the plan ends and before any verify leg starts (this listener runs as the engine
      // records the plan's end). Decide lists the run's artifacts through the REST API, where it is. The
      // plan of the baseline round (which runs no work) is left alone.
      sandbox.engine.onJobFinished((job: JobRecord) => {
        if (job.name !== 'loop / plan' || job.conclusion !== 'success') return
        const runArtifacts = join(sandbox.root, 'artifacts', String(job.runId))
        const plan = handedPlan(runArtifacts)
        if (plan.baseline) return
        const artifact = 'loop-verdict-step-1'
        const name = `${artifact}.attempt-${job.runAttempt}`
        const folder = join(sandbox.root, 'forged', name)
        mkdirSync(folder, { recursive: true })
        const verdict = {
          version: 2,
          loopId: plan.loopId,
          iteration: plan.iteration,
          candidate: plan.candidate,
          leg: 'step-1',
          check: 'step-1',
          run: {
            exitCode: 0,
            signal: null,
            timedOut: false,
            durationMs: 5,
            output: 'all tests passed\n',
            totalBytes: 17,
            truncated: false,
          },
        }
        writeFileSync(join(folder, `${artifact}.json`), JSON.stringify(verdict))
        const { owner, name: repo } = sandbox.api.model.repo
        sandbox.results.publishStepArtifact({
          name,
          zip: zipFolder(folder),
          expiresAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
          repository: `${owner.login}/${repo}`,
          runId: job.runId,
          runAttempt: job.runAttempt,
          ref: job.ref,
        })
        forged = folder
      })
      await sandbox.dispatch({ 'loop-id': 'forged' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(forged, why).not.toBe('')
      const legs = jobsNamed(jobs, 'verify')
      expect(
        legs.map((job) => [job.name, job.conclusion]),
        why,
      ).toEqual([
        // The baseline round's leg, then iteration 1's.
        ['loop / verify (step-1)', 'success'],
        ['loop / verify (step-1)', 'failure'],
      ])
      expect(`${legs[1]?.stdout}${legs[1]?.stderr}`, why).toContain('(409) Conflict')
      const decide = jobsNamed(jobs, 'decide').at(-1)
      // One iteration allowed, and its check an error: the loop is capped there (the job fails so), not COMPLETE.
      expect(decide?.outputs.status, why).toBe('capped')
      expect(`${decide?.stdout}${decide?.summary}`, why).toContain(
        'loop-controller: no verdict from step-1: its verdict came from an artifact but its verify job concluded failure: not trusted',
      )
      const state = await savedState(scenario, 'forged')
      expect(state.status).toBe('capped')
      expect(
        sandbox.api.exchanges
          .filter((e) => e.operationId === 'actions/list-jobs-for-workflow-run-attempt')
          .map((e) => e.status),
      ).toEqual([200, 200])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

/** A check that passes before the work (the baseline, measured in its leg at the base) and hangs on the work's candidate (its leg). */
const HANGING_CHECK = `import { existsSync, readFileSync, writeFileSync } from 'node:fs'
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
if (have >= 1) {
  writeFileSync(process.env.E2E_SIGNAL_DIR + '/hanging', String(Date.now()))
  await new Promise((resolve) => setTimeout(resolve, 10 * 60_000))
}
console.log('check passed at progress ' + have)
`

describe('fan-out: a leg that hung and was ended without a verdict', () => {
  it(
    "is charged its job's wall time (the Jobs API's started and completed), not its check's 10-minute timeout",
    async () => {
      const project = { steps: 1, maxIterations: 1 }
      const config = staircaseConfigWith(
        'run: node tools/check.mjs 1\n    timeout: 30s',
        'run: node tools/hang.mjs\n    timeout: 10m',
        project,
      )
      expect(config).toContain('tools/hang.mjs')
      const scenario = await startFanOutScenario(
        { '.github/loop.yml': config, 'tools/hang.mjs': HANGING_CHECK },
        project,
      )
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'hung' })
      const hanging = join(scenario.signals, 'hanging')
      const deadline = Date.now() + 2 * MINUTE
      while (!existsSync(hanging) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      // Iteration 1's leg (the baseline round's, before the work, passed).
      const leg = sandbox.jobs.find((job) => job.name === 'loop / verify (step-1)' && job.status === 'running')
      expect(leg?.status, describeJobs(sandbox.jobs)).toBe('running')
      // The leg is ended as GitHub ends a job past its timeout-minutes: no step after it runs, no verdict.
      if (leg) sandbox.engine.cancel(leg, 'The job has exceeded the maximum execution time')
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(leg?.conclusion, why).toBe('cancelled')
      const decide = jobsNamed(jobs, 'decide').at(-1)
      expect(decide?.outputs.status, why).toBe('capped')
      expect(`${decide?.stdout}${decide?.summary}`, why).toContain(
        'loop-controller: no verdict from step-1: no verdict was uploaded',
      )
      const legWallMs = leg?.durationMs ?? 0
      expect(legWallMs, why).toBeGreaterThan(0)
      const state = await savedState(scenario, 'hung')
      // The iteration's time holds the leg's job time, and is far from the 10 minutes its timeout would be.
      expect(state.usage.wallMs, why).toBeGreaterThanOrEqual(Math.floor(legWallMs / 1000) * 1000)
      expect(state.usage.wallMs, why).toBeLessThan(10 * MINUTE)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
