// The dashboard issue adapter (and the app's refresh over it) against the REST and GraphQL stand-in,
// which validates every request and response against GitHub's description and schema: found by its
// label among the controller's own issues, opened and pinned once, rewritten only when it changed,
// a duplicate from a race unpinned and closed, and a tick read, authorized and said.
import { describe, expect, it } from 'vitest'
import type { OctokitDashboardIssues } from '../../../src/adapters/dashboard-issue.js'
import { applyDashboardTicks, refreshDashboard } from '../../../src/app/dashboard.js'
import type { PeopleCommand } from '../../../src/app/people-commands.js'
import { DASHBOARD_LABEL } from '../../../src/domain/report/dashboard.js'
import type { LoopState } from '../../../src/domain/state.js'
import { loopState } from '../../golden/dashboard-loops.js'
import type { IssueModel } from '../../sandbox/github-objects.js'
import {
  api,
  BOT,
  issuesAs,
  logged,
  logger,
  REPOSITORY_URL,
  storeOf,
  useDashboardStandIn,
} from './dashboard-stand-in.js'

useDashboardStandIn()

function planted(login: string, title = 'Loop dashboard'): IssueModel {
  const issue = api.model.createIssue(api.model.user(login), title, '<!-- loop-dashboard -->\nold')
  api.model.addLabels(issue.number, [DASHBOARD_LABEL])
  return issue
}

const dashboardsIn = () =>
  [...api.model.issues.values()].filter((i) => i.labels.some((l) => l.name === DASHBOARD_LABEL))

/** What a writer's (alice's) ticks are applied with, but for what each command does. */
function writerTicks(states: Map<string, LoopState>, issues: OctokitDashboardIssues) {
  return {
    store: storeOf(states),
    issues,
    logger,
    authorize: async () => ({ allowed: true, reason: '@alice has write permission.' }),
  }
}

/** A dashboard listing one BLOCKED loop, `stuck`, and its body with `stuck`'s resume box ticked. */
async function stuckLoopResumeTicked() {
  const states = new Map([['stuck', loopState('stuck', { status: 'blocked', statusReason: 'same error' })]])
  const issues = issuesAs('job')
  await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { store: storeOf(states), issues, logger })
  const before = dashboardsIn()[0]?.body ?? ''
  const after = before.replace(
    '- [ ] <!-- loop-dashboard:resume:stuck -->',
    '- [x] <!-- loop-dashboard:resume:stuck -->',
  )
  return { states, issues, before, after }
}

