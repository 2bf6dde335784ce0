import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { ChildProcessRunner } from '../../../src/adapters/process-runner.js'
import { type MatrixCheckOutcome, type MatrixInput, runMatrix } from '../../../src/app/matrix.js'
import { type CheckConfig, type checkSchema, checkSchema as schema } from '../../../src/config/loop-config.js'
import { baseEnv, tempDir } from './helpers.js'

const dir = tempDir('loop-matrix-')
const runner = new ChildProcessRunner({ killGraceMs: 300, pipeGraceMs: 100 })
const check = (input: z.input<typeof checkSchema>): CheckConfig => schema.parse(input)

interface Timeline {
  events: Array<{ name: string; type: 'start' | 'end'; at: number }>
  outcomes: MatrixCheckOutcome[]
}

async function matrix(checks: CheckConfig[], options: Partial<MatrixInput> = {}): Promise<Timeline> {
  const events: Timeline['events'] = []
  const outcomes = await runMatrix({
    checks,
    cwd: dir,
    env: baseEnv,
    maxParallel: 4,
    failFast: false,
    runner,
    logDir: join(dir, 'logs'),
    onCheckStart: (c) => events.push({ name: c.name, type: 'start', at: performance.now() }),
    onCheckEnd: (o) => {
      if (o.verdict !== 'skipped') events.push({ name: o.check.name, type: 'end', at: performance.now() })
    },
    ...options,
  })
  return { events, outcomes }
}

const verdicts = (outcomes: MatrixCheckOutcome[]) =>
  Object.fromEntries(outcomes.map((o) => [o.check.name, o.skippedReason ? `skipped: ${o.skippedReason}` : o.verdict]))

/** The most checks that ran at the same time. */
function peakOverlap(events: Timeline['events']): number {
  let now = 0
  let peak = 0
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    now += event.type === 'start' ? 1 : -1
    peak = Math.max(peak, now)
  }
  return peak
}

