import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { decideIteration } from '../../../src/app/fan-out/decide.js'
import { planIteration } from '../../../src/app/fan-out/plan.js'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import type { LoopConfigInput } from '../../../src/config/loop-config.js'
import type { VerdictFile } from '../../../src/domain/fan-out.js'
import { fakeLoop, type Script } from '../../unit/app/iteration-fakes.js'
import { baselineRound, gitIn, planAndDecideRepos, tempDir } from './helpers.js'

const root = tempDir('loop-fan-out-flake-')
let counter = 0
const _sh = gitIn
const junit = (name: string, passes: boolean) =>
  `<testsuites><testsuite name="s"><testcase classname="a" name="${name}">${passes ? '' : '<failure message="x"/>'}</testcase></testsuite></testsuites>`

/**
 * The baseline round, then one iteration, plan → every leg → decide, in a repository the work writes
 * progress.txt in; `check` answers the project's commands once the work is done (before it, every check
 * passes: the baseline).
 */
async function iteration(
  config: Partial<LoopConfigInput>,
  check: (command: string, planDir: string, files: Map<string, string>) => Script,
  /** The JUnit reports the checks write before the work (the baseline's), by path in the repository. */
  before: Record<string, string> = {},
) {
  const dir = join(root, `scene-${++counter}`)
  const { planDir, decideDir } = planAndDecideRepos(dir)
  const loop = fakeLoop(config, (command, cwd) => {
    if (command === 'agent') writeFileSync(join(planDir, 'progress.txt'), '1\n')
    if (command === 'agent') return { exitCode: 0 }
    // Before the work: the baseline round's legs, at the base.
    if (!existsSync(join(cwd, 'progress.txt'))) {
      for (const [path, text] of Object.entries(before)) loop.files.set(join(cwd, path), text)
      return { exitCode: 0 }
    }
    return check(command, planDir, loop.files)
  })
  // The loop's folder outside the checkout, as the action's: a leg checks the base out in it.
  const input = { ...loop.input, cwd: planDir, loopDir: join(dir, 'loop-dir'), commit: true }
  const bundle = join(dir, 'candidate.bundle')
  const planDeps = { ...loop.deps, git: new GitCli(planDir) }
  await baselineRound({ input, planDeps, decideDeps: { ...loop.deps, git: new GitCli(decideDir) }, decideDir, bundle })
  const { plan } = await planIteration(
    { ...input, branch: 'loop/unit', bundleFile: bundle },
    { ...loop.deps, git: new GitCli(planDir) },
  )
  const planned = { ...plan, iteration: plan.iteration ?? 0, candidate: plan.candidate ?? '' }
  const verdicts: VerdictFile[] = []
  const legDeps = { ...loop.deps, git: new GitCli(planDir) }
  for (const leg of plan.legs) verdicts.push(await verifyLeg(input, legDeps, planned, leg))
  const ranBeforeDecide = loop.runner.runs.length
  const decided = await decideIteration(
    {
      ...input,
      cwd: decideDir,
      plan,
      bundleFile: bundle,
      verdicts,
      unreadableVerdicts: new Map(),
      verifyResult: 'success',
    },
    { ...loop.deps, git: new GitCli(decideDir) },
  )
  if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}: ${JSON.stringify(decided)}`)
  expect(loop.runner.runs.length, 'decide runs nothing').toBe(ranBeforeDecide)
  const journey = loop.audit.journey.map((e) => [e.type, e.message] as const)
  return { loop, verdicts, result: decided.result, journey }
}

/** Fails the first time it is asked after the work, passes after. */
function failsOnce(output: string): (command: string) => Script {
  let runs = 0
  return () => (++runs === 1 ? { exitCode: 1, output } : { exitCode: 0, output: 'ok\n' })
}

describe('the flake check of a fan-out iteration, in its legs', () => {
  it('a plain check that fails once is re-run whole in its leg; decide records it flaky, no retry spent', async () => {
    const { loop, verdicts, result, journey } = await iteration(
      { 'flake-check': { enabled: true, reruns: 2 }, checks: [{ name: 'unit', run: 'make test', kind: 'test' }] },
      failsOnce('boom: connection reset\n'),
    )
    expect(
      loop.runner.runs
        .filter((r) => r.command === 'make test' && r.logFile?.includes('/verify/'))
        .map((r) => r.logFile?.split('/').slice(-2).join('/')),
    ).toEqual(['verify/unit.log', 'verify/unit.rerun-1.log'])
    // The run is the first one (what the agent would see); the re-run rides in flakeCheck.
    expect(verdicts[0]).toMatchObject({
      run: { exitCode: 1 },
      flakeCheck: { scope: 'check', attempts: 1, passed: true },
    })
    expect(result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'flaky']])
    expect(result.state.metrics.flakes).toBe(1)
    expect(result.state.failures.history).toEqual([])
    expect(journey).toContainEqual([
      'flaky',
      'unit: failed, then passed when re-run in its leg (flaky, no retry spent)',
    ])
    expect(
      journey.find(([type, message]) => type === 'check' && message.startsWith('unit: flake check:'))?.[1],
    ).toMatch(/^unit: flake check: re-running the whole check \(.*\) in its leg$/)
    expect(result.outcome).toBe('complete')
  })

  it('a failing shard is re-run in its leg with only its failing test; its JUnit verdicts are the re-run’s', async () => {
    const shard2 = failsOnce(' FAIL  test/a.test.ts > a > flips\n')
    const { loop, verdicts, result, journey } = await iteration(
      {
        regression: 'on',
        checks: [
          {
            name: 'test',
            run: 'vitest run --shard={shard}/{shards}',
            kind: 'test',
            shards: 2,
            junit: 'reports/j-{shard}.xml',
          },
        ],
      },
      (command, planDir, files) => {
        if (!command.includes('--shard=2/2')) return { exitCode: 0 }
        const answer = shard2(command)
        files.set(join(planDir, 'reports/j-2.xml'), junit('flips', answer.exitCode === 0))
        return answer
      },
      // The baseline: the test passed before the work, so a failure the legs' verdicts kept would be a regression.
      { 'reports/j-2.xml': junit('flips', true) },
    )
    const reran = loop.runner.runs.filter((r) => r.logFile?.includes('rerun'))
    expect(reran.map((r) => [r.command, r.env.LOOP_SHARD])).toEqual([["vitest run --shard=2/2 -t 'a flips'", '2']])
    expect(reran[0]?.logFile).toMatch(/verify\/test\.shard-2\.rerun-1\.log$/)
    expect(verdicts.map((v) => [v.leg, v.flakeCheck ?? null, v.tests ?? null])).toEqual([
      ['test shard 1/2', null, null],
      [
        'test shard 2/2',
        { scope: 'tests', runner: 'vitest', tests: ['a flips'], attempts: 1, passed: true, durationMs: 5 },
        { 'test:a.flips': 'pass' },
      ],
    ])
    expect(result.checks.map((c) => [c.name, c.verdict])).toEqual([['test', 'flaky']])
    expect(result.state.baseline?.tests).toEqual({ 'test:a.flips': 'pass' })
    expect(result.state.metrics.regressed?.tests ?? []).toEqual([])
    expect(journey).toContainEqual([
      'check',
      'test: flake check: re-running only the failing shard 2/2 of 2 in its leg (test shard 2/2: only its failing tests (vitest))',
    ])
    expect(journey).toContainEqual([
      'flaky',
      'test: failed, then its failing shard passed when re-run in its leg (flaky, no retry spent)',
    ])
  })

  it.each([
    {
      title: 'a re-run that fails again: the check stays failing, the re-run told',
      config: { checks: [{ name: 'unit', run: 'make test', kind: 'test' as const }] },
      flakeCheck: { scope: 'check', attempts: 1, passed: false },
      told: true,
    },
    {
      title: 'a failure no flake can be (a lint): no re-run',
      config: { checks: [{ name: 'unit', run: 'make lint', kind: 'lint' as const }] },
      flakeCheck: null,
      told: false,
    },
    {
      title: 'the flake check off: no re-run',
      config: {
        'flake-check': { enabled: false },
        checks: [{ name: 'unit', run: 'make test', kind: 'test' as const }],
      },
      flakeCheck: null,
      told: false,
    },
  ])('$title', async ({ config, flakeCheck, told }) => {
    const { verdicts, result, journey } = await iteration(config, () => ({ exitCode: 1, output: 'still broken\n' }))
    expect(verdicts[0]?.flakeCheck ?? null).toEqual(flakeCheck === null ? null : expect.objectContaining(flakeCheck))
    expect(result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'fail']])
    expect(result.state.metrics.flakes).toBe(0)
    expect(journey.some(([type]) => type === 'flaky')).toBe(false)
    expect(journey.some(([type, message]) => type === 'check' && message.startsWith('unit: flake check:'))).toBe(told)
  })
})
