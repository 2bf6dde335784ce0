// A sharded check through fan-out's app layer: a verify leg runs its shard alone and hands on its JUnit
// verdicts; decide replays the legs' runs through the single job's verification, so the shards merge by
// the shards module's rules (a leg without a verdict: `error`, classified `infrastructure`).
import { describe, expect, it } from 'vitest'
import { ProjectCodeRefusedError, replayRunner } from '../../../src/app/fan-out/replay-runner.js'
import { legConfig, verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import { verify } from '../../../src/app/verification.js'
import { legsOf, mergeVerdicts, type VerdictFile } from '../../../src/domain/fan-out.js'
import { fakeLoop, legPlan } from './iteration-fakes.js'

const B = 'b'.repeat(40)
const SHARDED = {
  'flake-check': { enabled: false },
  checks: [
    { name: 'lint', run: 'lint', kind: 'lint' as const, junit: 'reports/lint.xml' },
    { name: 'test', run: 'test {shard}/{shards}', kind: 'test' as const, junit: 'reports/j-{shard}.xml', shards: 3 },
  ],
}
const junit = (cases: Record<string, boolean>) =>
  `<testsuites><testsuite name="s">${Object.entries(cases)
    .map(
      ([name, passes]) => `<testcase classname="c" name="${name}">${passes ? '' : '<failure message="x"/>'}</testcase>`,
    )
    .join('')}</testsuite></testsuites>`

describe('a verify leg of a sharded check', () => {
  it('runs its shard alone (its command, LOOP_SHARD) and hands on that shard’s JUnit verdicts only', async () => {
    const loop = fakeLoop(SHARDED, (command) => {
      if (command !== 'test 2/3') return { exitCode: 0 }
      loop.files.set('/repo/reports/j-2.xml', junit({ b: false, c: true }))
      return { exitCode: 1, output: 'AssertionError: b broke\n' }
    })
    // Reports of other checks and shards lying in the candidate: not this leg's.
    loop.files.set('/repo/reports/j-1.xml', junit({ a: true }))
    loop.files.set('/repo/reports/lint.xml', junit({ l: false }))
    const legs = legsOf(loop.input.config)
    const verdict = await verifyLeg(loop.input, loop.deps, legPlan(legs), legs[2]!)
    expect(loop.runner.runs.map((r) => [r.command, r.env.LOOP_SHARD, r.env.LOOP_SHARDS])).toEqual([
      ['test 2/3', '2', '3'],
    ])
    expect(verdict).toMatchObject({ leg: 'test shard 2/3', check: 'test', run: { exitCode: 1 } })
    expect(verdict.tests).toEqual({ 'test:c.b': 'fail', 'test:c.c': 'pass' })
  })

  it.each([
    { title: 'a shard of a check the config does not shard', shards: 1, message: /runs shard 2 of 3; .* 1 shard\(s\)/ },
    { title: 'a shard of a check sharded otherwise', shards: 4, message: /runs shard 2 of 3; .* 4 shard\(s\)/ },
  ])('refuses $title (a plan made on another config)', ({ shards, message }) => {
    const loop = fakeLoop(SHARDED, () => ({ exitCode: 0 }))
    const leg = legsOf(loop.input.config)[2]!
    const other = { ...loop.input.config, checks: loop.input.config.checks.map((c) => ({ ...c, shards })) }
    expect(() => legConfig(other, leg)).toThrow(message)
  })
})

describe('decide’s merge of a sharded check’s legs', () => {
  const run = (exitCode: number, output: string) => ({
    exitCode,
    signal: null,
    timedOut: false,
    durationMs: 7,
    output,
    totalBytes: output.length,
    truncated: false,
  })

  it('one check result: a leg without a verdict is an error classified infrastructure, the failing shards under their headings', async () => {
    const loop = fakeLoop(SHARDED, () => ({ exitCode: 0 }))
    const legs = legsOf(loop.input.config)
    const verdict = (leg: number, r: VerdictFile['run']): VerdictFile => ({
      version: 2,
      loopId: 'unit',
      iteration: 1,
      candidate: B,
      leg: legs[leg]!.leg,
      check: legs[leg]!.check,
      run: r,
    })
    const { runs } = mergeVerdicts(
      legs,
      // lint passes; test shard 1 passes, shard 2 left no verdict, shard 3 fails.
      [verdict(0, run(0, '')), verdict(1, run(0, 'ok\n')), verdict(3, run(1, 'AssertionError: c broke\n'))],
      { loopId: 'unit', iteration: 1, candidate: B, verifyResult: 'failure' },
    )
    const deps = { ...loop.deps, runner: replayRunner(loop.input.config.checks, runs) }
    const checks = await verify(loop.input, deps, '/repo/.loop/unit/runs/1', {}, 1, false)
    expect(checks.map((c) => [c.result.name, c.result.verdict])).toEqual([
      ['lint', 'pass'],
      ['test', 'error'],
    ])
    const test = checks[1]!.result
    expect(test.pattern).toBe('infrastructure')
    expect(test.excerpt).toMatch(
      /^### test shard 2\/3: error\nloop-controller: no verdict from test shard 2\/3: no verdict was uploaded \(the verify job's result: failure\)/,
    )
    expect(test.excerpt).toMatch(/### test shard 3\/3: fail\n.*AssertionError: c broke/)
    expect(checks[1]!.shards?.map((s) => s.result.verdict)).toEqual(['pass', 'error', 'fail'])
  })

  it('answers each shard’s command under its own log, and refuses the check’s unsharded command', async () => {
    const loop = fakeLoop(SHARDED, () => ({ exitCode: 0 }))
    const runner = replayRunner(loop.input.config.checks, new Map([['test#2', run(0, 'two\n')]]))
    const ask = (command: string, log: string) =>
      runner.run({ command, cwd: '/repo', env: {}, timeoutMs: 1000, logFile: `/repo/runs/1/${log}` })
    await expect(ask('test 2/3', 'test.shard-2.log')).resolves.toMatchObject({ output: 'two\n' })
    await expect(ask('test 2/3', 'test.shard-3.log')).rejects.toThrow(ProjectCodeRefusedError)
    await expect(ask('test {shard}/{shards}', 'test.log')).rejects.toThrow(ProjectCodeRefusedError)
  })
})
