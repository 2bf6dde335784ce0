// Fan-out's verify legs as a project needs them, end to end through the example workflow: each leg is a
// fresh runner, so it runs the loop config's `verify-setup` before its check (a build the check needs);
// a `needs` between checks, which a leg cannot honour, is refused by plan before the work runs.
import { describe, expect, it } from 'vitest'
import { jobsNamed, staircaseConfigWith, startFanOutScenario } from './fan-out-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'

checkOperationsExercised(import.meta.url)

/** The leg's setup: a "build" the `built` check needs, never committed (it is made in the leg alone). */
const SETUP = `import { writeFileSync } from 'node:fs'
writeFileSync('.leg-build', 'built\\n')
console.log('setup: built')
`
const BUILT = `import { existsSync } from 'node:fs'
if (!existsSync('.leg-build')) { console.error('FAIL .leg-build is missing: nothing was built'); process.exit(1) }
console.log('built check passed')
`

describe('fan-out legs: verify-setup', () => {
  it(
    'runs in every leg before its check, so a check that needs a build passes, and the loop reaches COMPLETE',
    async () => {
      const config = staircaseConfigWith(
        'checks:\n',
        'verify-setup: node tools/setup.mjs\nchecks:\n  - name: built\n    kind: build\n    run: node tools/built.mjs\n    timeout: 30s\n',
      )
      const scenario = await startFanOutScenario({
        '.github/loop.yml': config,
        'tools/setup.mjs': SETUP,
        'tools/built.mjs': BUILT,
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'setup' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const legs = jobsNamed(jobs, 'verify')
      expect(
        legs.map((job) => [job.matrix?.leg, job.conclusion]),
        why,
      ).toEqual([
        // The baseline round's legs, then each iteration's.
        ['built', 'success'],
        ['step-1', 'success'],
        ['step-2', 'success'],
        ['built', 'success'],
        ['step-1', 'success'],
        ['step-2', 'success'],
        ['built', 'success'],
        ['step-1', 'success'],
        ['step-2', 'success'],
      ])
      for (const leg of legs)
        expect(leg.stdout, why).toContain(`Leg ${leg.matrix?.leg}: verify-setup before the check.`)
      const decided = jobsNamed(jobs, 'decide').map((job) => job.outputs.status)
      expect(decided, why).toEqual(['running', 'running', 'complete'])
      expect(scenario.workRuns()).toEqual(['work-1', 'work-2'])
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})

describe('fan-out legs: a needs between checks', () => {
  it(
    'is refused by plan before the work runs, naming both checks and why',
    async () => {
      const config = staircaseConfigWith(
        'run: node tools/check.mjs 2\n',
        'run: node tools/check.mjs 2\n    needs: [step-1]\n',
      )
      const scenario = await startFanOutScenario({ '.github/loop.yml': config })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'needs' })
      const jobs = await sandbox.waitForIdle(2 * MINUTE)
      const plan = jobsNamed(jobs, 'plan')[0]
      expect(plan?.conclusion, describeJobs(jobs)).toBe('failure')
      expect(plan?.annotations.map((a) => a.message)).toContainEqual(
        expect.stringMatching(
          /^checks\.step-2\.needs: check 'step-2' needs 'step-1', and in fan-out each check runs in its own verify job on a fresh runner/,
        ),
      )
      expect(scenario.workRuns()).toEqual([])
      expectFaithful(scenario)
    },
    2 * MINUTE,
  )
})
