import { describe, expect, it } from 'vitest'
import { checkDependencies, nameOfLoop, parseDependsOnLine } from '../../../src/domain/depends-on.js'
import { queuedNext, queuedReason, renderQueued } from '../../../src/domain/report/queued.js'
import {
  EMPTY_SLOTS,
  type Limit,
  parseSlotsRecord,
  queueWait,
  releaseSlot,
  requestSlot,
  requeue,
  type SlotHolder,
  type SlotsRecord,
  settle,
  slotProblems,
} from '../../../src/domain/slots.js'
import type { LoopStatus } from '../../../src/domain/stages.js'
import { AT, ask, holder, statuses, waiting } from './slot-fixtures.js'

describe('requestSlot: admitted or queued, with a reason', () => {
  it.each<{
    name: string
    record: SlotsRecord
    request: ReturnType<typeof ask>
    statuses: Record<string, LoopStatus>
    limit: Limit
    verdict: 'admitted' | 'queued'
    running: string[]
    queued: string[]
    started?: string[]
    /** The holders in full, where the row is about what a holder records (its run, where to restart it). */
    holders?: SlotHolder[]
  }>([
    {
      name: 'a free slot admits',
      record: { running: [holder('a')], queued: [] },
      request: ask('b'),
      statuses: { a: 'running' },
      limit: 2,
      verdict: 'admitted',
      running: ['a', 'b'],
      queued: [],
    },
    {
      name: 'a full house queues at the end of the line',
      record: { running: [holder('a'), holder('b')], queued: [waiting('c')] },
      request: ask('d'),
      statuses: { a: 'running', b: 'waiting', c: 'queued' },
      limit: 2,
      verdict: 'queued',
      running: ['a', 'b'],
      queued: ['c', 'd'],
    },
    {
      name: 'a loop that holds its slot is admitted again without change',
      record: { running: [holder('a'), holder('b')], queued: [waiting('c')] },
      request: ask('b'),
      statuses: { a: 'running', b: 'running' },
      limit: 2,
      verdict: 'admitted',
      running: ['a', 'b'],
      queued: ['c'],
    },
    {
      name: 'a slot held by a loop that ended is freed and the oldest ready loop takes it, before the newcomer',
      record: { running: [holder('a'), holder('b')], queued: [waiting('c')] },
      request: ask('d'),
      statuses: { a: 'complete', b: 'running', c: 'queued' },
      limit: 2,
      verdict: 'queued',
      running: ['b', 'c'],
      queued: ['d'],
      started: ['c'],
    },
    {
      name: 'a dependency not COMPLETE queues even with room',
      record: EMPTY_SLOTS,
      request: ask('b', ['a']),
      statuses: { a: 'running' },
      limit: 5,
      verdict: 'queued',
      running: [],
      queued: ['b'],
    },
    {
      name: 'dependencies alone queue when there is no limit',
      record: EMPTY_SLOTS,
      request: ask('b', ['a']),
      statuses: {},
      limit: null,
      verdict: 'queued',
      running: [],
      queued: ['b'],
    },
    {
      name: 'a COMPLETE dependency and no limit admit',
      record: EMPTY_SLOTS,
      request: ask('b', ['a']),
      statuses: { a: 'complete' },
      limit: null,
      verdict: 'admitted',
      running: ['b'],
      queued: [],
    },
    {
      name: 'a loop that was running before the limit is admitted over it',
      record: { running: [holder('a')], queued: [] },
      request: ask('b', [], true),
      statuses: { a: 'running', b: 'running' },
      limit: 1,
      verdict: 'admitted',
      running: ['a', 'b'],
      queued: [],
    },
    {
      name: 'a queued loop asking again keeps its place and its dependencies',
      record: { running: [holder('x')], queued: [waiting('b', ['a']), waiting('c')] },
      request: ask('b'),
      statuses: { x: 'running', a: 'running' },
      limit: 1,
      verdict: 'queued',
      running: ['x'],
      queued: ['b', 'c'],
    },
    {
      name: 'a job that holds the slot records its run',
      record: { running: [holder('a', { run: '1' })], queued: [] },
      request: ask('a', [], true, '2'),
      statuses: { a: 'running' },
      limit: 1,
      verdict: 'admitted',
      running: ['a'],
      queued: [],
      holders: [holder('a', { run: '2' })],
    },
    {
      name: 'a newcomer admitted records its run, workflow and ref',
      record: EMPTY_SLOTS,
      request: ask('a', [], false, '7'),
      statuses: {},
      limit: 1,
      verdict: 'admitted',
      running: ['a'],
      queued: [],
      holders: [holder('a', { run: '7', workflow: 'loop.yml', ref: 'refs/heads/main' })],
    },
    {
      name: 'a loop that never gave its slot back (started) is admitted over the limit',
      record: { running: [holder('a'), holder('b')], queued: [] },
      request: ask('c', [], true),
      statuses: { a: 'running', b: 'running', c: 'running' },
      limit: 2,
      verdict: 'admitted',
      running: ['a', 'b', 'c'],
      queued: [],
      holders: [holder('a'), holder('b'), holder('c', { workflow: 'loop.yml', ref: 'refs/heads/main' })],
    },
    {
      name: 'a resumed loop (not started: it gave its slot back) queues at 2 of 2',
      record: { running: [holder('a'), holder('b')], queued: [] },
      request: ask('c'),
      statuses: { a: 'running', b: 'running', c: 'running' },
      limit: 2,
      verdict: 'queued',
      running: ['a', 'b'],
      queued: ['c'],
      holders: [holder('a'), holder('b')],
    },
  ])('$name', (row) => {
    const result = requestSlot(row.record, row.request, statuses(row.statuses), row.limit)
    expect(result.verdict.kind).toBe(row.verdict)
    expect(result.record.running.map((h) => h.loopId)).toEqual(row.running)
    if (row.holders) expect(result.record.running).toEqual(row.holders)
    expect(result.record.queued.map((e) => e.loopId)).toEqual(row.queued)
    expect(result.started.map((e) => e.loopId)).toEqual(row.started ?? [])
    expect(slotProblems(result.record)).toEqual([])
    if (row.limit !== null && !row.request.started) expect(result.record.running.length).toBeLessThanOrEqual(row.limit)
  })

  it('a queued loop asking again keeps the dependencies it was queued with', () => {
    const result = requestSlot(
      { running: [holder('x')], queued: [waiting('b', ['a'])] },
      ask('b'),
      statuses({ x: 'running', a: 'running' }),
      1,
    )
    expect(result.record.queued[0]?.dependsOn).toEqual(['a'])
    expect(result.verdict.kind === 'queued' && result.verdict.wait.dependencies.pending).toEqual(['a'])
  })

  it('a start that read the issue body again replaces the dependencies: a typo it no longer names is dropped', () => {
    const result = requestSlot(
      { running: [holder('x')], queued: [waiting('b', ['a', 'typo'])] },
      { ...ask('b', ['a']), replacesDependencies: true },
      statuses({ x: 'running', a: 'running' }),
      2,
    )
    expect(result.record.queued[0]?.dependsOn).toEqual(['a'])
    expect(result.verdict.kind === 'queued' && result.verdict.wait.dependencies.pending).toEqual(['a'])
  })

  it('a queued loop whose edited body names no dependency any more is admitted by its start, without a limit too', () => {
    const result = requestSlot(
      { running: [], queued: [waiting('b', ['typo'])] },
      { ...ask('b'), replacesDependencies: true },
      statuses({}),
      null,
    )
    expect(result.verdict.kind).toBe('admitted')
    expect(result.record.running.map((h) => h.loopId)).toEqual(['b'])
    expect(result.record.queued).toEqual([])
  })
})

