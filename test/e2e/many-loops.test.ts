// End to end: many loops at once, with the dashboard. Five issues labelled `loop` at once with
// `max-loops: 2`: two run, three are saved queued and told so in their status comments, and each loop
// that ends hands its slot to the next (a workflow dispatch of the queued loop). One issue's body says
// `depends-on: #<first>`: it is admitted only once that loop is COMPLETE. The proof is the branch
// history of queue.json on the state branch (no version has more than two loops holding a slot) and
// the jobs' own times (no more than two iterations at any moment). After each job the dashboard lists
// every loop so far, a queued one with its place in line; at the end one dashboard lists all five
// COMPLETE. And, again under `max-loops: 2`, a dependency that ends BLOCKED keeps its dependent queued,
// its comment and dashboard row saying so, until a writer's tick aborts it (its comment then says it was
// aborted; queued-abort.test.ts has the `/loop abort` comment). A person then does what the agent could
// not, a second dependent queues, two more loops take both slots, and a writer's tick on `resume` of the
// BLOCKED loop queues it (no dispatch while the slots are full); a freed slot dispatches it, it
// completes, and the second dependent is admitted only then and completes too: five loops, the
// dashboard listing every one so far after every job.
import { execFile } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { slotProblems } from '../../src/domain/slots.js'
import { dashboardBody, dashboardRows, dashboards, ticked } from './dashboard-fixtures.js'
import {
  botComments,
  checkOperationsExercised,
  commentsOn,
  describeJobs,
  expectFaithful,
  MINUTE,
  startScenario,
  until,
} from './fixtures.js'
import {
  expectEveryLoopListed,
  journeyOf,
  mostIterationsAtOnce,
  watchComments,
  watchDashboards,
} from './many-loops-fixtures.js'
import { queueHistory, queueNow, savedState, savedStateIfAny } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

const run = promisify(execFile)

const STATUS = 2
const QUEUE = 9
/** Where a loop's status may have moved by the time its job's dashboard is read. */
const LATER: Record<string, string[]> = { queued: ['queued', 'running', 'complete'], complete: ['complete'] }
/** A queued loop's row: its place in line and why, or admitted (its job starting). */
const QUEUED_ROW = /^([1-3] of [1-3] in line: .+|admitted: its job is starting)$/
/** The place a queued loop's comment says, e.g. `2nd` (`2 of 3 queued` as it once said). */
const placeLine = (comment: string) => /\*\*Place in line:\*\* ([^,.;]+)/.exec(comment)?.[1]

