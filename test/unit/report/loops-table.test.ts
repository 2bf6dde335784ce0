// One row model for every loop, rendered as the CLI's columns and as the dashboard's Markdown table.
import { describe, expect, it } from 'vitest'
import {
  type ListedLoop,
  loopsTableRows,
  renderLoopsMarkdown,
  renderLoopsText,
} from '../../../src/domain/report/loops-table.js'
import type { LoopState } from '../../../src/domain/state.js'
import { dashboardLoops, loopState, REPOSITORY_URL } from '../../golden/dashboard-loops.js'

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
        spent: '3 min · 5500 tokens · $0.06',
        lastVerdict: 'fail (1 of 3)',
        issue: { number: 42, url: `${REPOSITORY_URL}/issues/42` },
        pullRequest: { number: 57, url: `${REPOSITORY_URL}/pull/57` },
        lastRun: { id: '9100000003', url: `${REPOSITORY_URL}/actions/runs/9100000003` },
      },
    },
    {
      id: 'capped',
      want: { status: 'capped', iterations: '2 of 2', spent: '45 s', lastVerdict: 'fail (2 of 2)', issue: null },
    },
    { id: 'gated', want: { status: 'waiting', lastVerdict: 'pass (2)', pullRequest: null, lastRun: null } },
    { id: 'climbing', want: { status: 'running', spent: '1 min · 1200 tokens', lastVerdict: '-' } },
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

  it('shows a status it has never heard of as it is: a new status is one more value', () => {
    const queued = { loopId: 'later', state: loopState('later', { status: 'queued' as LoopState['status'] }) }
    const [row] = loopsTableRows([queued])
    expect(row?.status).toBe('queued')
    expect(renderLoopsText([row!]).split('\n')[1]).toMatch(/^later\s+IMPLEMENT\s+queued\s/)
  })
})

describe('renderLoopsText (status --all)', () => {
  it('pads every column under its title', () => {
    const text = renderLoopsText(loopsTableRows(dashboardLoops().slice(0, 2)))
    const [header, first, second] = text.split('\n')
    expect(header).toMatch(
      /^loop\s+stage\s+status\s+iterations\s+spent\s+last verdict\s+issue\s+pull request\s+last run$/,
    )
    expect(first).toMatch(/^capped\s+IMPLEMENT\s+capped\s+2 of 2\s+45 s\s+fail \(2 of 2\)\s+-\s+-\s+9100000007$/)
    expect(second).toMatch(/^stuck\s+IMPLEMENT\s+blocked\s+3 of 8\s+.+#42\s+#57\s+9100000003$/)
    expect(header?.indexOf('status')).toBe(first?.indexOf('capped', 6))
  })
})

describe('renderLoopsMarkdown (the dashboard)', () => {
  it('escapes every cell, so a cell cannot split the table or open HTML', () => {
    const hostile: ListedLoop = { loopId: 'x', state: null, problem: 'a | b <b>bold</b> @team' }
    const table = renderLoopsMarkdown(loopsTableRows([hostile]))
    const row = table.split('\n')[2] ?? ''
    expect(row.split(' | ')).toHaveLength(9)
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
