import { describe, expect, it } from 'vitest'
import { renderAdmitted } from '../../../src/domain/report/admitted.js'
import { placeInLine, queuedNext } from '../../../src/domain/report/queued.js'
import { queueWait, releaseSlot, type SlotsRecord } from '../../../src/domain/slots.js'
import type { LoopStatus } from '../../../src/domain/stages.js'
import { holder, statuses, waiting } from './slot-fixtures.js'

describe('renderAdmitted: the comment of a loop out of the line, while its iteration runs', () => {
  it.each<{ name: string; input: Parameters<typeof renderAdmitted>[0]; says: string[]; not: string[] }>([
    {
      name: 'the run that starts it, linked',
      input: { loopId: 'issue-3', iteration: 1, runId: '77', runUrl: 'https://github.com/o/r/actions/runs/77' },
      says: [
        '## ▶️ loop-controller: `issue-3` started',
        '**Now:** iteration 1 starts in [run 77](https://github.com/o/r/actions/runs/77).',
        'it is admitted and no longer waits',
      ],
      not: ['queued', 'Place in line'],
    },
    {
      name: 'a resumed loop starts its next iteration',
      input: { loopId: 'issue-4', iteration: 3, runId: '8', runUrl: 'https://github.com/o/r/actions/runs/8' },
      says: ['iteration 3 starts in [run 8]'],
      not: ['iteration 1'],
    },
    {
      name: 'no run known (a local run): no link',
      input: { loopId: 'issue-5', iteration: 1 },
      says: ['iteration 1 starts in this job.'],
      not: ['](', 'run undefined'],
    },
  ])('$name', ({ input, says, not }) => {
    const body = renderAdmitted(input)
    for (const text of says) expect(body).toContain(text)
    for (const text of not) expect(body).not.toContain(text)
  })
})

describe('the place in line among the loops that can start: a freed slot passes over those waiting for dependencies', () => {
  const full = (queued: SlotsRecord['queued']): SlotsRecord => ({ running: [holder('r1'), holder('r2')], queued })
  it.each<{
    name: string
    record: SlotsRecord
    statuses: Record<string, LoopStatus>
    loopId: string
    place: string
    next: RegExp
    /** The loop a slot freed now goes to (`releaseSlot` of r1 ended COMPLETE). */
    startsNext: string
  }>([
    {
      name: 'second in line behind a loop waiting for its dependency: first of those that can start',
      record: full([waiting('dep', ['x']), waiting('me')]),
      statuses: { x: 'running' },
      loopId: 'me',
      place: '2nd, first of the loops that can start (1 ahead waits for its dependencies)',
      next: /no loop ahead of it can start first \(1 ahead waits for its dependencies and is passed over\)/,
      startsNext: 'me',
    },
    {
      name: 'third, behind one that can start and one that cannot',
      record: full([waiting('dep', ['x']), waiting('ready'), waiting('me')]),
      statuses: { x: 'queued' },
      loopId: 'me',
      place: '3rd, 2nd of the loops that can start (1 ahead waits for its dependencies)',
      next: /the one ahead of it that can start has started \(1 ahead waits/,
      startsNext: 'ready',
    },
    {
      name: 'behind two waiting for theirs',
      record: full([waiting('d1', ['x']), waiting('d2', ['y']), waiting('me')]),
      statuses: { x: 'running', y: 'blocked' },
      loopId: 'me',
      place: '3rd, first of the loops that can start (2 ahead wait for their dependencies)',
      next: /2 ahead wait for their dependencies and are passed over/,
      startsNext: 'me',
    },
    {
      name: 'behind a loop whose dependency is COMPLETE: the plain place',
      record: full([waiting('dep', ['x']), waiting('me')]),
      statuses: { x: 'complete' },
      loopId: 'me',
      place: '2nd',
      next: /when a running loop ends and it is first in line/,
      startsNext: 'dep',
    },
    {
      name: 'first in line: the plain place',
      record: full([waiting('me'), waiting('dep', ['x'])]),
      statuses: { x: 'running' },
      loopId: 'me',
      place: '1st',
      next: /it is first in line/,
      startsNext: 'me',
    },
  ])('$name', ({ record, statuses: given, loopId, place, next, startsNext }) => {
    const all = statuses({ r1: 'running', r2: 'running', ...given })
    const wait = queueWait(record, loopId, all, 2)
    if (!wait) throw new Error(`${loopId} is not in line`)
    expect(placeInLine(wait)).toBe(place)
    expect(queuedNext(wait)).toMatch(next)
    // What the text promises is what a freed slot does.
    const ended = statuses({ ...Object.fromEntries(all), r1: 'complete' })
    expect(releaseSlot(record, 'r1', ended, 2, 'now').started.map((entry) => entry.loopId)).toEqual([startsNext])
  })
})
