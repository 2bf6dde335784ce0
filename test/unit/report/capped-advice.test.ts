import { describe, expect, it } from 'vitest'
import type { CapLimit } from '../../../src/domain/engine/index.js'
import { type AdviceSurface, cappedNextStep } from '../../../src/domain/report/capped-advice.js'

describe('what a person does to let a capped loop go on', () => {
  it.each<{ limit: CapLimit; surface: AdviceSurface; says: string[]; never: string[] }>([
    {
      limit: 'iterations',
      surface: 'cli',
      says: ['`loop-controller run --max-iterations N` with N above 6', '`--cap-reason`'],
      never: ['resume`;'],
    },
    {
      limit: 'iterations',
      surface: 'dispatch-only',
      says: [
        "run the workflow again with the loop's `loop-id` and a `max-iterations` above 6",
        'finish `loop/x` by hand',
      ],
      never: ['command: resume', '/loop resume'],
    },
    {
      limit: 'iterations',
      surface: 'thread',
      says: [
        'raise the `max-iterations` the workflow passes above 6 (above 25 it needs a `cap-reason`) and comment `/loop resume`',
        "where the workflow takes `max-iterations` as an input, run it again with the loop's `loop-id` and one above 6",
      ],
      never: ['command: resume'],
    },
    {
      limit: 'minutes',
      surface: 'cli',
      says: ['raise `budget.minutes` in the loop config, then run `loop-controller resume`'],
      never: ['--max-iterations'],
    },
    {
      limit: 'tokens',
      surface: 'thread',
      says: ['raise `budget.tokens` in the loop config, then comment `/loop resume`'],
      never: ['max-iterations'],
    },
    {
      limit: 'cost',
      surface: 'dispatch-only',
      says: [
        "raise `budget.cost-usd` in the loop config, then run the workflow again with the loop's `loop-id` and `command: resume`",
      ],
      never: ['max-iterations', '/loop'],
    },
  ])('$limit, read on $surface', ({ limit, surface, says, never }) => {
    const advice = cappedNextStep(limit, 6, surface, '`loop/x`')
    for (const text of says) expect(advice).toContain(text)
    for (const text of never) expect(advice).not.toContain(text)
  })
})
