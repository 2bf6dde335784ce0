// Reading ticks from an edit of the dashboard: a box is known by its marker, not its words (which carry
// live state); one unticked before the edit and ticked after it counts: as a command when the loops
// still offer its action, as a stale tick to say and untick when they no longer do.
import { describe, expect, it } from 'vitest'
import { readTicks } from '../../../src/domain/dashboard-ticks.js'
import { dashboardBoxes, renderDashboard } from '../../../src/domain/report/dashboard.js'
import { dashboardLoops, loopState, REPOSITORY_URL } from '../../golden/dashboard-loops.js'

const loops = dashboardLoops()
const offered = dashboardBoxes(loops)
const written = renderDashboard({ loops, repositoryUrl: REPOSITORY_URL })
const lineOf = (marker: string) => written.split('\n').find((line) => line.includes(marker)) ?? ''
const resumeStuck = lineOf('<!-- loop-dashboard:resume:stuck -->')
const approveGated = lineOf('<!-- loop-dashboard:approve=verifier:gated -->')
const tick = (body: string, line: string, box = '[x]') => body.replace(line, line.replace('[ ]', box))
const crlf = (body: string) => body.replace(/\n/g, '\r\n')
const named = (t: { loopId: string; action: { kind: string; gate?: string } }) =>
  `${t.loopId}:${t.action.kind === 'approve' ? `approve=${t.action.gate}` : t.action.kind}`

describe('readTicks', () => {
  it.each<{ name: string; before: string; after: string; want: string[]; stale?: string[]; ignored?: number }>([
    { name: 'a box ticked', before: written, after: tick(written, resumeStuck), want: ['stuck:resume'] },
    {
      name: 'ticked with a capital X',
      before: written,
      after: tick(written, resumeStuck, '[X]'),
      want: ['stuck:resume'],
    },
    {
      name: 'two boxes in one edit',
      before: written,
      after: tick(tick(written, resumeStuck), approveGated),
      want: ['gated:approve=verifier', 'stuck:resume'],
    },
    {
      name: 'the web editor`s CRLF line ends',
      before: crlf(written),
      after: crlf(tick(written, resumeStuck)),
      want: ['stuck:resume'],
    },
    { name: 'nothing ticked (the text edited)', before: written, after: `${written}\nthanks!`, want: [] },
    {
      name: 'a box ticked before and still ticked',
      before: tick(written, resumeStuck),
      after: tick(tick(written, resumeStuck), 'nothing'),
      want: [],
      ignored: 1,
    },
    { name: 'a box unticked', before: tick(written, resumeStuck), after: written, want: [] },
    {
      name: 'a forged line, added ticked by the edit',
      before: written,
      after: `${written}\n- [x] <!-- loop-dashboard:resume:green --> Resume \`green\``,
      want: [],
      ignored: 1,
    },
    {
      name: 'a forged copy of an offered line, added ticked (not unticked before)',
      before: written.replace(`${resumeStuck}\n`, ''),
      after: `${written.replace(`${resumeStuck}\n`, '')}\n${resumeStuck.replace('[ ]', '[x]')}`,
      want: [],
      ignored: 1,
    },
    {
      name: 'the box`s words differ from what the loops give now (its status or reason moved): the marker counts',
      before: written.replace(resumeStuck, resumeStuck.replace(/\(blocked: .*\)$/, '(blocked: an older reason)')),
      after: written.replace(
        resumeStuck,
        resumeStuck.replace('[ ]', '[x]').replace(/\(blocked: .*\)$/, '(blocked: an older reason)'),
      ),
      want: ['stuck:resume'],
    },
    {
      name: 'a marker for an action the loop no longer offers (abort a loop that is COMPLETE now): stale',
      before: `${written}\n- [ ] <!-- loop-dashboard:abort:green --> Abort \`green\` (running)`,
      after: `${written}\n- [x] <!-- loop-dashboard:abort:green --> Abort \`green\` (running)`,
      want: [],
      stale: ['green:abort'],
    },
    {
      name: 'a marker that is not where the controller writes it (after the words)',
      before: written.replace(resumeStuck, '- [ ] Resume it <!-- loop-dashboard:resume:stuck -->'),
      after: written.replace(resumeStuck, '- [x] Resume it <!-- loop-dashboard:resume:stuck -->'),
      want: [],
    },
    { name: 'a ticked task without our marker', before: '- [ ] ship it', after: '- [x] ship it', want: [] },
  ])('$name', ({ before, after, want, stale, ignored }) => {
    const reading = readTicks(before, after, offered)
    expect(reading.ticks.map(named).sort()).toEqual(want)
    expect(reading.stale.map(named)).toEqual(stale ?? [])
    expect(reading.ignored).toHaveLength(ignored ?? 0)
  })

  it('names the box in words, without its marker', () => {
    const [first] = readTicks(written, tick(written, approveGated), offered).ticks
    expect(first?.line).toBe('Approve gate `verifier` of `gated`')
  })

  it('reads a tick of `Abort (running)` made after the loop went to waiting as the abort it was', () => {
    const running = [{ loopId: 'l', state: loopState('l', { status: 'running' }) }]
    const body = renderDashboard({ loops: running, repositoryUrl: REPOSITORY_URL })
    const box = body.split('\n').find((line) => line.includes('loop-dashboard:abort:l')) ?? ''
    expect(box).toContain('Abort `l` (running)')
    const waiting = dashboardBoxes([{ loopId: 'l', state: loopState('l', { status: 'waiting' }) }])
    expect(waiting.map((b) => b.line)).not.toContain(box)
    const reading = readTicks(body, tick(body, box), waiting)
    expect(reading.ticks.map(named)).toEqual(['l:abort'])
    expect(reading.ticks[0]?.line).toBe('Abort `l` (waiting)')
    // The loop moved on further (COMPLETE): the tick is stale, to be said and unticked.
    const done = dashboardBoxes([{ loopId: 'l', state: loopState('l', { status: 'complete' }) }])
    expect(readTicks(body, tick(body, box), done)).toMatchObject({
      ticks: [],
      stale: [{ loopId: 'l', action: { kind: 'abort' }, line: 'Abort `l` (running)' }],
    })
  })

  it('counts a box that appears twice once', () => {
    const twice = `${written}\n${resumeStuck}`
    expect(
      readTicks(twice, twice.replaceAll(resumeStuck, resumeStuck.replace('[ ]', '[x]')), offered).ticks,
    ).toHaveLength(1)
  })
})
