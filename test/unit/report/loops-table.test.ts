// One row model for every loop, rendered as the CLI's columns and as the dashboard's Markdown table.
import { describe, expect, it } from 'vitest'
import {
  type ListedLoop,
  loopsTableRows,
  renderLoopsMarkdown,
  renderLoopsText,
  spentText,
} from '../../../src/domain/report/loops-table.js'
import type { LoopState } from '../../../src/domain/state.js'
import { dashboardLoops, dashboardQueue, loopState, REPOSITORY_URL } from '../../golden/dashboard-loops.js'

const byId = (rows: ReturnType<typeof loopsTableRows>, id: string) => rows.find((row) => row.loopId === id)

describe('loopsTableRows', () => {
  const rows = loopsTableRows(dashboardLoops(), REPOSITORY_URL)

  it('sorts the loops by id', () => {
    expect(rows.map((row) => row.loopId)).toEqual([
      'broken',
      'capped',
      'climbing',
      'gated',
      'green',
      'hostile',
      'issue-7',
      'issue-9',
      'stuck',
    ])
  })

  it.each([
    {
      id: 'stuck',
      want: {
        stage: 'IMPLEMENT',
        status: 'blocked',
        iterations: '3 of 8',
        spent: '3 of 60 min · 5,500 of 50,000 tokens · $0.06 of $5',
        lastVerdict: 'fail: check-1 (1 of 3)',
        failingChecks: ['check-1'],
        issue: { number: 42, url: `${REPOSITORY_URL}/issues/42` },
        pullRequest: { number: 57, url: `${REPOSITORY_URL}/pull/57` },
        lastRun: { id: '9100000003', url: `${REPOSITORY_URL}/actions/runs/9100000003` },
      },
    },
    {
      id: 'capped',
      want: {
        status: 'capped',
        iterations: '2 of 2',
        spent: '45 s',
        lastVerdict: 'fail: check-1, check-2 (2 of 2)',
        failingChecks: ['check-1', 'check-2'],
        issue: null,
      },
    },
    {
      id: 'gated',
      want: { status: 'waiting', lastVerdict: 'pass (all 2)', failingChecks: [], pullRequest: null, lastRun: null },
    },
    { id: 'climbing', want: { status: 'running', spent: '1 min · 1,200 tokens', lastVerdict: '-' } },
    {
      id: 'broken',
      want: { stage: '-', status: 'unreadable', lastVerdict: 'loop-state.json failed validation | moved aside' },
    },
  ])('$id', ({ id, want }) => {
    expect(byId(rows, id)).toMatchObject(want)
  })

  it('names the issue without a link where there is no repository (a local state directory)', () => {
    expect(byId(loopsTableRows(dashboardLoops()), 'stuck')?.issue).toEqual({ number: 42, url: null })
  })

  it.each<{ name: string; repositoryUrl?: string; lastRun: { id: string; url: string }; want: string | null }>([
    {
      name: 'from the repository`s address (the dashboard; status --all --remote of a GitHub remote)',
      repositoryUrl: 'https://ghe.example.com/team/service',
      lastRun: { id: '77', url: 'https://elsewhere.example/x' },
      want: 'https://ghe.example.com/team/service/actions/runs/77',
    },
    {
      name: 'without one, the run`s address the state kept',
      lastRun: { id: '77', url: 'https://github.com/acme/demo/actions/runs/77' },
      want: 'https://github.com/acme/demo/actions/runs/77',
    },
    {
      name: 'without one, no address that is not plainly that run`s',
      lastRun: { id: '77', url: 'javascript:alert(1)//actions/runs/77' },
      want: null,
    },
    { name: 'an id that is no run id', repositoryUrl: REPOSITORY_URL, lastRun: { id: '7/../x', url: '' }, want: null },
  ])('the last run`s address: $name', ({ repositoryUrl, lastRun, want }) => {
    const [row] = loopsTableRows([{ loopId: 'l', state: loopState('l', { lastRun }) }], repositoryUrl)
    expect(row?.lastRun).toEqual({ id: lastRun.id, url: want })
    expect(renderLoopsText([row!]).split('\n')[1]).toMatch(
      new RegExp(`\\s${want ?? lastRun.id.replace(/\./g, '\\.')}\\s+2025-01-01 00:00 UTC$`),
    )
  })

  it.each<{ name: string; usage: [number, number, number]; budget: LoopState['budget']; want: string }>([
    { name: 'no budget, nothing reported but time', usage: [45_000, 0, 0], budget: {}, want: '45 s' },
    { name: 'under half a second: not nothing', usage: [242, 0, 0], budget: {}, want: '<1 s' },
    { name: 'nothing at all (it never ran)', usage: [0, 0, 0], budget: {}, want: '0 s' },
    { name: 'no budget', usage: [200_000, 5500, 0.06], budget: {}, want: '3 min · 5,500 tokens · $0.06' },
    {
      name: 'every budget',
      usage: [720_000, 3000, 0.4],
      budget: { minutes: 60, tokens: 50_000, costUsd: 5 },
      want: '12 of 60 min · 3,000 of 50,000 tokens · $0.40 of $5',
    },
    {
      name: 'a budget is shown before anything is spent of it',
      usage: [20_000, 0, 0],
      budget: { tokens: 1_000_000, costUsd: 2.5 },
      want: '20 s · 0 of 1,000,000 tokens · $0.00 of $2.5',
    },
    {
      name: 'a minutes budget, under a minute spent',
      usage: [20_000, 0, 0],
      budget: { minutes: 0.5 },
      want: '20 s of 0.5 min',
    },
  ])('spent: $name', ({ usage, budget, want }) => {
    const [wallMs, tokens, costUsd] = usage
    const state = loopState('l', { budget, usage: { log: [], compacted: 0, wallMs, tokens, costUsd } })
    expect(spentText(state)).toBe(want)
  })

  it('shows a status as the state holds it: a new status is one more value', () => {
    const queued = { loopId: 'later', state: loopState('later', { status: 'queued' as LoopState['status'] }) }
    const [row] = loopsTableRows([queued])
    expect(row?.status).toBe('queued')
    expect(renderLoopsText([row!]).split('\n')[1]).toMatch(/^later\s+-\s+queued\s/)
  })

  const queued = (fields: Partial<LoopState>) => ({
    loopId: 'q',
    state: loopState('q', { status: 'queued', ...fields }),
  })
  const entry = (loopId: string, dependsOn: string[] = []) => ({
    loopId,
    since: 't',
    dependsOn,
    workflow: 'loop.yml',
    ref: 'main',
  })
  it.each<{ name: string; loops: ListedLoop[]; queue: Parameters<typeof loopsTableRows>[2]; want: string }>([
    {
      name: 'second in line for a slot',
      loops: [queued({})],
      queue: { record: { running: [{ loopId: 'a', since: 't' }], queued: [entry('z'), entry('q')] }, limit: 1 },
      want: '2 of 2 in line: its one slot is in use (max-loops: 1)',
    },
    {
      name: 'waiting for an issue loop that runs, with no limit',
      loops: [queued({}), { loopId: 'issue-4', state: loopState('issue-4', { status: 'running' }) }],
      queue: { record: { running: [], queued: [entry('q', ['issue-4'])] }, limit: null },
      want: '1 of 1 in line: it waits for #4 to be COMPLETE',
    },
    {
      name: 'its dependency ended short of COMPLETE since it was told',
      loops: [
        queued({ statusReason: 'it waits for #4 to be COMPLETE' }),
        { loopId: 'issue-4', state: loopState('issue-4', { status: 'capped' }) },
      ],
      queue: { record: { running: [], queued: [entry('q', ['issue-4'])] }, limit: 2 },
      want: '1 of 1 in line: a dependency ended short of COMPLETE (#4 ended CAPPED)',
    },
    {
      name: 'behind a loop aborted in line, beside one that ended without giving its slot back',
      loops: [
        queued({}),
        { loopId: 'gone', state: loopState('gone', { status: 'aborted' }) },
        { loopId: 'dead', state: loopState('dead', { status: 'complete' }) },
      ],
      queue: {
        record: {
          running: [
            { loopId: 'a', since: 't' },
            { loopId: 'dead', since: 't' },
          ],
          queued: [entry('gone'), entry('q')],
        },
        limit: 2,
      },
      want: '1 of 1 in line: a slot is free; it starts at the next change of the queue',
    },
    {
      name: 'one slot free, first of two ready loops in line: it takes it at the next change',
      loops: [queued({}), { loopId: 'p', state: loopState('p', { status: 'queued' }) }],
      queue: { record: { running: [{ loopId: 'a', since: 't' }], queued: [entry('q'), entry('p')] }, limit: 2 },
      want: '1 of 2 in line: a slot is free; it starts at the next change of the queue',
    },
    {
      name: 'one slot free, second of two ready loops in line: the slot is the one ahead`s',
      loops: [
        queued({}),
        { loopId: 'p', state: loopState('p', { status: 'queued' }) },
        { loopId: 'dead', state: loopState('dead', { status: 'complete' }) },
      ],
      queue: {
        record: {
          running: [
            { loopId: 'a', since: 't' },
            { loopId: 'dead', since: 't' },
          ],
          queued: [entry('p'), entry('q')],
        },
        limit: 2,
      },
      want: '2 of 2 in line: 1 slot is free, for the 1 ready loop ahead of it in line (max-loops: 2)',
    },
    {
      name: 'two slots free, second of two ready loops: one is left for it',
      loops: [queued({}), { loopId: 'p', state: loopState('p', { status: 'queued' }) }],
      queue: { record: { running: [{ loopId: 'a', since: 't' }], queued: [entry('p'), entry('q')] }, limit: 3 },
      want: '2 of 2 in line: a slot is free; it starts at the next change of the queue',
    },
    {
      name: 'one slot free, behind a loop that waits for its dependency (passed over): the slot is its',
      loops: [
        queued({}),
        { loopId: 'p', state: loopState('p', { status: 'queued' }) },
        { loopId: 'issue-4', state: loopState('issue-4', { status: 'running' }) },
      ],
      queue: {
        record: { running: [{ loopId: 'issue-4', since: 't' }], queued: [entry('p', ['issue-4']), entry('q')] },
        limit: 2,
      },
      want: '2 of 2 in line: a slot is free; it starts at the next change of the queue',
    },
    {
      name: 'three slots free under the reader`s limit, three ready ahead: none left for it, said as a supposition',
      loops: [
        queued({}),
        ...['p1', 'p2', 'p3'].map((loopId) => ({ loopId, state: loopState(loopId, { status: 'queued' as const }) })),
      ],
      queue: {
        record: { running: [], queued: [entry('p1'), entry('p2'), entry('p3'), entry('q')], limit: 1 },
        limit: 3,
        supposed: true,
      },
      want: '4 of 4 in line: under max-loops 3, 3 slots would be free, for the 3 ready loops ahead of it in line',
    },
    {
      name: 'no limit, its dependency COMPLETE, not admitted yet: no slot is said to be in use',
      loops: [queued({}), { loopId: 'issue-4', state: loopState('issue-4', { status: 'complete' }) }],
      queue: { record: { running: [], queued: [entry('q', ['issue-4'])] }, limit: null },
      want: '1 of 1 in line: its dependencies are COMPLETE; it starts at the next change of the queue',
    },
    {
      name: 'no limit, its dependency COMPLETE, another loop running',
      loops: [
        queued({}),
        { loopId: 'issue-4', state: loopState('issue-4', { status: 'complete' }) },
        { loopId: 'issue-3', state: loopState('issue-3', { status: 'running' }) },
      ],
      queue: {
        record: { running: [{ loopId: 'issue-3', since: 't' }], queued: [entry('q', ['issue-4'])] },
        limit: null,
      },
      want: '1 of 1 in line: its dependencies are COMPLETE; it starts at the next change of the queue',
    },
    {
      name: 'admitted, its job not started yet',
      loops: [queued({ statusReason: 'its one slot is in use (max-loops: 1)' })],
      queue: { record: { running: [{ loopId: 'q', since: 't' }], queued: [] }, limit: 1 },
      want: 'admitted: its job is starting',
    },
    {
      name: 'no record read (a local state directory): the reason it saved',
      loops: [queued({ statusReason: 'its one slot is in use (max-loops: 1)' })],
      queue: null,
      want: 'its one slot is in use (max-loops: 1)',
    },
    { name: 'a loop that is not queued', loops: [{ ...queued({}), state: loopState('q') }], queue: null, want: '-' },
    {
      name: 'the limit not known (status --all --remote without --max-loops): none invented, the place still said',
      loops: [queued({})],
      queue: {
        record: { running: [{ loopId: 'a', since: 't' }], queued: [entry('z'), entry('q')] },
        limit: 'unknown',
      },
      want: '2 of 2 in line: it waits for a slot: 1 running, limit unknown (give --max-loops)',
    },
    {
      name: 'the limit not known, waiting for a dependency: said as with one',
      loops: [queued({}), { loopId: 'issue-4', state: loopState('issue-4', { status: 'running' }) }],
      queue: { record: { running: [], queued: [entry('q', ['issue-4'])] }, limit: 'unknown' },
      want: '1 of 1 in line: it waits for #4 to be COMPLETE',
    },
  ])('queue: $name', ({ loops, queue, want }) => {
    expect(byId(loopsTableRows(loops, undefined, queue), 'q')?.queue).toBe(want)
  })

  it('reads the places from the record it is given', () => {
    const rows = loopsTableRows(dashboardLoops(), REPOSITORY_URL, dashboardQueue())
    expect(byId(rows, 'issue-7')?.queue).toBe('1 of 2 in line: all 2 slots are in use (max-loops: 2)')
  })
})

