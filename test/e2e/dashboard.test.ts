// End to end: `dashboard: true`. Two loops run at once, one to BLOCKED and one to its cap: after each of
// their jobs the one pinned `Loop dashboard` issue lists the loop as that job left it. An edit of another
// issue does nothing; bob's tick (he may edit issues, the API reports him as read) is refused and said
// under the table, the box unticked again; alice's tick resumes the BLOCKED loop, whose next iteration is
// dispatched and completes. Then a loop waits at a gate, and a tick on `Approve gate` lets it complete; a
// tick on that box in a body that still shows it afterwards is said under the table and unticked.
import { describe, expect, it } from 'vitest'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { dashboardBody, dashboardRow, dashboards, ticked } from './dashboard-fixtures.js'
import { checkOperationsExercised, describeJobs, expectFaithful, MINUTE, startScenario } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

describe('the action bundle in the sandbox: the dashboard', () => {
  it(
    'lists a BLOCKED and a capped loop after each job; a reader`s tick is refused and said, a writer`s resumes',
    async () => {
      const scenario = await startScenario({
        stuck: true,
        steps: 1,
        issueTypes: ['labeled', 'edited'],
        workflowWith: {
          dashboard: 'true',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
          'max-iterations': "${{ inputs.loop-id == 'capped' && '2' || '' }}",
        },
      })
      const { sandbox } = scenario
      // What each loop job left on the dashboard, read the moment the job ended.
      const seen: { job: JobRecord; row: string[] | undefined; open: number }[] = []
      sandbox.engine.onJobFinished((job) => {
        const loopId = job.inputs['loop-id']
        if (job.event !== 'workflow_dispatch' || !loopId) return
        const open = dashboards(sandbox)
        seen.push({ job, row: dashboardRow(open[0]?.body ?? '', loopId), open: open.length })
      })
      await sandbox.dispatch({ 'loop-id': 'stuck' })
      await sandbox.dispatch({ 'loop-id': 'capped' })
      let jobs = await sandbox.waitForIdle(3 * MINUTE)
      let why = describeJobs(jobs)
      const last = (loopId: string) => jobs.filter((job) => job.inputs['loop-id'] === loopId).at(-1)
      expect(last('stuck')?.outputs.status, why).toBe('blocked')
      expect(last('capped')?.outputs.status, why).toBe('capped')
      expect(seen.length, why).toBe(jobs.length)
      for (const { job, row, open } of seen) {
        // A job that ends while the other opens its own (a race both lost) sees two; the lower is the kept one.
        expect(open, why).toBeGreaterThanOrEqual(1)
        expect(row?.slice(2, 4), `after run ${job.runId}\n${why}`).toEqual([
          job.outputs.status,
          `${job.outputs.iteration} of ${job.inputs['loop-id'] === 'capped' ? 2 : 8}`,
        ])
        expect(row?.[8], why).toContain(`run ${job.runId}`)
      }
      // Exactly one dashboard, pinned, and the only pinned issue; a duplicate from the race is closed.
      const [dashboard] = dashboards(sandbox)
      expect(dashboard?.pinned, why).toBe(true)
      expect([...sandbox.api.model.issues.values()].filter((issue) => issue.pinned)).toHaveLength(1)
      let body = dashboardBody(sandbox)
      expect(body).toContain('<!-- loop-dashboard:resume:stuck -->')
      expect(body).not.toContain('loop-dashboard:resume:capped')
      const dashboardNumber = dashboard!.number
      const jobsBefore = jobs.length

      // Another issue edited: a job runs (the workflow listens to edits) and ends before it reads a config
      // or a state (no state path said), writing nothing: no state, no comment, the dashboard as it was.
      const other = sandbox.api.model.createIssue(sandbox.api.model.user('alice'), 'Notes', 'draft')
      const stateTip = sandbox.engine.resolveRef('refs/heads/loop-state')
      const comments = sandbox.api.model.comments.length
      const otherJob = await sandbox.editIssue('alice', other.number, 'draft, edited')
      jobs = await sandbox.waitForIdle(MINUTE)
      expect(otherJob?.conclusion, describeJobs(jobs)).toBe('success')
      expect(otherJob?.stdout).toMatch(/Nothing for the loop in this issues event: issues edited\./)
      expect(otherJob?.outputs['state-path']).toBeUndefined()
      expect(jobs).toHaveLength(jobsBefore + 1)
      expect(dashboardBody(sandbox)).toBe(body)
      expect(sandbox.engine.resolveRef('refs/heads/loop-state')).toBe(stateTip)
      expect(sandbox.api.model.comments).toHaveLength(comments)

      // bob ticks: refused, said under the table, the box unticked again, nothing dispatched.
      const bobJob = await sandbox.editIssue('bob', dashboardNumber, ticked(body, 'resume:stuck'))
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      expect(bobJob?.conclusion, why).toBe('success')
      expect(bobJob?.stdout).toMatch(/Dashboard tick from @bob: .*write, maintain or admin is needed/)
      expect(jobs, why).toHaveLength(jobsBefore + 2)
      body = dashboardBody(sandbox)
      expect(body).toMatch(/- bob ticked resume `stuck`: refused, nothing changed \(bob has triage permission/)
      expect(body).toContain('- [ ] <!-- loop-dashboard:resume:stuck -->')
      expect(dashboardRow(body, 'stuck')?.[2]).toBe('blocked')

      // alice unblocks the branch and ticks: the loop resumes, its next iteration is dispatched and completes.
      await sandbox.git.commit(
        'loop/stuck',
        { 'unblocked.txt': 'a person did what the agent could not\n' },
        'Unblock',
        'alice',
      )
      const aliceJob = await sandbox.editIssue('alice', dashboardNumber, ticked(body, 'resume:stuck'))
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      expect(aliceJob?.conclusion, why).toBe('success')
      const resumed = jobs.at(-1)!
      expect(resumed.event, why).toBe('workflow_dispatch')
      expect(resumed.inputs['loop-id'], why).toBe('stuck')
      expect(resumed.outputs.status, why).toBe('complete')
      body = dashboardBody(sandbox)
      expect(dashboardRow(body, 'stuck')?.slice(1, 3)).toEqual(['COMPLETE', 'complete'])
      expect(body).not.toContain('loop-dashboard:resume:stuck')
      expect(body).toMatch(/- alice ticked resume `stuck`: iteration \d+ dispatched/)
      // The loop's own report links the dashboard; the dashboard says which run rewrote it last.
      expect(resumed.summary, why).toContain(`dashboard: [\\#${dashboardNumber}](`)
      expect(body).toMatch(/^Rewritten \d{4}-\d\d-\d\d \d\d:\d\d UTC by \[run \d+\]\(/m)
      // The summary links the dashboard it read the ticks on.
      expect(aliceJob?.summary).toMatch(
        /Ticks on \[\\#(\d+)\]\(https:\/\/github\.com\/acme\/demo\/issues\/\1\):\n\n- alice ticked resume `stuck`: iteration \d+ dispatched/,
      )
      const state = await savedState(scenario, 'stuck')
      expect(state.lastRun).toEqual({
        id: String(resumed.runId),
        url: expect.stringContaining(`/runs/${resumed.runId}`),
      })
      // The tick's command joined the loop's audit trail, which the tick's job brought back first.
      expect(await sandbox.git.show('loop-state', 'stuck/audit/iterations/1.md')).toBeDefined()
      expect(await sandbox.git.show('loop-state', 'stuck/audit/journey-log.jsonl')).toMatch(/resumed by alice/)
      expect(dashboards(sandbox)).toHaveLength(1)
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )

  it(
    'a tick on `Approve gate verifier` lets the waiting loop complete',
    async () => {
      const scenario = await startScenario({
        steps: 2,
        editsConfig: true,
        issueTypes: ['labeled', 'edited'],
        workflowWith: { dashboard: 'true' },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'gated' })
      let jobs = await sandbox.waitForIdle(2 * MINUTE)
      let why = describeJobs(jobs)
      expect(jobs.at(-1)?.outputs.status, why).toBe('waiting')
      const body = dashboardBody(sandbox)
      expect(dashboardRow(body, 'gated')?.[2]).toBe('waiting')
      const [dashboard] = dashboards(sandbox)
      await sandbox.editIssue('alice', dashboard!.number, ticked(body, 'approve=verifier:gated'))
      jobs = await sandbox.waitForIdle(2 * MINUTE)
      why = describeJobs(jobs)
      const end = jobs.at(-1)!
      expect([end.event, end.outputs.status], why).toEqual(['workflow_dispatch', 'complete'])
      expect(dashboardRow(dashboardBody(sandbox), 'gated')?.[2]).toBe('complete')
      expect(dashboardBody(sandbox)).not.toContain('- [ ]')

      // A box the loop has moved past, still in the body (as when the rewrite at the end of the loop's last
      // job did not land: a failed rewrite only warns): its tick does nothing, is said and unticked.
      sandbox.api.model.issue(dashboard!.number).body = body
      const staleJob = await sandbox.editIssue('alice', dashboard!.number, ticked(body, 'approve=verifier:gated'))
      jobs = await sandbox.waitForIdle(MINUTE)
      why = describeJobs(jobs)
      expect(staleJob?.conclusion, why).toBe('success')
      expect(jobs.at(-1)?.runId, why).toBe(staleJob?.runId)
      const after = dashboardBody(sandbox)
      expect(after).toContain(
        '- alice ticked approve gate `verifier` of `gated`: gate `verifier` of `gated` is no longer pending (now approved); nothing to approve',
      )
      expect(after).not.toMatch(/- \[[ xX]\]/)
      expect(dashboardRow(after, 'gated')?.[2]).toBe('complete')
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