describe('the dashboard issue on the REST and GraphQL stand-in', () => {
  it('lists only the open issues the controller opened with the label, lowest first', async () => {
    planted('alice') // anyone may label an issue: a person's is never the dashboard
    const own = planted(BOT)
    api.model.createIssue(api.model.user(BOT), 'unlabelled', null)
    const listed = await issuesAs('job').list()
    expect(listed.map((issue) => issue.number)).toEqual([own.number])
    expect(listed[0]?.nodeId).toMatch(/\S/)
  })

  it('opens and pins the dashboard once, then rewrites it only when the loops moved', async () => {
    const states = new Map([['stuck', loopState('stuck', { status: 'blocked', statusReason: 'same error' })]])
    const deps = { store: storeOf(states), issues: issuesAs('job'), logger }
    const first = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)
    expect(first.writes).toBe(0) // opened with the body it needs
    const [dashboard] = dashboardsIn()
    expect(dashboard).toMatchObject({ title: 'Loop dashboard', pinned: true, state: 'open' })
    expect(dashboard?.user.login).toBe(BOT)
    expect(dashboard?.body).toContain('- [ ] <!-- loop-dashboard:resume:stuck -->')

    expect((await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)).writes).toBe(0)
    states.set('stuck', { ...loopState('stuck'), status: 'complete', stage: 'COMPLETE', updatedAt: 'later' })
    const again = await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL, notes: ['alice ticked resume `stuck`'] },
      deps,
    )
    expect(again).toMatchObject({ writes: 1, issue: { number: dashboard?.number } })
    expect(dashboardsIn()).toHaveLength(1)
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body).not.toContain('loop-dashboard:resume:stuck')
    expect(body).toContain('**complete**')
    expect(body).toContain('- alice ticked resume `stuck`')
  })

  it('writes once more when the loops moved while it wrote (another job ending), so the newest states stay', async () => {
    planted(BOT)
    const states = new Map([['a', loopState('a', { iteration: 1 })]])
    const store = storeOf(states)
    let lists = 0
    const moving = {
      ...store,
      readLoops: async () => {
        // Another job saves loop a between this job's first read and its read after writing.
        if (++lists === 2) states.set('a', loopState('a', { iteration: 2, updatedAt: 'later' }))
        return store.readLoops()
      },
    }
    const { writes } = await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: moving, issues: issuesAs('job'), logger },
    )
    expect(writes).toBe(2)
    expect(dashboardsIn()[0]?.body).toContain('| 2 of 10 |')
  })

  it('says each queued loop`s place from the record read with each listing; a moved queue alone is written again', async () => {
    planted(BOT)
    const states = new Map([
      ['a', loopState('a', { status: 'running' })],
      ['b', loopState('b', { status: 'queued', statusReason: 'asking for a slot' })],
    ])
    const entry = { loopId: 'b', since: 't', dependsOn: [], workflow: 'loop.yml', ref: 'main' }
    const records = [
      { running: [{ loopId: 'a', since: 't' }], queued: [entry] },
      // Between this job's first read and its read after writing, a release admits b.
      { running: [{ loopId: 'b', since: 't' }], queued: [] },
    ]
    let reads = 0
    const queue = async () => ({ record: records[Math.min(reads++, 1)]!, limit: 1 })
    const deps = { store: storeOf(states), issues: issuesAs('job'), logger, queue }
    const { writes } = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)
    expect(writes).toBe(2)
    expect(reads).toBe(3)
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body).toMatch(/\| `b` \|.*\*\*queued\*\*.*\| admitted: its job is starting \| [^|]+ \|$/m)
    // Its box says what its row says: admitted, it gives up the slot.
    expect(body).toContain(
      '- [ ] <!-- loop-dashboard:abort:b --> Abort `b` (admitted: its job is starting; it gives up its slot)',
    )

    // A record that cannot be read: the rows say what each loop saved, and the problem is named.
    logged.length = 0
    const broken = async () => {
      throw new Error('loop-state:queue.json is not a valid slots record (running: expected array)')
    }
    await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { ...deps, queue: broken })
    expect(dashboardsIn()[0]?.body).toMatch(/\| `b` \|.*\| asking for a slot \| [^|]+ \|$/m)
    expect(logged).toContain(
      'warning: The dashboard shows no places in line: loop-state:queue.json is not a valid slots record (running: expected array)',
    )
  })

  it('keeps the lower of two dashboards a race opened: the other is unpinned, closed as a duplicate and says so', async () => {
    const kept = planted(BOT)
    const duplicate = planted(BOT)
    kept.pinned = true
    duplicate.pinned = true
    const { issue } = await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(new Map()), issues: issuesAs('job'), logger },
    )
    expect(issue.number).toBe(kept.number)
    expect(api.model.issue(duplicate.number)).toMatchObject({
      state: 'closed',
      stateReason: 'duplicate',
      pinned: false,
    })
    expect(api.model.issue(kept.number)).toMatchObject({ state: 'open', pinned: true })
    expect(api.model.comments.find((c) => c.issueNumber === duplicate.number)?.body).toContain(`#${kept.number}`)
    expect(api.model.issue(kept.number).body).toContain('No loops yet.')
  })

  it('adopts no bot issue a person labelled unless it opens with the dashboard`s marker, and closes none as a duplicate', async () => {
    // Another workflow's github-actions[bot] opened an older issue; someone with triage labels it. The
    // job's token cannot ask GET /user, so any bot author passes: only the body tells them apart.
    const decoy = api.model.createIssue(api.model.user(BOT), 'Weekly report', 'Generated by report.yml')
    api.model.addLabels(decoy.number, [DASHBOARD_LABEL])
    expect(await issuesAs('job').list()).toEqual([])
    const deps = { store: storeOf(new Map()), issues: issuesAs('job'), logger }
    const opened = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)
    expect(opened.issue.number).not.toBe(decoy.number)
    // The real dashboard now exists and the decoy is older: still neither kept nor closed.
    const again = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)
    expect(again.issue.number).toBe(opened.issue.number)
    expect(api.model.issue(decoy.number)).toMatchObject({ state: 'open', body: 'Generated by report.yml' })
    expect(api.model.comments.filter((c) => c.issueNumber === decoy.number)).toEqual([])
    expect(api.model.issue(opened.issue.number).body).toMatch(/^<!-- loop-dashboard -->\n/)
  })

  it('writes the dashboard even when it cannot be pinned (GitHub pins three issues at most), and says why', async () => {
    for (const title of ['a', 'b', 'c']) planted('alice', title).pinned = true
    logged.length = 0
    await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(new Map()), issues: issuesAs('job'), logger },
    )
    const own = dashboardsIn().find((issue) => issue.user.login === BOT)
    expect(own?.pinned).toBeFalsy()
    expect(logged.find((line) => line.startsWith('warning:'))).toMatch(/is not pinned: .*at most 3 pinned issues/)
    expect(own?.body).toMatch(
      /^Not pinned: GitHub refused to pin issue \\#\d+: .*at most 3 pinned issues.*Each rewrite tries again\.$/m,
    )

    // A person makes room: the next rewrite pins it, and the body no longer says it is not.
    const [first] = dashboardsIn().filter((issue) => issue.pinned)
    if (first) first.pinned = false
    const { writes } = await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(new Map()), issues: issuesAs('job'), logger },
    )
    expect(writes).toBe(1)
    expect(own?.pinned).toBe(true)
    expect(own?.body).not.toContain('Not pinned')
  })

  it('pins the dashboard again when a person unpinned it', async () => {
    const deps = { store: storeOf(new Map()), issues: issuesAs('job'), logger }
    const { issue } = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)
    api.model.issue(issue.number).pinned = false
    expect((await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, deps)).writes).toBe(0)
    expect(api.model.issue(issue.number).pinned).toBe(true)
  })

  it('names the permission when the token may not open issues', async () => {
    api.addToken('readonly', { actor: BOT, kind: 'installation', permissions: { issues: 'read' } })
    await expect(issuesAs('readonly').create('Loop dashboard', 'body')).rejects.toThrow(/'issues: write'/)
  })

  it('says a used-up rate limit as one, with its reset, not as a missing permission', async () => {
    api.setRepositoryRateLimit(0, 1800)
    const refused = await issuesAs('job')
      .create('Loop dashboard', 'body')
      .then(
        () => null,
        (error: Error) => error,
      )
    expect(refused?.name).toBe('GitHubRateLimitedError')
    expect(refused?.message).toMatch(
      /open the dashboard issue was not made: the API rate limit is used up until \d{4}-/,
    )
    expect(refused?.message).not.toMatch(/issues: write/)
  })

  it('applies a writer`s tick and dispatches; says a reader`s refused tick under the table', async () => {
    const { states, issues, before, after } = await stuckLoopResumeTicked()
    const applied: string[] = []
    const deps = (allowed: boolean) => ({
      store: storeOf(states),
      issues,
      logger,
      authorize: async (actor: string) => ({
        allowed,
        reason: `@${actor} has ${allowed ? 'write' : 'read'} permission.`,
      }),
      apply: async (loopId: string, command: PeopleCommand, by: string) => {
        applied.push(`${by}: ${command.kind} ${loopId}`)
        return { ...(states.get(loopId) as LoopState), status: 'running' as const }
      },
      dispatch: async (loopId: string) => {
        applied.push(`dispatch ${loopId}`)
        return null
      },
    })
    const input = { before, after, actorType: 'User', repositoryUrl: REPOSITORY_URL }
    const refused = await applyDashboardTicks({ ...input, actor: 'bob' }, deps(false))
    expect(refused.map((o) => o.outcome)).toEqual(['refused'])
    expect(applied).toEqual([])
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body).toContain('- [ ] <!-- loop-dashboard:resume:stuck -->')
    expect(body).toContain('- bob ticked resume `stuck`: refused, nothing changed (bob has read permission.)')

    const done = await applyDashboardTicks({ ...input, actor: 'alice' }, deps(true))
    expect(done.map((o) => o.outcome)).toEqual(['dispatched'])
    expect(applied).toEqual(['alice: resume stuck', 'dispatch stuck'])
  })

  it('a writer`s resume that waits in line (max-loops) is said queued with its reason, and nothing is dispatched', async () => {
    const { states, issues, before, after } = await stuckLoopResumeTicked()
    const dispatched: string[] = []
    const outcomes = await applyDashboardTicks(
      { before, after, actor: 'alice', actorType: 'User', repositoryUrl: REPOSITORY_URL },
      {
        ...writerTicks(states, issues),
        apply: async (loopId: string) => {
          const reason = 'all 2 slots are in use (max-loops: 2)'
          const queued = { ...(states.get(loopId) as LoopState), status: 'queued' as const, statusReason: reason }
          states.set(loopId, queued)
          return queued
        },
        dispatch: async (loopId: string) => {
          dispatched.push(loopId)
          return null
        },
      },
    )
    expect(outcomes.map((o) => o.outcome)).toEqual(['queued'])
    expect(dispatched).toEqual([])
    expect(dashboardsIn()[0]?.body).toContain(
      '- alice ticked resume `stuck`: queued, not dispatched yet: all 2 slots are in use (max-loops: 2)',
    )
  })

  it('a tick on a box the loop has moved past is said under the table and unticked; one whose words moved still counts', async () => {
    const states = new Map([
      ['stuck', loopState('stuck', { status: 'blocked', statusReason: 'same error' })],
      ['busy', loopState('busy', { status: 'running' })],
    ])
    const issues = issuesAs('job')
    await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { store: storeOf(states), issues, logger })
    const before = dashboardsIn()[0]?.body ?? ''
    expect(before).toContain('- [ ] <!-- loop-dashboard:abort:busy --> Abort `busy` (running)')
    // Before the tick's job runs, a `/loop resume` comment made stuck run again, and busy went to a gate.
    states.set('stuck', loopState('stuck', { status: 'running', updatedAt: 'later' }))
    states.set('busy', loopState('busy', { status: 'waiting', updatedAt: 'later' }))
    const after = before
      .replace('- [ ] <!-- loop-dashboard:resume:stuck -->', '- [x] <!-- loop-dashboard:resume:stuck -->')
      .replace('- [ ] <!-- loop-dashboard:abort:busy -->', '- [x] <!-- loop-dashboard:abort:busy -->')
    const applied: string[] = []
    const outcomes = await applyDashboardTicks(
      { before, after, actor: 'alice', actorType: 'User', repositoryUrl: REPOSITORY_URL },
      {
        ...writerTicks(states, issues),
        apply: async (loopId: string, command: PeopleCommand, by: string) => {
          applied.push(`${by}: ${command.kind} ${loopId}`)
          const aborted = { ...(states.get(loopId) as LoopState), status: 'aborted' as const, updatedAt: 'latest' }
          states.set(loopId, aborted)
          return aborted
        },
        dispatch: async () => null,
      },
    )
    expect(outcomes.map((o) => [o.tick.loopId, o.outcome])).toEqual([
      ['stuck', 'stale'],
      ['busy', 'applied'],
    ])
    expect(applied).toEqual(['alice: abort busy'])
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body).toContain(
      '- alice ticked resume `stuck`: `stuck` is no longer BLOCKED (now running); nothing to resume',
    )
    expect(body).toContain('- alice ticked abort `busy`: done')
    expect(body).not.toMatch(/- \[[xX]\]/)
    expect(body).toContain('- [ ] <!-- loop-dashboard:abort:stuck --> Abort `stuck` (running)')
  })
})