describe('releaseSlot and settle: who is next', () => {
  it.each<{
    name: string
    record: SlotsRecord
    release: string
    statuses: Record<string, LoopStatus>
    limit: Limit
    running: string[]
    queued: string[]
    started: string[]
    released: boolean
  }>([
    {
      name: 'the oldest ready loop takes the freed slot',
      record: { running: [holder('a'), holder('b')], queued: [waiting('c'), waiting('d')] },
      release: 'a',
      statuses: { a: 'complete', b: 'running' },
      limit: 2,
      running: ['b', 'c'],
      queued: ['d'],
      started: ['c'],
      released: true,
    },
    {
      name: 'a loop whose dependency is not COMPLETE is passed over for a younger ready one',
      record: { running: [holder('a')], queued: [waiting('c', ['b']), waiting('d')] },
      release: 'a',
      statuses: { a: 'complete', b: 'running' },
      limit: 1,
      running: ['d'],
      queued: ['c'],
      started: ['d'],
      released: true,
    },
    {
      name: 'the dependent starts once its dependency is COMPLETE',
      record: { running: [holder('b')], queued: [waiting('c', ['b'])] },
      release: 'b',
      statuses: { b: 'complete' },
      limit: 2,
      running: ['c'],
      queued: [],
      started: ['c'],
      released: true,
    },
    {
      name: 'a dependency that ended BLOCKED keeps its dependent queued',
      record: { running: [holder('b')], queued: [waiting('c', ['b'])] },
      release: 'b',
      statuses: { b: 'blocked' },
      limit: 2,
      running: [],
      queued: ['c'],
      started: [],
      released: true,
    },
    {
      name: 'an aborted queued loop leaves the line',
      record: { running: [holder('a')], queued: [waiting('c'), waiting('d')] },
      release: 'c',
      statuses: { a: 'running', c: 'aborted' },
      limit: 1,
      running: ['a'],
      queued: ['d'],
      started: [],
      released: true,
    },
    {
      name: 'a second release of the same loop changes nothing',
      record: { running: [holder('c')], queued: [waiting('d')] },
      release: 'a',
      statuses: { a: 'complete', c: 'running' },
      limit: 1,
      running: ['c'],
      queued: ['d'],
      started: [],
      released: false,
    },
    {
      name: 'several freed slots (holders that ended unreleased) admit several loops, in order',
      record: { running: [holder('a'), holder('b'), holder('x')], queued: [waiting('c'), waiting('d'), waiting('e')] },
      release: 'x',
      statuses: { a: 'capped', b: 'aborted', x: 'complete' },
      limit: 2,
      running: ['c', 'd'],
      queued: ['e'],
      started: ['c', 'd'],
      released: true,
    },
  ])('$name', (row) => {
    const result = releaseSlot(row.record, row.release, statuses(row.statuses), row.limit, AT)
    expect(result.record.running.map((h) => h.loopId)).toEqual(row.running)
    expect(result.record.queued.map((e) => e.loopId)).toEqual(row.queued)
    expect(result.started.map((e) => e.loopId)).toEqual(row.started)
    expect(result.released).toBe(row.released)
    expect(slotProblems(result.record)).toEqual([])
  })

  it('settle reports the holders it freed', () => {
    const settled = settle({ running: [holder('a'), holder('b')], queued: [] }, statuses({ a: 'blocked' }), 2, AT)
    expect(settled.freed).toEqual(['a'])
  })

  it('requeue puts a loop whose dispatch failed back at the head of the line, without its slot', () => {
    expect(requeue({ running: [holder('c')], queued: [waiting('d')] }, waiting('c'))).toEqual({
      running: [],
      queued: [waiting('c'), waiting('d')],
    })
  })
})

