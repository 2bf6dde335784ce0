// Progress is not the same failure: a loop whose work fixes one failing test per iteration runs to
// COMPLETE within default budgets; one whose work changes nothing is stopped early.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

/** A TAP-printing suite of 10 tests; `fixed.txt` holds how many are fixed so far. */
const SUITE = `
import { existsSync, readFileSync } from 'node:fs'
const fixed = existsSync('fixed.txt') ? Number(readFileSync('fixed.txt', 'utf8')) : 0
let failing = 0
for (let i = 1; i <= 10; i++) {
  if (i <= fixed) console.log('ok ' + i + ' - case ' + i)
  else { failing++; console.log('not ok ' + i + ' - case ' + i); console.log('  AssertionError: expected ' + i + ' to equal ' + (i + 1)) }
}
console.log('# fail ' + failing)
process.exit(failing > 0 ? 1 : 0)
`
/** The work: one more test fixed per call. */
const STEP = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
const fixed = existsSync('fixed.txt') ? Number(readFileSync('fixed.txt', 'utf8')) : 0
writeFileSync('fixed.txt', String(fixed + 1))
`
const CONFIG = `goal: Make the ten cases pass.
max-iterations: 12
work:
  run: node step.mjs
checks:
  - name: unit
    kind: test
    run: node suite.mjs
`

const stateOf = (repo: string, id: string) =>
  JSON.parse(readFileSync(join(repo, '.loop', id, 'loop-state.json'), 'utf8'))

describe('progress counts', () => {
  it('simple mode: one fixed test per iteration reaches COMPLETE at iteration 10 of 12', async () => {
    const repo = tempRepo({ files: { 'suite.mjs': SUITE, 'step.mjs': STEP } })
    const run = await cli(
      repo,
      'run',
      '--work',
      'node step.mjs',
      '--verify',
      'node suite.mjs',
      '--max-iterations',
      '12',
      '--loop-id',
      'steps',
    )
    expect(run.stdout).toContain('COMPLETE in 10 iterations')
    expect(run.code).toBe(0)
    expect(stateOf(repo, 'steps').metrics.workCalls).toBe(10)
  }, 120_000)

  it('with a config: the same loop reaches COMPLETE at iteration 10 of 12 with default retry budgets', async () => {
    const repo = tempRepo({ files: { 'suite.mjs': SUITE, 'step.mjs': STEP, '.github/loop.yml': CONFIG } })
    const run = await cli(repo, 'run', '--loop-id', 'config')
    expect(run.stdout).toContain('COMPLETE in 10 iterations')
    expect(run.code).toBe(0)
  }, 120_000)

  it('a loop whose work changes nothing is BLOCKED by iteration 4, and says the failure did not change', async () => {
    const repo = tempRepo({ files: { 'suite.mjs': SUITE, 'step.mjs': STEP } })
    const run = await cli(
      repo,
      'run',
      '--work',
      'true',
      '--verify',
      'node suite.mjs',
      '--max-iterations',
      '12',
      '--loop-id',
      'stuck',
    )
    expect(run.code).toBe(3)
    const state = stateOf(repo, 'stuck')
    expect(state.status).toBe('blocked')
    expect(state.iteration).toBeLessThanOrEqual(4)
    expect(state.statusReason).toMatch(/same/)
    // The escalated failure went to a person: status does not count it as resolved.
    const status = await cli(repo, 'status', '--loop-id', 'stuck')
    expect(status.stdout).toMatch(/failures\s+\d+ \(0 resolved, \d+ escalated\)/)
  }, 120_000)
})
