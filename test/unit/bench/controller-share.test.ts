// Figures 1b and 1c print "own time (total − children)": the printed figures must add up.
import { describe, expect, it } from 'vitest'
import { controllerShare, median } from '../../../bench/lib.js'

const printed = (value: number) => value.toFixed(1)

describe('controllerShare', () => {
  it.each([
    {
      name: 'the run with the median own time, not medians column by column',
      // Column medians: total 86.9, children 19.8, own time 59.1, and 86.9 − 19.8 is 67.1.
      samples: [
        { total: 86.9, children: 27.8 },
        { total: 74.3, children: 19.8 },
        { total: 95.0, children: 10.0 },
      ],
      expected: { total: 86.9, children: 27.8, controller: 59.1 },
    },
    {
      name: 'rounding to the printed decimal before subtracting',
      samples: [{ total: 86.94, children: 19.76 }],
      expected: { total: 86.9, children: 19.8, controller: 67.1 },
    },
    {
      name: 'an even number of runs takes the lower middle run',
      samples: [
        { total: 10, children: 1 },
        { total: 20, children: 1 },
        { total: 30, children: 1 },
        { total: 40, children: 1 },
      ],
      expected: { total: 20, children: 1, controller: 19 },
    },
  ])('$name', ({ samples, expected }) => {
    expect(controllerShare(samples)).toEqual(expected)
  })

  it('prints figures that add up for any samples', () => {
    for (let seed = 1; seed < 200; seed++) {
      const samples = Array.from({ length: 7 }, (_, i) => ({
        total: 50 + ((seed * 37 + i * 101) % 997) / 7,
        children: 5 + ((seed * 13 + i * 53) % 331) / 11,
      }))
      const share = controllerShare(samples)
      expect(printed(share.controller)).toBe(printed(Number(printed(share.total)) - Number(printed(share.children))))
    }
  })

  it('shows why column medians do not add up', () => {
    const samples = [
      { total: 86.9, children: 27.8 },
      { total: 74.3, children: 19.8 },
      { total: 95.0, children: 10.0 },
    ]
    const own = median(samples.map((s) => s.total - s.children))
    expect(median(samples.map((s) => s.total)) - median(samples.map((s) => s.children))).not.toBeCloseTo(own, 1)
  })

  it('refuses no samples', () => {
    expect(() => controllerShare([])).toThrow('no iteration samples')
  })
})