describe('runMatrix', () => {
  it('runs independent checks in parallel, all started before any ends', async () => {
    const checks = ['a', 'b', 'c', 'd'].map((name) => check({ name, run: 'sleep 0.5' }))
    const { events, outcomes } = await matrix(checks)
    expect(verdicts(outcomes)).toEqual({ a: 'pass', b: 'pass', c: 'pass', d: 'pass' })
    const lastStart = Math.max(...events.filter((e) => e.type === 'start').map((e) => e.at))
    const firstEnd = Math.min(...events.filter((e) => e.type === 'end').map((e) => e.at))
    expect(lastStart).toBeLessThan(firstEnd)
    expect(peakOverlap(events)).toBe(4)
  })

  it('never runs more than maxParallel at once', async () => {
    const checks = ['a', 'b', 'c', 'd', 'e'].map((name) => check({ name, run: 'sleep 0.15' }))
    const { events, outcomes } = await matrix(checks, { maxParallel: 2 })
    expect(outcomes.every((o) => o.verdict === 'pass')).toBe(true)
    expect(peakOverlap(events)).toBe(2)
  })

  it('starts a check only after what it needs passed, and skips it when a need failed', async () => {
    const checks = [
      check({ name: 'test', run: 'true', needs: ['build'] }),
      check({ name: 'build', run: 'sleep 0.1; exit 2' }),
      check({ name: 'e2e', run: 'true', needs: ['test'] }),
      check({ name: 'lint', run: 'true' }),
      check({ name: 'pack', run: 'true', needs: ['lint'] }),
    ]
    const { events, outcomes } = await matrix(checks)
    expect(outcomes.map((o) => o.check.name)).toEqual(['build', 'lint', 'test', 'pack', 'e2e'])
    expect(verdicts(outcomes)).toEqual({
      build: 'fail',
      lint: 'pass',
      test: 'skipped: needs build',
      pack: 'pass',
      e2e: 'skipped: needs test',
    })
    const lintEnd = events.find((e) => e.name === 'lint' && e.type === 'end')!.at
    const packStart = events.find((e) => e.name === 'pack' && e.type === 'start')!.at
    expect(packStart).toBeGreaterThanOrEqual(lintEnd)
  })

  it('runs pre checks first and skips the rest when one fails', async () => {
    const checks = [
      check({ name: 'test', run: 'true' }),
      check({ name: 'format', run: 'echo unformatted; exit 1', pre: true }),
      check({ name: 'syntax', run: 'true', pre: true }),
    ]
    const { outcomes } = await matrix(checks)
    expect(verdicts(outcomes)).toEqual({
      format: 'fail',
      syntax: 'pass',
      test: 'skipped: pre-check format failed',
    })
    expect(outcomes[0]?.result?.output).toBe('unformatted\n')
  })

  it('waits for every pre check before starting the rest', async () => {
    const checks = [check({ name: 'types', run: 'sleep 0.2', pre: true }), check({ name: 'test', run: 'true' })]
    const { events } = await matrix(checks)
    expect(events.map((e) => `${e.type} ${e.name}`)).toEqual(['start types', 'end types', 'start test', 'end test'])
  })

  it('with fail-fast, skips what has not started and lets running checks finish', async () => {
    const checks = [
      check({ name: 'quick-fail', run: 'exit 1' }),
      check({ name: 'slow', run: 'sleep 0.3' }),
      check({ name: 'later', run: 'true' }),
    ]
    const { outcomes } = await matrix(checks, { maxParallel: 2, failFast: true })
    expect(verdicts(outcomes)).toEqual({
      'quick-fail': 'fail',
      slow: 'pass',
      later: 'skipped: fail-fast: quick-fail failed',
    })
  })

  it('with runAll, runs every check whatever failed before it: no pre stop, no fail-fast, no skip for a failed need', async () => {
    const checks = [
      check({ name: 'format', run: 'exit 1', pre: true }),
      check({ name: 'build', run: 'exit 1' }),
      check({ name: 'test', run: 'exit 1', needs: ['build'] }),
      check({ name: 'lint', run: 'true' }),
    ]
    const { outcomes } = await matrix(checks, { maxParallel: 1, failFast: true, runAll: true })
    expect(verdicts(outcomes)).toEqual({ format: 'fail', build: 'fail', test: 'fail', lint: 'pass' })
  })

  it('lets an optional check fail without fail-fast or a pre stop', async () => {
    const checks = [
      check({ name: 'advice', run: 'exit 1', required: false, pre: true }),
      check({ name: 'test', run: 'true' }),
    ]
    const { outcomes } = await matrix(checks, { failFast: true })
    expect(verdicts(outcomes)).toEqual({ advice: 'fail', test: 'pass' })
  })

  it('times a check out by its own timeout and reports a start failure as an error', async () => {
    const checks = [
      check({ name: 'hang', run: 'sleep 30', timeout: 0.3 }),
      check({ name: 'missing', run: ['loop-no-such-tool-xyz'] }),
    ]
    const { outcomes } = await matrix(checks)
    expect(verdicts(outcomes)).toEqual({ hang: 'timeout', missing: 'error' })
    expect(outcomes[1]?.result?.spawnError).toMatch(/ENOENT/)
  })

  it('merges the check env over the matrix env, writes each log and streams output by check', async () => {
    const streamed: string[] = []
    const checks = [check({ name: 'env', run: 'echo "$LEVEL $SHARED"', env: { LEVEL: 'check' } })]
    const { outcomes } = await matrix(checks, {
      env: { ...baseEnv, LEVEL: 'matrix', SHARED: 'both' },
      onOutput: (name, chunk) => streamed.push(`${name}:${chunk.toString()}`),
    })
    expect(outcomes[0]?.result?.output).toBe('check both\n')
    expect(readFileSync(join(dir, 'logs', 'env.log'), 'utf8')).toBe('check both\n')
    expect(streamed).toEqual(['env:check both\n'])
  })

  it('runs only the selected checks, counting unselected needs as met', async () => {
    const checks = [check({ name: 'build', run: 'exit 1' }), check({ name: 'test', run: 'true', needs: ['build'] })]
    const { outcomes } = await matrix(checks, { only: ['test'] })
    expect(verdicts(outcomes)).toEqual({ test: 'pass' })
    await expect(matrix(checks, { only: ['tset'] })).rejects.toThrow("only: unknown check(s) 'tset'")
  })

  it('refuses a cycle before running anything', async () => {
    const checks = [check({ name: 'a', run: 'true', needs: ['b'] }), check({ name: 'b', run: 'true', needs: ['a'] })]
    await expect(matrix(checks)).rejects.toThrow('a -> b -> a')
  })
})
