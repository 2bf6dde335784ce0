// examples/workflows/loop-fan-out.yml with its dashboard hint followed (`dashboard: true`, `edited` among
// the issue types), as a user would: the job's `if:` lets through an edit of the dashboard issue (a tick
// is one), which decide reads for ticks, and no edit of any other issue. The tick is a real one: a writer
// aborts a loop waiting at its gate, and the rewrite drops the box and says what the tick did.
import { describe, expect, it } from 'vitest'
import { dashboardRow, dashboards, ticked } from './dashboard-fixtures.js'
import { FAN_OUT_EXAMPLE, jobsNamed } from './fan-out-fixtures.js'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  startScenario,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** The example with its dashboard hint followed; throws when the example no longer reads as the hint says. */
function exampleWithDashboard(): string {
  const types = '    types: [labeled]   # [labeled, edited] with `dashboard: true`\n'
  const fanOut = '      fan-out: true\n'
  if (!FAN_OUT_EXAMPLE.includes(types) || !FAN_OUT_EXAMPLE.includes(fanOut)) {
    throw new Error(`loop-fan-out.yml no longer has the lines its dashboard hint names:\n${FAN_OUT_EXAMPLE}`)
  }
  return FAN_OUT_EXAMPLE.replace(types, '    types: [labeled, edited]\n').replace(
    fanOut,
    `${fanOut}      dashboard: true\n`,
  )
}

describe('the fan-out example with the dashboard', () => {
  it(
    "runs on an edit of the dashboard issue and on no other edit: a writer's tick aborts the loop at its gate, plan plans nothing, decide applies it and rewrites the dashboard",
    async () => {
      // The work edits the loop config, which raises the `verifier` gate: the loop waits there, its boxes offered.
      const scenario = await startScenario({
        steps: 1,
        sandbox: {
          repoFiles: {
            ...projectFiles({ steps: 1, editsConfig: true }),
            '.github/workflows/loop-fan-out.yml': exampleWithDashboard(),
          },
          workflow: { file: 'loop-fan-out.yml' },
        },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'dash' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      // The baseline round's decide, then iteration 1's.
      expect(
        jobsNamed(jobs, 'decide').map((job) => job.outputs.status),
        describeJobs(jobs),
      ).toEqual(['running', 'waiting'])
      const [dashboard] = dashboards(sandbox)
      const abortBox = '- [ ] <!-- loop-dashboard:abort:dash -->'
      expect(dashboard?.body, describeJobs(jobs)).toContain(abortBox)

      // An edit of another issue: the job's `if:` holds it back, nothing of the loop runs.
      const other = await sandbox.openIssue('alice', 'Unrelated', 'Some text')
      let before = jobs.length
      await sandbox.editIssue('alice', other.number, 'Some other text')
      jobs = await sandbox.waitForIdle(MINUTE)
      expect(
        jobs.slice(before).filter((job) => job.conclusion !== 'skipped'),
        describeJobs(jobs),
      ).toEqual([])

      // alice ticks the abort: the run plans nothing, and decide applies the tick.
      before = jobs.length
      await sandbox.editIssue('alice', dashboard!.number, ticked(dashboard!.body!, 'abort:dash'))
      jobs = await sandbox.waitForIdle(MINUTE)
      const edit = jobs.slice(before)
      const why = describeJobs(jobs)
      const ran = edit.filter((job) => job.name !== 'loop / loop iteration')
      expect(ran.map((job) => [job.name, job.conclusion]).sort(), why).toEqual([
        ['loop / decide', 'success'],
        ['loop / plan', 'success'],
        ['loop / verify', 'skipped'],
      ])
      expect(jobsNamed(edit, 'plan')[0]?.steps.find((step) => step.id === 'plan')?.outcome, why).toBe('skipped')
      expect(jobsNamed(edit, 'decide')[0]?.stdout, why).toMatch(/Dashboard edit by alice: 1 tick\(s\) read/)
      const state = await savedState(scenario, 'dash')
      expect([state.status, state.statusReason], why).toEqual(['aborted', 'aborted by alice'])
      const body = dashboards(sandbox)[0]?.body ?? ''
      expect(body, why).not.toContain('<!-- loop-dashboard:abort:dash -->')
      expect(body, why).toMatch(/- alice ticked abort `dash`: done/)
      expect(dashboardRow(body, 'dash')?.[2], why).toBe('aborted')
      expect(scenario.workRuns()).toEqual(['work-1'])
      expectFaithful(scenario)
    },
    3 * MINUTE,
  )
})
