import { describe, expect, it } from 'vitest'
import { renderAdmitted } from '../../../src/domain/report/admitted.js'

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
