import { describe, expect, it } from 'vitest'
import { type Limit, limitChange, limitUnder } from '../../../src/domain/slots.js'

describe("the limit a change of queue.json is made under: the job's max-loops, else the recorded one", () => {
  it.each<{ name: string; recorded: Limit | undefined; asked: Limit; under: Limit; warns: boolean }>([
    { name: 'a job without max-loops keeps the recorded limit', recorded: 2, asked: null, under: 2, warns: false },
    { name: 'the same value changes nothing', recorded: 2, asked: 2, under: 2, warns: false },
    { name: 'another explicit value changes it, and says so', recorded: 2, asked: 5, under: 5, warns: true },
    { name: 'a first limit on a record without one', recorded: null, asked: 3, under: 3, warns: false },
    { name: 'a record older than the recorded limit', recorded: undefined, asked: 1, under: 1, warns: false },
    { name: 'neither says one: no limit', recorded: undefined, asked: null, under: null, warns: false },
  ])('$name', ({ recorded, asked, under, warns }) => {
    const record = recorded === undefined ? {} : { limit: recorded }
    expect(limitUnder(record, asked)).toBe(under)
    const warning = limitChange(record, asked)
    expect(warning !== null).toBe(warns)
    if (warning)
      expect(warning).toContain(
        `max-loops is ${asked} in this job, but queue.json was last changed under max-loops ${recorded}`,
      )
  })
})
