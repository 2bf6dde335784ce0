// The CI-sized crash campaign: a few SIGKILLs of the controller at chosen points, each resumed and checked
// (`npm run reliability:crash` runs the full 200).
import { describe, expect, it } from 'vitest'
import { crashFigureLine, runCrashCampaign } from './crash-campaign.js'
import { ensureCliBundle } from './harness.js'

describe('crash consistency', () => {
  it('survives SIGKILLs at random points: valid state, nothing counted twice or lost, same verdict', async () => {
    ensureCliBundle()
    const figures = await runCrashCampaign({ kills: 6, parallelism: 2, killsPerTrial: 3, seed: 42 })
    console.log(crashFigureLine(figures))
    // Every problem a kill left behind fails the test; none is a "known finding" (a run killed between its
    // save and its journey append has its staged events recovered by the next run).
    expect(figures.problems).toEqual([])
    expect(figures.kills).toBeGreaterThanOrEqual(6)
    expect(figures.invalidStates + figures.doubleCounted + figures.tornRecords).toBe(0)
    expect(figures.verdictMatches).toBe(figures.kills)
    // A lock a killed git left behind is the resumed run's to remove (no git holds it), never a person's.
    expect(figures.manualUnlocks.git).toBe(0)
  }, 120_000)
})
