// Two controllers (`loop-controller next`) on one loop at once, round after round: exactly one runs and
// saves each iteration, the other ends superseded or with a clear conflict; no checkpoint is committed twice.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkpointIterations, cliEnv, createQuickLoop, ensureCliBundle, runCliAsync } from './harness.js'
import { recordProof } from './record-proof.js'

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 4)

const figures: Record<string, number> = {}
recordProof('races', () => figures)

describe('races', () => {
  it(`two controllers at once, ${ROUNDS} rounds: one iteration each round, no double checkpoint`, async () => {
    ensureCliBundle()
    const env = cliEnv({}, 60)
    let superseded = 0
    let conflicts = 0
    let rounds = 0
    let checkpoints = 0
    let doubleCheckpointCommits = 0
    // Fresh loops until ROUNDS rounds ran: a loop ends early when both agents repair at once.
    for (let loop = 0; rounds < ROUNDS && loop < ROUNDS; loop++) {
      // Both agents repair a part each round, so the winner often sees the same failure again: allow it.
      const dir = createQuickLoop({
        defects: ROUNDS + 2,
        maxIterations: 25,
        extraConfig: 'retry:\n  per-failure: 20\n  same-error: 20\n  total: 25\n',
      })
      for (let round = 1; round <= ROUNDS && rounds < ROUNDS; round++) {
        const a = runCliAsync(dir, ['next', '--loop-id', 'race'], env)
        const b = runCliAsync(dir, ['next', '--loop-id', 'race'], env)
        const results = await Promise.all([a.done, b.done])
        const state = JSON.parse(readFileSync(join(dir, '.loop', 'race', 'loop-state.json'), 'utf8'))
        // Exactly one iteration ran per round, whoever won.
        expect(state.iteration, results.map((r) => r.stdout + r.stderr).join('\n')).toBe(round)
        rounds++
        for (const r of results) {
          const text = r.stdout + r.stderr
          if (/SUPERSEDED/.test(text)) superseded++
          else if (/another controller changed this loop|Could not lock/.test(text)) conflicts++
          else expect([0, 3], text).toContain(r.status)
        }
        // Both agents repair a part in a round, so the loop may stop early (BLOCKED: the same failure came
        // back, or COMPLETE); the race property holds for every round that ran.
        if (state.status !== 'running') break
      }
      const commits = checkpointIterations(dir)
      const repeated = commits.filter((n, i) => commits.indexOf(n) !== i)
      doubleCheckpointCommits += repeated.length
      expect(repeated).toEqual([])
      checkpoints += commits.length
    }
    expect(rounds).toBe(ROUNDS)
    expect(superseded + conflicts).toBe(rounds)
    Object.assign(figures, { rounds, superseded, conflicts, checkpointCommits: checkpoints, doubleCheckpointCommits })
    console.log(
      `races: ${rounds} rounds of 2 controllers, ${rounds} iterations run once each (${checkpoints} checkpoint commits), ${superseded} superseded, ${conflicts} clear conflicts, ${doubleCheckpointCommits} double checkpoint commits`,
    )
  }, 120_000)
})
