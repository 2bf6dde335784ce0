import { describe, expect, it } from 'vitest'
import { fanOutTimeElsewhereMs, legTimeMs, MAX_JOB_WALL_MS } from '../../../src/domain/fan-out-time.js'

describe('fanOutTimeElsewhereMs', () => {
  it.each([
    { title: 'the plan alone when no leg ran', plan: 4_000, legs: [], ms: 4_000 },
    { title: 'the plan and its one leg', plan: 4_000, legs: [1_500], ms: 5_500 },
    { title: 'the plan and the slowest of legs run side by side', plan: 4_000, legs: [1_500, 9_000, 300], ms: 13_000 },
    { title: 'a leg without a verdict as 0', plan: 2_000, legs: [0, 0], ms: 2_000 },
    { title: 'nothing when nothing took time', plan: 0, legs: [0], ms: 0 },
    { title: 'a fraction of a ms rounded', plan: 1_000.4, legs: [2.6], ms: 1_003 },
    { title: 'a negative time as 0', plan: -5, legs: [-7, 10], ms: 10 },
    {
      title: 'each time bounded to what a job can run',
      plan: MAX_JOB_WALL_MS * 2,
      legs: [MAX_JOB_WALL_MS + 1],
      ms: MAX_JOB_WALL_MS * 2,
    },
    { title: 'a time that is no number as 0', plan: Number.NaN, legs: [Number.POSITIVE_INFINITY, 50], ms: 50 },
  ])('counts $title', ({ plan, legs, ms }) => {
    expect(fanOutTimeElsewhereMs(plan, legs)).toBe(ms)
  })
})

describe('legTimeMs', () => {
  it.each([
    { title: 'a leg with a verdict at its measured time', measured: 12_300, timeout: 600, ms: 12_300 },
    { title: 'a leg with a verdict that took no time as 0', measured: 0, timeout: 600, ms: 0 },
    { title: "a leg without a verdict at its check's timeout", measured: undefined, timeout: 90, ms: 90_000 },
    { title: 'a timeout past what a job runs, bounded', measured: undefined, timeout: 10 ** 9, ms: MAX_JOB_WALL_MS },
  ])('counts $title', ({ measured, timeout, ms }) => {
    expect(legTimeMs(measured, timeout)).toBe(ms)
  })
})