describe('where a queued loop stands, and what it is told', () => {
  const record: SlotsRecord = {
    running: [holder('issue-1'), holder('issue-2')],
    queued: [waiting('issue-3'), waiting('issue-5', ['issue-4'])],
  }
  it.each<{ name: string; loopId: string; statuses: Record<string, LoopStatus>; reason: RegExp; next: RegExp }>([
    {
      name: 'waiting for a slot',
      loopId: 'issue-3',
      statuses: {},
      reason: /all 2 slots are in use \(max-loops: 2\)/,
      next: /starts by itself when a running loop ends/,
    },
    {
      name: 'waiting for a dependency',
      loopId: 'issue-5',
      statuses: { 'issue-4': 'running' },
      reason: /waits for #4 to be COMPLETE/,
      next: /once every dependency is COMPLETE/,
    },
    {
      name: 'a dependency ended short',
      loopId: 'issue-5',
      statuses: { 'issue-4': 'blocked' },
      reason: /a dependency ended short of COMPLETE \(#4 ended BLOCKED\)/,
      next: /stays queued: #4 must be resumed/,
    },
  ])('$name', (row) => {
    const wait = queueWait(record, row.loopId, statuses(row.statuses), 2)
    expect(wait).not.toBeNull()
    if (!wait) return
    expect(queuedReason(wait, nameOfLoop)).toMatch(row.reason)
    expect(queuedNext(wait, nameOfLoop)).toMatch(row.next)
    const rendered = renderQueued({ loopId: row.loopId, wait }, nameOfLoop)
    // No count of the line or of slots in use: loops join behind and take slots without rewriting it.
    expect(rendered).toContain(`**Place in line:** ${['1st', '2nd'][wait.position - 1]}.\n`)
    expect(rendered).not.toMatch(/of 2 queued|in use\./)
  })

  it('a loop far back in line is told when its comment will next say its place', () => {
    const line = Array.from({ length: 12 }, (_, i) => waiting(`l${i + 1}`))
    const long = { running: [holder('a'), holder('b')], queued: line }
    const at = (loopId: string) => renderQueued({ loopId, wait: queueWait(long, loopId, statuses(), 2)! })
    expect(at('l10')).not.toContain('This comment is updated once')
    expect(at('l11')).toContain(
      '**Place in line:** 11th. This comment is updated once it is among the first 10 in line',
    )
  })

  it('without max-loops the place in line counts no slots (there are none)', () => {
    const wait = queueWait(record, 'issue-5', statuses({ 'issue-4': 'running' }), null)!
    const rendered = renderQueued({ loopId: 'issue-5', wait }, nameOfLoop)
    expect(rendered).toContain('**Place in line:** 2nd.\n')
    expect(rendered).not.toContain('slots')
  })

  it("says which run wrote it and when: its own job, or another loop's that ended", () => {
    const wait = queueWait(record, 'issue-3', statuses(), 2)!
    const writer = { runId: '91', runUrl: 'https://github.com/o/r/actions/runs/91', at: '2026-01-01T10:00:30.000Z' }
    expect(renderQueued({ loopId: 'issue-3', wait, writer })).toContain(
      'As of 2026-01-01 10:00 UTC · [this job](https://github.com/o/r/actions/runs/91)',
    )
    const told = renderQueued({ loopId: 'issue-3', wait, writer: { ...writer, releasedBy: 'issue-2' } })
    expect(told).toContain(
      'As of 2026-01-01 10:00 UTC · updated by [run 91](https://github.com/o/r/actions/runs/91), when `issue-2` ended',
    )
    expect(told).not.toContain('this job')
  })

  it('a loop not in line has no place', () => {
    expect(queueWait(record, 'issue-1', statuses(), 2)).toBeNull()
  })
})

describe('queue.json as stored', () => {
  it.each([
    ['a valid record', JSON.stringify({ running: [holder('a')], queued: [waiting('b', ['a'])] }), null],
    ['not JSON', '{', /not JSON/],
    ['a field missing', JSON.stringify({ running: [] }), /queued/],
    ['an unknown field', JSON.stringify({ running: [], queued: [], extra: 1 }), /extra|Unrecognized/i],
    ['eleven dependencies', JSON.stringify({ running: [], queued: [waiting('b', Array(11).fill('a'))] }), /dependsOn/],
  ])('%s', (_name, text, problem) => {
    const parsed = parseSlotsRecord(text)
    if (problem === null) expect(parsed).toEqual({ record: JSON.parse(text) })
    else expect('problem' in parsed && parsed.problem).toMatch(problem)
  })
})

describe('depends-on from an issue body (untrusted text)', () => {
  it.each<[string, string, ReturnType<typeof parseDependsOnLine>]>([
    ['no line', 'Fix the totals.', { kind: 'none' }],
    ['hashes and commas', 'Fix it.\ndepends-on: #12, #15\n', { kind: 'issues', issues: [12, 15] }],
    ['plain numbers and spaces, any case', 'Depends-On:  3 4  4', { kind: 'issues', issues: [3, 4] }],
    [
      'a shell word',
      'depends-on: #12; rm -rf /',
      { kind: 'refused', message: expect.stringContaining('("#12;" is no issue number)') },
    ],
    // What an issue template leaves: no dependency.
    ['an empty line', 'depends-on:', { kind: 'none' }],
    ['an empty line in bold, as a list item', '- **depends-on:** ', { kind: 'none' }],
    [
      'a loop id',
      'depends-on: issue-12',
      { kind: 'refused', message: expect.stringContaining('"issue-12" is no issue number') },
    ],
    ['zero', 'depends-on: #0', { kind: 'refused', message: expect.stringContaining('"#0"') }],
    ['itself', 'depends-on: #7', { kind: 'refused', message: expect.stringContaining('itself') }],
    [
      'two lines',
      'depends-on: #1\ndepends-on: #2',
      { kind: 'refused', message: expect.stringContaining("2 'depends-on:' lines") },
    ],
    [
      'eleven issues',
      `depends-on: ${Array.from({ length: 11 }, (_, i) => `#${i + 10}`).join(', ')}`,
      { kind: 'refused', message: expect.stringContaining('names 11 issues; expected at most 10') },
    ],
  ])('%s', (_name, body, expected) => {
    expect(parseDependsOnLine(body, 7)).toEqual(expected)
  })

  it('the config and the body together are checked as one list', () => {
    expect(checkDependencies([1, 2, 2], null, 'x')).toEqual({ kind: 'issues', issues: [1, 2] })
    expect(checkDependencies([], null, 'x')).toEqual({ kind: 'none' })
  })
})