describe('renderLoopsText (status --all)', () => {
  it('pads every column under its title', () => {
    const text = renderLoopsText(loopsTableRows(dashboardLoops().slice(0, 2)))
    const [header, first, second] = text.split('\n')
    // No loop is queued: no queue column, which would say `-` on every line.
    expect(header).toMatch(
      /^loop\s+stage\s+status\s+iterations\s+spent\s+last verdict\s+issue\s+pull request\s+last run\s+updated$/,
    )
    // Without the repository's address, each run's own address as the state kept it.
    expect(first).toMatch(
      /^capped\s+IMPLEMENT\s+capped\s+2 of 2\s+45 s\s+fail: check-1, check-2 \(2 of 2\)\s+-\s+-\s+https:\/\/github\.com\/acme\/demo\/actions\/runs\/9100000007\s+2025-01-01 00:00 UTC$/,
    )
    expect(second).toMatch(
      /^stuck\s+IMPLEMENT\s+blocked\s+3 of 8\s+.+#42\s+#57\s+\S+\/actions\/runs\/9100000003\s+2025-01-01 00:00 UTC$/,
    )
    expect(header?.indexOf('status')).toBe(first?.indexOf('capped', 6))
  })
})

describe('the rows a person reads at a glance', () => {
  it.each<{ name: string; minutesBefore: number; want: string }>([
    { name: 'seconds ago', minutesBefore: 0.5, want: 'just now' },
    { name: 'minutes', minutesBefore: 59, want: '59m ago' },
    { name: 'hours and minutes', minutesBefore: 130, want: '2h 10m ago' },
    { name: 'days and hours (a running loop that stopped)', minutesBefore: 3 * 1440 + 4 * 60 + 5, want: '3d 4h ago' },
    { name: 'a clock ahead of the rewrite', minutesBefore: -5, want: 'just now' },
  ])('updated, counted to the rewrite: $name', ({ minutesBefore, want }) => {
    const now = new Date('2025-01-05T12:00:00.000Z')
    const updatedAt = new Date(now.getTime() - minutesBefore * 60_000).toISOString()
    const [row] = loopsTableRows(
      [{ loopId: 'l', state: loopState('l', { updatedAt }) }],
      undefined,
      null,
      undefined,
      now,
    )
    expect(row?.updated).toBe(want)
  })

  it('updated without a rewrite time is the UTC minute, and - for a time that is none', () => {
    const rows = loopsTableRows([
      { loopId: 'a', state: loopState('a', { updatedAt: '2025-03-04T05:06:59.000Z' }) },
      { loopId: 'b', state: loopState('b', { updatedAt: 'later' }) },
    ])
    expect(rows.map((row) => row.updated)).toEqual(['2025-03-04 05:06 UTC', '-'])
  })

  const checks = (verdicts: string[]) => ({
    iteration: 1,
    at: '2025-01-01T00:10:00.000Z',
    results: verdicts.map((verdict, index) => ({
      ...(dashboardLoops().find((loop) => loop.loopId === 'stuck')?.state?.lastVerification?.results[0] as object),
      name: ['unit', 'lint', 'types', 'build', 'e2e'][index] as string,
      verdict,
    })),
  })
  it.each<{ name: string; verdicts: string[]; want: string }>([
    { name: 'all passed', verdicts: ['pass', 'pass', 'pass', 'pass'], want: 'pass (all 4)' },
    { name: 'the failing checks named', verdicts: ['fail', 'fail', 'pass'], want: 'fail: unit, lint (2 of 3)' },
    {
      name: 'a timeout and an error fail too',
      verdicts: ['pass', 'timeout', 'error'],
      want: 'fail: lint, types (2 of 3)',
    },
    {
      name: 'past three, the rest counted',
      verdicts: ['fail', 'fail', 'fail', 'fail', 'fail'],
      want: 'fail: unit, lint, types +2 more (5 of 5)',
    },
  ])('last verdict: $name', ({ verdicts, want }) => {
    const state = loopState('l', { lastVerification: checks(verdicts) as LoopState['lastVerification'] })
    expect(loopsTableRows([{ loopId: 'l', state }])[0]?.lastVerdict).toBe(want)
  })

  it('a loop queued before its first iteration, or aborted there, is in no stage; one queued after a resume keeps its own', () => {
    const rows = loopsTableRows([
      { loopId: 'new', state: loopState('new', { status: 'queued' }) },
      { loopId: 'resumed', state: loopState('resumed', { status: 'queued', iteration: 4 }) },
      { loopId: 'x-aborted-in-line', state: loopState('x-aborted-in-line', { status: 'aborted' }) },
    ])
    expect(rows.map((row) => [row.stage, row.iterations])).toEqual([
      ['-', 'not started (cap 10)'],
      ['IMPLEMENT', '4 of 10'],
      ['-', 'not started (cap 10)'],
    ])
  })

  it('the text view cuts an unreadable state`s long problem and shows the queue column only with a queued loop', () => {
    const problem = `loop-state:x/loop-state.json is not a valid loop state (${'iteration: expected number; '.repeat(12)})`
    const broken: ListedLoop = { loopId: 'x', state: null, problem }
    const [row] = loopsTableRows([broken])
    expect(row?.lastVerdict).toBe(problem)
    const line = renderLoopsText([row!]).split('\n')[1] ?? ''
    expect(line).toContain(`${problem.slice(0, 59)}…`)
    expect(line).not.toContain(problem.slice(0, 61))
    const withQueued = renderLoopsText(
      loopsTableRows([broken, { loopId: 'q', state: loopState('q', { status: 'queued' }) }]),
    )
    expect(withQueued.split('\n')[0]).toMatch(/\slast run\s+queue\s+updated$/)
  })
})

describe('renderLoopsMarkdown (the dashboard)', () => {
  it('escapes every cell, so a cell cannot split the table or open HTML', () => {
    const hostile: ListedLoop = { loopId: 'x', state: null, problem: 'a | b <b>bold</b> @team' }
    const table = renderLoopsMarkdown(loopsTableRows([hostile]))
    const row = table.split('\n')[2] ?? ''
    expect(row.split(' | ')).toHaveLength(11)
    expect(row).toContain('a \\| b &lt;b&gt;bold&lt;/b&gt; @\u200bteam')
  })

  it('links the issue, the pull request and the last run', () => {
    const table = renderLoopsMarkdown(loopsTableRows(dashboardLoops(), REPOSITORY_URL))
    const stuck = table.split('\n').find((line) => line.startsWith('| `stuck`'))
    expect(stuck).toContain(`[\\#42](${REPOSITORY_URL}/issues/42)`)
    expect(stuck).toContain(`[\\#57](${REPOSITORY_URL}/pull/57)`)
    expect(stuck).toContain(`[run 9100000003](${REPOSITORY_URL}/actions/runs/9100000003)`)
  })
})
