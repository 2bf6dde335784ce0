// The dashboard's rewrites on the REST and GraphQL stand-in, over what a single rewrite cannot show: a
// damaged loop on a real git store's branch stays listed and is never moved aside by another loop's job;
// two jobs rewriting at once keep each other's notes; a rewrite says its time and is not written for it.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GitStore } from '../../../src/adapters/stores/git-store.js'
import { refreshDashboard } from '../../../src/app/dashboard.js'
import { DASHBOARD_LABEL } from '../../../src/domain/report/dashboard.js'
import { loopState } from '../../golden/dashboard-loops.js'
import { api, issuesAs, logger, REPOSITORY_URL, storeOf, useDashboardStandIn } from './dashboard-stand-in.js'

useDashboardStandIn()

const dashboardsIn = () =>
  [...api.model.issues.values()].filter((i) => i.labels.some((l) => l.name === DASHBOARD_LABEL))

describe('a damaged loop on the git store`s branch', () => {
  it('stays on the dashboard through two rewrites, and no job moves it aside', async () => {
    const base = mkdtempSync(join(tmpdir(), 'dashboard-damaged-'))
    const bare = join(base, 'remote.git')
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' })
    git(base, 'init', '--bare', '--quiet', bare)
    const identity = { name: 'loop-controller', email: 'loop-controller@example.invalid' }
    const store = new GitStore({ repoDir: base, remote: bare, identity, workDir: join(base, 'job') })
    await store.save('fine', loopState('fine', { iteration: 1 }), null)
    // Another tool (or a bad hand edit) commits a state that is not JSON for loop `broken`.
    const clone = join(base, 'clone')
    git(base, 'clone', '--quiet', '--branch', 'loop-state', bare, clone)
    mkdirSync(join(clone, 'broken'))
    writeFileSync(join(clone, 'broken', 'loop-state.json'), '{ not json')
    git(clone, 'add', '-A')
    git(clone, '-c', 'user.name=x', '-c', 'user.email=x@example.invalid', 'commit', '--quiet', '-m', 'hand edit')
    git(clone, 'push', '--quiet', 'origin', 'HEAD:loop-state')
    const tip = () => git(base, '--git-dir', bare, 'rev-parse', 'loop-state').trim()
    const issues = issuesAs('job')
    const rowOfBroken = /^\| `broken` \| - \| \*\*unreadable\*\* \| .*is not JSON.* \|$/m

    await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { store, issues, logger })
    expect(dashboardsIn()[0]?.body).toMatch(rowOfBroken)
    // The next loop job saves its own loop and rewrites the dashboard: `broken` is still listed.
    const version = (await store.load('fine'))?.version ?? null
    await store.save('fine', loopState('fine', { iteration: 2, updatedAt: 'later' }), version)
    const saved = tip()
    const { writes } = await refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { store, issues, logger })
    expect(writes).toBe(1)
    expect(dashboardsIn()[0]?.body).toMatch(rowOfBroken)
    expect(dashboardsIn()[0]?.body).toContain('| 2 of 10 |')
    expect(tip()).toBe(saved)
    expect(git(base, '--git-dir', bare, 'show', 'loop-state:broken/loop-state.json')).toBe('{ not json')
    rmSync(base, { recursive: true, force: true })
  })
})

