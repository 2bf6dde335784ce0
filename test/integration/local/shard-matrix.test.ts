// A sharded check in the matrix: its legs are real processes, each with its own command, environment,
// log and timeout, side by side under max-parallel; the check is recorded once, with the worst verdict.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { ChildProcessRunner } from '../../../src/adapters/process-runner.js'
import { type MatrixCheckOutcome, runMatrix } from '../../../src/app/matrix.js'
import { type CheckConfig, type checkSchema, checkSchema as schema } from '../../../src/config/loop-config.js'
import { baseEnv, tempDir } from './helpers.js'

const runner = new ChildProcessRunner({ killGraceMs: 300, pipeGraceMs: 100 })
const check = (input: z.input<typeof checkSchema>): CheckConfig => schema.parse(input)

async function matrix(dir: string, checks: CheckConfig[], maxParallel: number): Promise<MatrixCheckOutcome[]> {
  return runMatrix({ checks, cwd: dir, env: baseEnv, maxParallel, failFast: false, runner, logDir: join(dir, 'logs') })
}

describe('a sharded check in the matrix', () => {
  it('runs one leg per shard, each with its placeholders, LOOP_SHARD/LOOP_SHARDS and its own log, recorded as one check', async () => {
    const dir = tempDir('loop-shards-')
    const outcomes = await matrix(
      dir,
      [check({ name: 'test', shards: 4, run: 'echo "part {shard}/{shards} env $LOOP_SHARD of $LOOP_SHARDS"' })],
      4,
    )
    expect(outcomes).toHaveLength(1)
    const [outcome] = outcomes
    expect(outcome?.verdict).toBe('pass')
    expect(outcome?.legs?.map((leg) => [leg.leg.shard, leg.verdict, leg.noVerdict])).toEqual([
      [1, 'pass', null],
      [2, 'pass', null],
      [3, 'pass', null],
      [4, 'pass', null],
    ])
    for (const shard of [1, 2, 3, 4]) {
      expect(readFileSync(join(dir, 'logs', `test.shard-${shard}.log`), 'utf8')).toContain(
        `part ${shard}/4 env ${shard} of 4`,
      )
    }
  })

  it('never runs more processes than max-parallel, legs and other checks together', async () => {
    const dir = tempDir('loop-shards-')
    // Each process notes how many were running when it started (itself included).
    const note = (id: string) =>
      `mkdir -p running && touch running/${id} && ls running | wc -l >> counts && sleep 0.3 && rm running/${id}`
    const outcomes = await matrix(
      dir,
      [check({ name: 'test', shards: 5, run: note('test-$LOOP_SHARD') }), check({ name: 'lint', run: note('lint') })],
      2,
    )
    expect(outcomes.map((o) => [o.check.name, o.verdict])).toEqual([
      ['test', 'pass'],
      ['lint', 'pass'],
    ])
    const counts = readFileSync(join(dir, 'counts'), 'utf8').trim().split('\n').map(Number)
    expect(counts).toHaveLength(6)
    expect(Math.max(...counts)).toBeLessThanOrEqual(2)
  })

  it.each([
    {
      name: 'a leg killed by a signal gives no verdict: the check is an error',
      run: 'if [ "$LOOP_SHARD" = 2 ]; then kill -9 $$; fi; echo fine',
      verdict: 'error',
      legs: [
        ['pass', null],
        ['error', 'killed by SIGKILL before it reported'],
        ['pass', null],
      ],
    },
    {
      name: 'a failing leg fails the check',
      run: 'if [ "$LOOP_SHARD" = 3 ]; then echo "1 failing"; exit 1; fi',
      verdict: 'fail',
      legs: [
        ['pass', null],
        ['pass', null],
        ['fail', null],
      ],
    },
    {
      name: 'a leg past the check timeout is a timeout, the controller own verdict',
      run: 'if [ "$LOOP_SHARD" = 1 ]; then sleep 30; fi',
      verdict: 'timeout',
      legs: [
        ['timeout', null],
        ['pass', null],
        ['pass', null],
      ],
    },
  ])('$name', async ({ run, verdict, legs }) => {
    const dir = tempDir('loop-shards-')
    const [outcome] = await matrix(dir, [check({ name: 'test', shards: 3, run, timeout: 1 })], 3)
    expect(outcome?.verdict).toBe(verdict)
    expect(outcome?.legs?.map((leg) => [leg.verdict, leg.noVerdict])).toEqual(legs)
  })
})
