// The dashboard's body: the loops' table, a box per action a person can take (each with its hidden
// marker), notes carried from one rewrite to the next; and the golden body (UPDATE_GOLDEN=1 rewrites it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  boxMarker,
  DASHBOARD_MARKER,
  dashboardActions,
  dashboardBoxes,
  MAX_NOTES,
  notesOf,
  noteText,
  parseMarker,
  renderDashboard,
} from '../../../src/domain/report/dashboard.js'
import type { LoopState } from '../../../src/domain/state.js'
import { dashboardLoops, dashboardQueue, loopState, REPOSITORY_URL } from '../../golden/dashboard-loops.js'

const pending = { status: 'pending' as const, reason: 'r', requestedAt: '2025-01-01T00:00:00.000Z' }

describe('dashboardActions: what a person can do from the dashboard', () => {
  it.each<{ name: string; state: Partial<LoopState>; want: string[] }>([
    { name: 'BLOCKED: resume', state: { status: 'blocked' }, want: ['resume'] },
    { name: 'running: abort', state: { status: 'running' }, want: ['abort'] },
    {
      name: 'waiting at two gates: approve each (by name), then abort',
      state: { status: 'waiting', gates: { verifier: pending, security: pending } },
      want: ['approve=security', 'approve=verifier', 'abort'],
    },
    {
      name: 'an approved gate offers nothing',
      state: { status: 'running', gates: { verifier: { ...pending, status: 'approved' } } },
      want: ['abort'],
    },
    { name: 'capped: nothing (the cap is raised by a run)', state: { status: 'capped' }, want: [] },
    { name: 'complete: nothing', state: { status: 'complete' }, want: [] },
    { name: 'aborted: nothing', state: { status: 'aborted' }, want: [] },
    { name: 'queued: abort (which gives up its place in line)', state: { status: 'queued' }, want: ['abort'] },
  ])('$name', ({ state, want }) => {
    const actions = dashboardActions(loopState('l', state))
    expect(actions.map((a) => (a.kind === 'approve' ? `approve=${a.gate}` : a.kind))).toEqual(want)
  })
})

describe('markers', () => {
  it.each([{ kind: 'resume' as const }, { kind: 'abort' as const }, { kind: 'approve' as const, gate: 'verifier' }])(
    '%o reads back as itself',
    (action) => {
      expect(parseMarker(boxMarker('my.loop-1', action))).toEqual({ loopId: 'my.loop-1', action })
    },
  )

  it.each(['<!-- loop-dashboard:delete:x -->', '<!-- loop-dashboard:approve=Bad Gate:x -->', '<!-- other -->'])(
    'reads %s as no marker of ours',
    (text) => {
      expect(parseMarker(text)).toBeNull()
    },
  )
})