describe('the action bundle in the sandbox: many loops at once', () => {
  it(
    'five issues labelled at once with max-loops 2: never more than two hold a slot, three are queued and told so, the dependent starts after its dependency is COMPLETE, all five COMPLETE',
    async () => {
      const scenario = await startScenario({ steps: 1, workflowWith: { 'max-loops': '2', dashboard: 'true' } })
      const { sandbox, signals } = scenario
      const seen = watchDashboards(scenario)
      const issues: number[] = []
      for (let i = 1; i <= 4; i++) issues.push((await sandbox.openIssue('alice', `Climb ${i}`, 'One step.')).number)
      const first = issues[0]!
      const dependent = (await sandbox.openIssue('alice', 'Climb after', `One step, later.\ndepends-on: #${first}\n`))
        .number
      issues.push(dependent)
      // The admitted loops hold in their work until the queued ones have been told, so the line forms.
      writeFileSync(join(signals, 'hold'), '')
      await Promise.all(issues.map((issue) => sandbox.label('alice', issue, 'loop')))
      await until(
        'three loops queued, their jobs ended',
        () => sandbox.jobs.filter((job) => job.outputs.status === 'queued' && job.status === 'completed').length >= 3,
        2 * MINUTE,
      )
      const queuedJobs = sandbox.jobs.filter((job) => job.outputs.status === 'queued')
      const queuedIssues = queuedJobs.map((job) => Number(job.outputs['loop-id']?.replace('issue-', '')))
      expect(queuedIssues).toContain(dependent)
      expect(queuedJobs.map((job) => job.conclusion)).toEqual(['success', 'success', 'success'])
      for (const issue of queuedIssues) {
        const comment = commentsOn(scenario, issue)
        expect(comment).toContain(`\`issue-${issue}\` is queued`)
        // A loop behind the dependent (waiting for its dependency) is told its place among those that can start.
        expect(comment).toMatch(
          /\*\*Place in line:\*\* (1st|2nd|3rd)(, (first|2nd) of the loops that can start \(1 ahead waits for its dependencies\))?\./,
        )
        // The dependent may have asked before its dependency's job saved a state: then it says so.
        const next =
          issue === dependent
            ? `(It starts by itself|#${first} had no loop when this was written: if it still has none)`
            : 'It starts by itself'
        expect(comment).toMatch(new RegExp(`\\*\\*Next:\\*\\* ${next}`))
        // A loop with no dependency waits for a slot: both were held when it asked.
        if (issue !== dependent) expect(comment).toMatch(/all 2 slots are in use \(max-loops: 2\)/)
      }
      expect(commentsOn(scenario, dependent)).toContain(`it waits for #${first} to be COMPLETE`)
      // All five are labelled: the dashboard lists them, the three queued ones with their places 1 to 3.
      const lined = dashboardRows(dashboards(sandbox)[0]?.body ?? '')
      expect([...lined.keys()].sort()).toEqual(issues.map((issue) => `issue-${issue}`).sort())
      const places = queuedIssues.map((issue) => lined.get(`issue-${issue}`) ?? [])
      expect(places.map((row) => row[STATUS])).toEqual(['queued', 'queued', 'queued'])
      expect(places.map((row) => row[QUEUE]?.slice(0, 12)).sort()).toEqual([
        '1 of 3 in li',
        '2 of 3 in li',
        '3 of 3 in li',
      ])
      expect(lined.get(`issue-${dependent}`)?.[QUEUE]).toContain(`it waits for \\#${first} to be COMPLETE`)
      // Read together once the line has formed, each comment and the dashboard agree: loops joined behind
      // and took slots after the first comments were written, and none of them says a count that changed.
      const running = [...lined.values()].filter(
        (row) => row[STATUS] === 'running' || row[QUEUE]?.startsWith('admitted'),
      ).length
      for (const issue of queuedIssues) {
        const comment = commentsOn(scenario, issue)
        const place = Number(lined.get(`issue-${issue}`)?.[QUEUE]?.split(' ')[0])
        expect([issue, placeLine(comment)]).toEqual([issue, ['1st', '2nd', '3rd'][place - 1]])
        const inUse = /slots: (\d+) of 2 in use/.exec(comment)?.[1]
        if (inUse !== undefined) expect([issue, Number(inUse)]).toEqual([issue, running])
      }
      // From here on every loop has a state: each job's dashboard must list all five.
      const allSaved = Date.now()
      const comments = watchComments(scenario, queuedIssues)
      writeFileSync(join(signals, 'go-1'), '')

      const jobs = await sandbox.waitForIdle(4 * MINUTE).finally(comments.stop)
      const why = describeJobs(jobs)
      // Each queued loop's comment, at every step: queued, then it says it started (and in which run), then
      // the iteration's report. Comments have no compare-and-swap: a job telling the line its new places
      // may say queued once more between the admitting job's word and the loop's own job, which says it
      // started again as it begins; it ends started, then COMPLETE.
      // At least one queued loop was told its new place when a loop ended (three waited for two slots).
      const toldBodies = queuedIssues.flatMap((issue) => comments.bodies.get(issue) ?? [])
      expect(toldBodies.filter((body) => body.includes('updated by [run')).length, why).toBeGreaterThan(0)
      for (const issue of queuedIssues) {
        const phases = comments.phases.get(issue) ?? []
        expect([issue, phases[0], phases.slice(-2)], why).toEqual([issue, 'queued', ['started', 'complete']])
        expect([issue, phases.filter((phase) => phase !== 'queued' && phase !== 'started').length], why).toEqual([
          issue,
          1,
        ])
        const own = jobs.find((job) => job.event === 'workflow_dispatch' && job.inputs['loop-id'] === `issue-${issue}`)
        // Told its new place by the job of a loop that ended, it links the dashboard (the line as it is now).
        const dashboardLink = `[dashboard \\#${dashboards(sandbox)[0]?.number}](`
        for (const told of (comments.bodies.get(issue) ?? []).filter((body) => body.includes('updated by [run'))) {
          expect(told, why).toContain(dashboardLink)
        }
        // It names the run dispatched to start it, linked.
        expect(comments.started.get(issue), why).toMatch(
          new RegExp(`iteration 1 starts in \\[run ${own?.runId}\\]\\(http[^)]+/actions/runs/${own?.runId}\\)`),
        )
      }
      // Every loop ended COMPLETE, each in one iteration: the queued ones in the job a release dispatched.
      for (const issue of issues) {
        const state = await savedState(scenario, `issue-${issue}`)
        expect([issue, state.status], why).toEqual([issue, 'complete'])
      }
      expect(scenario.workRuns(), why).toEqual(['work-1'])
      const dispatched = jobs.filter((job) => job.event === 'workflow_dispatch')
      expect(dispatched.map((job) => job.inputs['loop-id']).sort(), why).toEqual(
        queuedIssues.map((issue) => `issue-${issue}`).sort(),
      )
      expect(
        dispatched.map((job) => [job.inputs.iteration, job.outputs.status, job.conclusion]),
        why,
      ).toEqual(queuedIssues.map(() => ['1', 'complete', 'success']))

      // The record's history: at most two holders in every version, none twice, each loop admitted once.
      const history = await queueHistory(scenario)
      const admittedAt = new Map<string, string>()
      for (const { commit, record } of history) {
        expect(record.running.length, JSON.stringify(record)).toBeLessThanOrEqual(2)
        expect(slotProblems(record)).toEqual([])
        for (const holder of record.running) {
          if (!admittedAt.has(holder.loopId)) admittedAt.set(holder.loopId, commit)
        }
      }
      expect([...admittedAt.keys()].sort()).toEqual(issues.map((issue) => `issue-${issue}`).sort())
      expect(history.at(-1)?.record).toEqual({ running: [], queued: [], limit: 2 })
      // The jobs' own times say the same: two iterations ran at once, never three.
      expect(await mostIterationsAtOnce(scenario, jobs), why).toBe(2)
      // The dependent was admitted by a change that saw its dependency COMPLETE.
      const dependentAdmitted = admittedAt.get(`issue-${dependent}`)!
      expect((await savedStateIfAny(scenario, `issue-${first}`, dependentAdmitted))?.status).toBe('complete')
      // A queued loop's journey says it waited and was admitted, before its iteration started.
      for (const issue of queuedIssues) {
        const types = (await journeyOf(scenario, `issue-${issue}`)).map((event) => event.type)
        expect(types.slice(0, 3), types.join(', ')).toEqual(['queued', 'admitted', 'decision'])
        expect(types).toContain('completed')
      }
      // Each status comment now says COMPLETE (the queued notice was replaced, never a second comment).
      for (const issue of issues) {
        const comments = botComments(sandbox).filter((comment) => comment.issueNumber === issue)
        expect(comments, why).toHaveLength(1)
        expect(comments[0]?.body).toContain('COMPLETE')
      }
      // After every job, its dashboard listed every loop that had a state when the job started (all five for
      // the jobs that started after the line formed), each queued one with its place.
      expect(seen.length, why).toBe(jobs.length)
      const heldTo = await expectEveryLoopListed(scenario, seen)
      const afterLine = jobs.filter((job) => (job.startedAt ?? 0) > allSaved + 1000)
      expect(afterLine.length, why).toBeGreaterThan(2)
      for (const job of afterLine) expect([job.runId, heldTo.get(job)]).toEqual([job.runId, issues.length])
      for (const { job, body } of seen) {
        const rows = dashboardRows(body ?? '')
        const after = `after run ${job.runId} (${job.outputs['loop-id']}: ${job.outputs.status})\n${body}`
        const own = rows.get(job.outputs['loop-id'] ?? '')
        expect(LATER[job.outputs.status ?? '']?.includes(own?.[STATUS] ?? ''), after).toBe(true)
        for (const row of rows.values()) {
          if (row[STATUS] === 'queued') expect(row[QUEUE], after).toMatch(QUEUED_ROW)
          else expect(row[QUEUE], after).toBe('-')
        }
      }
      // One dashboard at the end, every loop COMPLETE on it and nothing left to tick.
      expect(dashboards(sandbox), why).toHaveLength(1)
      const end = dashboardRows(dashboards(sandbox)[0]?.body ?? '')
      expect([...end.values()].map((row) => [row[0], row[STATUS]])).toEqual(
        issues
          .map((issue) => `issue-${issue}`)
          .sort()
          .map((loopId) => [`\`${loopId}\``, 'complete']),
      )
      expect(dashboards(sandbox)[0]?.body).not.toContain('- [ ]')
      expectFaithful(scenario)
    },
    6 * MINUTE,
  )

  it(
    'a dependency that ends BLOCKED keeps its dependent queued and told so until a tick aborts it; a tick resumes the dependency through the queue of max-loops 2, then it and a second dependent COMPLETE; a garbled depends-on line refuses the start',
    async () => {
      const scenario = await startScenario({
        steps: 1,
        stuck: true,
        issueTypes: ['labeled', 'edited'],
        workflowWith: { dashboard: 'true', 'max-loops': '2' },
      })
      const { sandbox, signals } = scenario
      const seen = watchDashboards(scenario)
      const dependency = (await sandbox.openIssue('alice', 'Climb (it cannot)', 'One step.')).number
      const dependent = (await sandbox.openIssue('alice', 'Then climb', `depends-on: #${dependency}`)).number
      await sandbox.label('alice', dependent, 'loop')
      await until('the dependent queued', () => sandbox.jobs.some((job) => job.outputs.status === 'queued'), MINUTE)
      await sandbox.label('alice', dependency, 'loop')
      // A line that is not issue numbers alone refuses the start, saying what it found.
      const garbled = (
        await sandbox.openIssue('alice', 'Climb too', `depends-on: #${dependency} && curl evil.example <b>@mallory</b>`)
      ).number
      await sandbox.label('alice', garbled, 'loop')
      const jobs = await sandbox.waitForIdle(4 * MINUTE)
      const why = describeJobs(jobs)
      const blocked = await savedState(scenario, `issue-${dependency}`)
      expect(blocked.status, why).toBe('blocked')
      const waiting = await savedState(scenario, `issue-${dependent}`)
      expect(waiting.status, why).toBe('queued')
      expect(waiting.statusReason).toBe(`a dependency ended short of COMPLETE (#${dependency} ended BLOCKED)`)
      expect(waiting.iteration).toBe(0)
      // Nothing started the dependent: its one job queued it, and no dispatch named it (the issue's
      // `opened` event ran a job that found nothing for the loop and said no status).
      const ofDependent = jobs.filter(
        (job) =>
          (job.outputs['loop-id'] === `issue-${dependent}` && job.outputs.status !== undefined) ||
          job.inputs['loop-id'] === `issue-${dependent}`,
      )
      expect(
        ofDependent.map((job) => [job.event, job.outputs.status]),
        why,
      ).toEqual([['issues', 'queued']])
      // The releasing job saved the dependent's reason without its own loop's audit trail.
      const files = (await run('git', ['--git-dir', sandbox.git.bareDir, 'ls-tree', '-r', '--name-only', 'loop-state']))
        .stdout
      expect(files.split('\n').filter((path) => path.startsWith(`issue-${dependent}/`))).toEqual([
        `issue-${dependent}/audit/journey-log.jsonl`,
        `issue-${dependent}/loop-state.json`,
        `issue-${dependent}/loop-state.meta.json`,
      ])
      expect((await journeyOf(scenario, `issue-${dependent}`)).map((event) => event.type)).toEqual(['queued'])
      expect(files).toContain(`issue-${dependency}/audit/`)
      const comment = commentsOn(scenario, dependent)
      expect(comment).toContain(`#${dependency} ended BLOCKED`)
      expect(comment).toContain(`It stays queued: #${dependency} must be resumed and reach COMPLETE`)
      // The dashboard says the same on the dependent's row, and offers to drop it.
      const [dashboard] = dashboards(sandbox)
      const body = dashboard?.body ?? ''
      const row = dashboardRows(body).get(`issue-${dependent}`)
      expect([row?.[STATUS], row?.[QUEUE]], body).toEqual([
        'queued',
        `1 of 1 in line: a dependency ended short of COMPLETE (\\#${dependency} ended BLOCKED)`,
      ])
      const box = `- [ ] <!-- loop-dashboard:abort:issue-${dependent} -->`
      expect(body).toContain(`${box} Abort \`issue-${dependent}\` (queued: it gives up its place in line)`)
      expect(body).toContain(`<!-- loop-dashboard:resume:issue-${dependency} -->`)

      // alice ticks the abort: the loop is aborted by her, and its place in line is given up.
      const jobsBefore = sandbox.jobs.length
      const tickJob = await sandbox.editIssue('alice', dashboard!.number, ticked(body, `abort:issue-${dependent}`))
      const afterTick = await sandbox.waitForIdle(MINUTE)
      const whyTick = describeJobs(afterTick)
      expect(tickJob?.conclusion, whyTick).toBe('success')
      // Nothing is started in its place (no other loop waits).
      expect(afterTick.length, whyTick).toBe(jobsBefore + 1)
      const aborted = await savedState(scenario, `issue-${dependent}`)
      expect([aborted.status, aborted.statusReason], whyTick).toEqual(['aborted', 'aborted by alice'])
      const queue = (await queueHistory(scenario)).at(-1)?.record
      expect(queue, whyTick).toEqual({ running: [], queued: [], limit: 2 })
      const abortedRow = dashboardRows(dashboards(sandbox)[0]?.body ?? '').get(`issue-${dependent}`)
      expect([abortedRow?.[STATUS], abortedRow?.[QUEUE]]).toEqual(['aborted', '-'])
      expect(dashboards(sandbox)[0]?.body).toMatch(new RegExp(`- alice ticked abort \`issue-${dependent}\`: done`))
      // Its comment no longer says it is queued: it was aborted, by whom, from its place in line.
      const abortedComment = commentsOn(scenario, dependent)
      expect(abortedComment, whyTick).toContain('aborted by alice, while queued (1 of 1 in line)')
      expect(abortedComment).not.toContain('is queued')

      const refusedJob = jobs.find((job) => job.outputs['loop-id'] === `issue-${garbled}` && job.outputs.status)
      expect([refusedJob?.outputs.status, refusedJob?.conclusion], why).toEqual(['refused', 'success'])
      expect(await savedStateIfAny(scenario, `issue-${garbled}`)).toBeUndefined()
      const refusal = commentsOn(scenario, garbled)
      expect(refusal).toContain(
        `did not start the loop \`issue-${garbled}\`: the issue's \`depends-on:\` line could not be read`,
      )
      expect(refusal).toContain('(&quot;&amp;&amp;&quot; is no issue number)')
      // The quoted line mentions nobody and brings no HTML.
      expect(refusal).toContain('&lt;b&gt;@\u200bmallory&lt;/b&gt;')
      expect(refusal).toContain('`depends-on: #12, #15`')

      // alice does what the agent could not, on main and on the BLOCKED loop's branch. A new dependent
      // waits for the BLOCKED loop; two more loops take both slots and hold in their work.
      const fix = { 'unblocked.txt': 'a person did what the agent could not\n' }
      await sandbox.git.commit('main', fix, 'Unblock the staircase', 'alice')
      await sandbox.git.commit(`loop/issue-${dependency}`, fix, 'Unblock', 'alice')
      const later = (await sandbox.openIssue('alice', 'Then climb, again', `depends-on: #${dependency}`)).number
      const laterJob = await sandbox.label('alice', later, 'loop')
      await until('the new dependent queued', () => laterJob?.status === 'completed', MINUTE)
      expect(laterJob?.outputs.status, describeJobs(sandbox.jobs)).toBe('queued')
      writeFileSync(join(signals, 'hold'), '')
      const fillers = [(await sandbox.openIssue('alice', 'Climb beside', 'One step.')).number]
      fillers.push((await sandbox.openIssue('alice', 'Climb beside too', 'One step.')).number)
      await Promise.all(fillers.map((issue) => sandbox.label('alice', issue, 'loop')))
      let slotsHeld: string[] = []
      for (let tries = 0; slotsHeld.length < 2 && tries < 300; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        slotsHeld = (await queueNow(scenario)).running.map((holder) => holder.loopId)
      }
      expect(slotsHeld.sort(), describeJobs(sandbox.jobs)).toEqual(fillers.map((issue) => `issue-${issue}`).sort())

      // alice ticks the resume while both slots are held: the loop is resumed, but it asks for a slot like
      // any start, so it waits in line and nothing is dispatched yet.
      const jobsAtTick = sandbox.jobs.length
      const resumeTick = await sandbox.editIssue(
        'alice',
        dashboard!.number,
        ticked(dashboardBody(sandbox), `resume:issue-${dependency}`),
      )
      await until('the resume tick handled', () => resumeTick?.status === 'completed', MINUTE)
      const whyResume = describeJobs(sandbox.jobs)
      expect(resumeTick?.conclusion, whyResume).toBe('success')
      const resumedQueued = await savedState(scenario, `issue-${dependency}`)
      expect([resumedQueued.status, resumedQueued.statusReason], whyResume).toEqual([
        'queued',
        'all 2 slots are in use (max-loops: 2)',
      ])
      expect(
        sandbox.jobs.slice(jobsAtTick).filter((job) => job.inputs['loop-id'] === `issue-${dependency}`),
        whyResume,
      ).toEqual([])
      const inLine = await queueNow(scenario)
      expect(inLine.running.map((holder) => holder.loopId).sort()).toEqual(slotsHeld)
      expect(inLine.queued.map((waiter) => waiter.loopId)).toContain(`issue-${dependency}`)
      const resumeBody = dashboardBody(sandbox)
      expect(resumeBody).toContain(
        `- alice ticked resume \`issue-${dependency}\`: queued, not dispatched yet: all 2 slots are in use (max-loops: 2)`,
      )
      const resumeRow = dashboardRows(resumeBody).get(`issue-${dependency}`)
      expect([resumeRow?.[STATUS], resumeRow?.[QUEUE]?.replace(/^\d of \d/, 'n of m')], resumeBody).toEqual([
        'queued',
        'n of m in line: all 2 slots are in use (max-loops: 2)',
      ])

      // The two go on and end: a freed slot dispatches the resumed loop, which completes on alice's fix,
      // and then its dependent is admitted and completes too.
      rmSync(join(signals, 'hold'))
      writeFileSync(join(signals, 'go-1'), '')
      const end = await sandbox.waitForIdle(2 * MINUTE)
      const whyEnd = describeJobs(end)
      for (const issue of [dependency, later, ...fillers])
        expect([issue, (await savedState(scenario, `issue-${issue}`)).status], whyEnd).toEqual([issue, 'complete'])
      const resumedRun = end.slice(jobsAtTick).filter((job) => job.inputs['loop-id'] === `issue-${dependency}`)
      expect(
        resumedRun.map((job) => [job.event, job.inputs.iteration, job.outputs.status]),
        whyEnd,
      ).toEqual([['workflow_dispatch', String(blocked.iteration + 1), 'complete']])
      // queue.json's history: never more than two holders; the resumed loop admitted only after a filler
      // gave its slot back, and the dependent only in a version that saw its dependency COMPLETE.
      const history = await queueHistory(scenario)
      let fillersHeld = false
      let fillerReleased = false
      let resumedAdmitted = false
      let laterAdmittedAt: string | undefined
      for (const { commit, record } of history) {
        expect(record.running.length, JSON.stringify(record)).toBeLessThanOrEqual(2)
        expect(slotProblems(record)).toEqual([])
        const holders = record.running.map((holder) => holder.loopId)
        const fillersHolding = fillers.filter((issue) => holders.includes(`issue-${issue}`)).length
        if (fillersHolding === 2) fillersHeld = true
        else if (fillersHeld) fillerReleased = true
        // Its first run held a slot too: the one that counts is the first after the two took both.
        if (fillersHeld && !resumedAdmitted && holders.includes(`issue-${dependency}`)) {
          resumedAdmitted = true
          expect(fillerReleased, JSON.stringify(record)).toBe(true)
        }
        if (laterAdmittedAt === undefined && holders.includes(`issue-${later}`)) laterAdmittedAt = commit
      }
      expect(resumedAdmitted, whyEnd).toBe(true)
      expect(laterAdmittedAt, whyEnd).toBeDefined()
      expect((await savedStateIfAny(scenario, `issue-${dependency}`, laterAdmittedAt))?.status).toBe('complete')
      expect(history.at(-1)?.record).toEqual({ running: [], queued: [], limit: 2 })
      // Its trail says it was resumed, queued and why, then admitted (the iteration's events reach the log
      // with its next load: the last save carries them staged), and the resumed iteration's record is there.
      const sinceResume = (await journeyOf(scenario, `issue-${dependency}`)).slice(-3)
      expect(sinceResume.map((event) => event.type)).toEqual(['resumed', 'queued', 'admitted'])
      expect(sinceResume.map((event) => event.message).join('\n')).toMatch(
        /^resumed by alice.*\n.*: all 2 slots are in use/,
      )
      const resumedIteration = `issue-${dependency}/audit/iterations/${blocked.iteration + 1}.md`
      expect(await sandbox.git.show('loop-state', resumedIteration), resumedIteration).toBeDefined()
      // After every job the dashboard listed every loop so far; at the end all of them, the aborted one aborted.
      await expectEveryLoopListed(scenario, seen)
      const finalRows = dashboardRows(dashboardBody(sandbox))
      expect(
        [dependency, dependent, later, ...fillers].map((issue) => finalRows.get(`issue-${issue}`)?.[STATUS]),
      ).toEqual(['complete', 'aborted', 'complete', 'complete', 'complete'])
      expectFaithful(scenario)
    },
    5 * MINUTE,
  )
})