describe('two jobs rewriting the dashboard at once (GitHub has no compare-and-swap for a body)', () => {
  /** A promise and its resolve, to hold one job at a step until the other has passed another. */
  function signal(): { promise: Promise<void>; fire: () => void } {
    let fire!: () => void
    const promise = new Promise<void>((resolve) => {
      fire = resolve
    })
    return { promise, fire }
  }
  const REFUSED = 'bob ticked resume `stuck`: refused, nothing changed'
  const twoLoops = () =>
    new Map([
      ['stuck', loopState('stuck', { status: 'blocked', statusReason: 'same error' })],
      ['other', loopState('other', { iteration: 1 })],
    ])

  it('a tick job`s note survives a loop job that read the body before the note was written', async () => {
    const states = twoLoops()
    await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(states), issues: issuesAs('job'), logger },
    )
    // The loop job lists the dashboard (its body as it was), then waits while the tick job writes its note.
    const loopJobIssues = issuesAs('job')
    const listed = signal()
    const resume = signal()
    const list = loopJobIssues.list.bind(loopJobIssues)
    loopJobIssues.list = async () => {
      const found = await list()
      listed.fire()
      await resume.promise
      return found
    }
    states.set('other', loopState('other', { iteration: 2, updatedAt: 'later' }))
    const loopJob = refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(states), issues: loopJobIssues, logger },
    )
    await listed.promise
    await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL, notes: [REFUSED] },
      { store: storeOf(states), issues: issuesAs('job'), logger },
    )
    resume.fire()
    await loopJob
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body).toContain(`- ${REFUSED}`)
    expect(body).toContain('| 2 of 10 |')
  })

  it('a note overwritten by a write that landed after it is written again by the job that wrote it', async () => {
    const states = twoLoops()
    await refreshDashboard(
      { repositoryUrl: REPOSITORY_URL },
      { store: storeOf(states), issues: issuesAs('job'), logger },
    )
    // The loop job reads the body, then the tick job writes its note, then the loop job writes over it:
    // the tick job's read after its write finds its note gone.
    const loopJobIssues = issuesAs('job')
    const tickJobIssues = issuesAs('job')
    const loopJobRead = signal()
    const tickJobWrote = signal()
    const loopJobWrote = signal()
    const loopGet = loopJobIssues.get.bind(loopJobIssues)
    const loopUpdate = loopJobIssues.update.bind(loopJobIssues)
    let loopGets = 0
    loopJobIssues.get = async (number) => {
      const issue = await loopGet(number)
      if (++loopGets === 1) loopJobRead.fire()
      return issue
    }
    loopJobIssues.update = async (number, body) => {
      await tickJobWrote.promise
      await loopUpdate(number, body)
      loopJobWrote.fire()
    }
    const tickGet = tickJobIssues.get.bind(tickJobIssues)
    const tickUpdate = tickJobIssues.update.bind(tickJobIssues)
    let tickGets = 0
    tickJobIssues.get = async (number) => {
      // Its first read (before writing) comes after the loop job's; its read after writing, after the loop job wrote.
      if (++tickGets === 1) await loopJobRead.promise
      if (tickGets === 2) await loopJobWrote.promise
      return tickGet(number)
    }
    tickJobIssues.update = async (number, body) => {
      await tickUpdate(number, body)
      tickJobWrote.fire()
    }
    states.set('other', loopState('other', { iteration: 2, updatedAt: 'later' }))
    const [, tick] = await Promise.all([
      refreshDashboard({ repositoryUrl: REPOSITORY_URL }, { store: storeOf(states), issues: loopJobIssues, logger }),
      refreshDashboard(
        { repositoryUrl: REPOSITORY_URL, notes: [REFUSED] },
        { store: storeOf(states), issues: tickJobIssues, logger },
      ),
    ])
    expect(tick.writes).toBe(2)
    const body = dashboardsIn()[0]?.body ?? ''
    expect(body.split('\n').filter((line) => line === `- ${REFUSED}`)).toHaveLength(1)
    expect(body).toContain('| 2 of 10 |')
  })
})

describe('the rewrite`s time', () => {
  it('is said in the body; a later job whose loops did not move writes nothing for the time alone', async () => {
    const states = new Map([['a', loopState('a', { iteration: 1, updatedAt: '2025-01-01T00:00:00.000Z' })]])
    const at = (iso: string) => ({ now: () => new Date(iso) })
    const run = (id: string) => ({ id, url: `${REPOSITORY_URL}/actions/runs/${id}` })
    const issues = issuesAs('job')
    const refresh = (clock: { now: () => Date }, id: string) =>
      refreshDashboard(
        { repositoryUrl: REPOSITORY_URL, run: run(id) },
        { store: storeOf(states), issues, logger, clock },
      )

    await refresh(at('2025-01-01T01:30:00.000Z'), '11')
    expect(dashboardsIn()[0]?.body).toContain('Rewritten 2025-01-01 01:30 UTC by [run 11]')
    expect(dashboardsIn()[0]?.body).toMatch(
      /^\| `a` \| IMPLEMENT \| \*\*running\*\* \| 1 of 10 \| .* \| 1h 30m ago \|$/m,
    )
    expect((await refresh(at('2025-01-01T05:00:00.000Z'), '12')).writes).toBe(0)
    expect(dashboardsIn()[0]?.body).toContain('Rewritten 2025-01-01 01:30 UTC by [run 11]')
    states.set('a', loopState('a', { iteration: 2, updatedAt: '2025-01-01T04:00:00.000Z' }))
    expect((await refresh(at('2025-01-01T05:00:00.000Z'), '13')).writes).toBe(1)
    expect(dashboardsIn()[0]?.body).toContain('Rewritten 2025-01-01 05:00 UTC by [run 13]')
    expect(dashboardsIn()[0]?.body).toMatch(
      /^\| `a` \| IMPLEMENT \| \*\*running\*\* \| 2 of 10 \| .* \| 1h 0m ago \|$/m,
    )
  })
})