describe('renderDashboard', () => {
  const body = renderDashboard({
    loops: dashboardLoops(),
    queue: dashboardQueue(),
    repositoryUrl: REPOSITORY_URL,
    notes: [noteText('bob ticked')],
  })

  it('opens with its marker and lists each box once, unticked, with its marker', () => {
    expect(body.startsWith(`${DASHBOARD_MARKER}\n`)).toBe(true)
    const boxes = body.split('\n').filter((line) => line.startsWith('- ['))
    expect(boxes.map((line) => parseMarker(line))).toEqual([
      { loopId: 'climbing', action: { kind: 'abort' } },
      { loopId: 'gated', action: { kind: 'approve', gate: 'verifier' } },
      { loopId: 'gated', action: { kind: 'abort' } },
      { loopId: 'hostile', action: { kind: 'resume' } },
      { loopId: 'issue-7', action: { kind: 'abort' } },
      { loopId: 'issue-9', action: { kind: 'abort' } },
      { loopId: 'stuck', action: { kind: 'resume' } },
    ])
    expect(boxes.every((line) => line.startsWith('- [ ] '))).toBe(true)
    expect(boxes).toEqual(dashboardBoxes(dashboardLoops()).map((box) => box.line))
  })

  it('keeps a marker written in a loop`s own text from becoming a box', () => {
    expect(body.match(/<!-- loop-dashboard:abort:green -->/g)).toBeNull()
    expect(body).not.toContain('@everyone')
    expect(body).not.toContain('<img')
  })

  it('is the same for the same loops, so an unchanged dashboard is not written again', () => {
    expect(
      renderDashboard({
        loops: dashboardLoops(),
        queue: dashboardQueue(),
        repositoryUrl: REPOSITORY_URL,
        notes: [noteText('bob ticked')],
      }),
    ).toBe(body)
  })

  it('carries its notes into the next body, the newest few', () => {
    expect(notesOf(body)).toEqual(['bob ticked'])
    const notes = Array.from({ length: MAX_NOTES + 3 }, (_, i) => noteText(`note ${i}`))
    const next = renderDashboard({ loops: [], repositoryUrl: REPOSITORY_URL, notes })
    expect(notesOf(next)).toEqual(notes.slice(-MAX_NOTES))
    expect(next).toContain('No loops yet.')
    expect(next).toContain('Nothing waits for a person.')
    expect(notesOf('a body without notes')).toEqual([])
  })

  it('stays within the size GitHub holds: finished loops make room first, then the last by id, said', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      loopId: `loop-${String(i).padStart(2, '0')}`,
      state: loopState(`loop-${i}`, { status: i % 2 === 0 ? 'complete' : 'blocked', statusReason: 'x'.repeat(100) }),
    }))
    const full = renderDashboard({ loops: many, repositoryUrl: REPOSITORY_URL })
    expect(full).not.toContain('not listed')
    for (const maxChars of [6000, 3000]) {
      const bounded = renderDashboard({ loops: many, repositoryUrl: REPOSITORY_URL, maxChars })
      expect(bounded.length).toBeLessThanOrEqual(maxChars)
      const listed = bounded.split('\n').filter((line) => line.startsWith('| `loop-'))
      expect(listed.length).toBeGreaterThan(0)
      expect(listed.every((line) => line.includes('**blocked**'))).toBe(true)
      expect(bounded).toContain(`${40 - listed.length} more loop(s) are not listed`)
      expect(bounded).toContain('<!-- loop-dashboard:resume:loop-01 -->')
    }
  })

  it('says where each queued loop stands, from the record and the statuses of the loops it waits for', () => {
    const row = (loopId: string) => body.split('\n').find((line) => line.startsWith(`| \`${loopId}\` |`)) ?? ''
    expect(row('issue-7')).toMatch(/\| 1 of 2 in line: all 2 slots are in use \(max-loops: 2\) \|$/)
    // The state's saved reason is older: the row says the dependency ended BLOCKED since.
    expect(row('issue-9')).toMatch(
      /\| 2 of 2 in line: a dependency ended short of COMPLETE \(stuck ended BLOCKED\) \|$/,
    )
    expect(row('climbing')).toMatch(/\| - \|$/)
    expect(body).toContain(
      '- [ ] <!-- loop-dashboard:abort:issue-7 --> Abort `issue-7` (queued: it gives up its place in line)',
    )
  })

  it('keeps saying where a queued loop stands when finished loops make room (their statuses still count)', () => {
    const done = Array.from({ length: 40 }, (_, i) => `done-${String(i).padStart(2, '0')}`)
    const loops = [
      ...done.map((loopId) => ({ loopId, state: loopState(loopId, { status: 'complete' }) })),
      { loopId: 'next', state: loopState('next', { status: 'queued' }) },
    ]
    const entry = { loopId: 'next', since: 't', dependsOn: ['done-00'], workflow: 'loop.yml', ref: 'main' }
    const queue = { record: { running: [{ loopId: 'other', since: 't' }], queued: [entry] }, limit: 1 }
    const bounded = renderDashboard({ loops, queue, repositoryUrl: REPOSITORY_URL, maxChars: 1500 })
    expect(bounded).toContain('40 more loop(s) are not listed')
    expect(bounded).toContain('1 of 1 in line: all 1 slots are in use (max-loops: 1)')
  })

  it('matches the golden dashboard (test/golden/dashboard.md)', () => {
    const path = join(import.meta.dirname, '..', '..', 'golden', 'dashboard.md')
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
      writeFileSync(path, body)
      if (process.env.UPDATE_GOLDEN !== '1')
        throw new Error('dashboard.md did not exist and was written; review it and commit it')
    }
    expect(body, 'dashboard.md differs; review the change, then UPDATE_GOLDEN=1 to accept it').toBe(
      readFileSync(path, 'utf8'),
    )
  })
})
