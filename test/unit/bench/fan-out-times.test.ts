// Figure 12's arithmetic: wall times read from the sandbox's job records, and the speed-up against the ideal.
import { describe, expect, it } from 'vitest'
import { fanOutTimes, idealIterationSeconds, jobsByRun, speedUp } from '../../../bench/fan-out.js'

const job = (name: string, startedAt: number | undefined, durationMs: number | undefined) => ({
  name,
  startedAt,
  durationMs,
})

describe('fanOutTimes', () => {
  it('spans the legs from the first start to the last end, and the iteration over every job that ran', () => {
    const times = fanOutTimes([
      job('loop / loop iteration', undefined, undefined),
      job('loop / plan', 1_000, 10_000),
      job('loop / verify (test shard 1/2)', 12_000, 4_000),
      job('loop / verify (test shard 2/2)', 12_500, 5_000),
      job('loop / decide', 18_000, 3_000),
    ])
    expect(times).toEqual({
      legs: 2,
      verifySeconds: 5.5,
      iterationSeconds: 20,
      planSeconds: 10,
      decideSeconds: 3,
    })
  })

  it('reads nothing as no time', () => {
    expect(fanOutTimes([])).toEqual({
      legs: 0,
      verifySeconds: 0,
      iterationSeconds: 0,
      planSeconds: 0,
      decideSeconds: 0,
    })
  })
})

describe('speedUp', () => {
  it.each([
    { baseline: 16, seconds: 4, text: '4.00x (1.00 of the ideal 4x)' },
    { baseline: 18, seconds: 6, text: '3.00x (0.75 of the ideal 4x)' },
    { baseline: 10, seconds: 20, text: '0.50x (0.13 of the ideal 4x)' },
  ])('$baseline s against $seconds s', ({ baseline, seconds, text }) => {
    expect(speedUp(baseline, seconds, 4)).toBe(text)
  })
})

describe('jobsByRun', () => {
  it('groups the jobs by their workflow run, the runs in the order they were made', () => {
    // The baseline round's run and iteration 1's both carry iteration 1 (the round is no iteration).
    const jobs = [
      { name: 'plan', runId: 7, inputs: { iteration: '1' } },
      { name: 'plan', runId: 5, inputs: { 'loop-id': 'l' } },
      { name: 'decide', runId: 5, inputs: { 'loop-id': 'l' } },
      { name: 'decide', runId: 7, inputs: { iteration: '1' } },
      { name: 'plan', runId: 9, inputs: { iteration: '2' } },
    ]
    expect(jobsByRun(jobs).map((run) => run.map((job) => `${job.runId} ${job.name}`))).toEqual([
      ['5 plan', '5 decide'],
      ['7 plan', '7 decide'],
      ['9 plan'],
    ])
    expect(jobsByRun([])).toEqual([])
  })
})

describe('idealIterationSeconds', () => {
  it.each([
    { plan: 3, decide: 4, verify: 16, shards: 4, ideal: 11 },
    { plan: 0, decide: 0, verify: 10, shards: 1, ideal: 10 },
    { plan: 2.5, decide: 1.5, verify: 6, shards: 3, ideal: 6 },
  ])('plan $plan s + decide $decide s + verify $verify s / $shards', ({ plan, decide, verify, shards, ideal }) => {
    expect(idealIterationSeconds({ planSeconds: plan, decideSeconds: decide }, verify, shards)).toBe(ideal)
  })
})
