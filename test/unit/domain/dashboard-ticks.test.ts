// Reading ticks from an edit of the dashboard: only a box the controller offers for the loops as they
// stand, unticked before the edit and ticked after it, counts.
import { describe, expect, it } from 'vitest'
import { readTicks } from '../../../src/domain/dashboard-ticks.js'
import { dashboardBoxes, renderDashboard } from '../../../src/domain/report/dashboard.js'
import { dashboardLoops, REPOSITORY_URL } from '../../golden/dashboard-loops.js'

const loops = dashboardLoops()
const offered = dashboardBoxes(loops)
const written = renderDashboard({ loops, repositoryUrl: REPOSITORY_URL })
const lineOf = (marker: string) => written.split('\n').find((line) => line.includes(marker)) ?? ''
const resumeStuck = lineOf('<!-- loop-dashboard:resume:stuck -->')
const approveGated = lineOf('<!-- loop-dashboard:approve=verifier:gated -->')
const tick = (body: string, line: string, box = '[x]') => body.replace(line, line.replace('[ ]', box))
const crlf = (body: string) => body.replace(/\n/g, '\r\n')

describe('readTicks', () => {
  it.each<{ name: string; before: string; after: string; want: string[]; ignored?: number }>([
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
      after: `${written}\n- [x] <!-- loop-dashboard:resume:capped --> Resume \`capped\``,
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
      name: 'a line not written by the controller: its words changed around the marker',
      before: written,
      after: written.replace(resumeStuck, resumeStuck.replace('[ ]', '[x]').replace('Resume', 'Please resume')),
      want: [],
      ignored: 1,
    },
    {
      name: 'a marker for an action the loop does not offer (abort a COMPLETE loop)',
      before: `${written}\n- [ ] <!-- loop-dashboard:abort:green --> Abort \`green\` (complete)`,
      after: `${written}\n- [x] <!-- loop-dashboard:abort:green --> Abort \`green\` (complete)`,
      want: [],
      ignored: 1,
    },
    { name: 'a ticked task without our marker', before: '- [ ] ship it', after: '- [x] ship it', want: [] },
  ])('$name', ({ before, after, want, ignored }) => {
    const reading = readTicks(before, after, offered)
    const got = reading.ticks
      .map((t) => `${t.loopId}:${t.action.kind === 'approve' ? `approve=${t.action.gate}` : t.action.kind}`)
      .sort()
    expect(got).toEqual(want)
    expect(reading.ignored).toHaveLength(ignored ?? 0)
  })

  it('names the box in words, without its marker', () => {
    const [first] = readTicks(written, tick(written, approveGated), offered).ticks
    expect(first?.line).toBe('Approve gate `verifier` of `gated`')
  })

  it('counts a box that appears twice once', () => {
    const twice = `${written}\n${resumeStuck}`
    expect(
      readTicks(twice, twice.replaceAll(resumeStuck, resumeStuck.replace('[ ]', '[x]')), offered).ticks,
    ).toHaveLength(1)
  })
})
