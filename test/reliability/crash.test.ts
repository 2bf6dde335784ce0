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
    expect(figures.problems).toEqual([])
    expect(figures.kills).toBeGreaterThanOrEqual(6)
    expect(figures.invalidStates + figures.doubleCounted + figures.lost + figures.tornRecords).toBe(0)
    expect(figures.verdictMatches).toBe(figures.kills)
  }, 120_000)
})
