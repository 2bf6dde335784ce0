// Fan-out's baseline round, plan → verify → decide on real git: a loop without a baseline measures it in
// a round of its own before its first work, so the first iteration's prompt carries the baseline's
// analysed failures and a declared fix runs on them before the agent, as in the single job.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decideIteration } from '../../../src/app/fan-out/decide.js'
import { planIteration } from '../../../src/app/fan-out/plan.js'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import type { PlanFile, VerdictFile } from '../../../src/domain/fan-out.js'
import { fixture } from '../../unit/app/iteration-fakes.js'
import { fanOutScene, gitIn, tempDir } from './helpers.js'

const root = tempDir('loop-fan-out-baseline-')
let counter = 0
const VITEST = fixture('test-failure/vitest.txt')
const LINT = fixture('lint-error/eslint-unix.txt')

/**
 * A loop whose `unit` check fails before the work (vitest's output) and passes once the work wrote
 * progress.txt, and whose `lint` check fails until its declared fix ran; a verify-only `e2e` check.
 */
function scene(config: Record<string, unknown> = {}) {
  const dir = join(root, `scene-${++counter}`)
  const made = fanOutScene(
    dir,
    {
      ...config,
      'flake-check': { enabled: false },
      checks: [
        { name: 'unit', run: 'npm test', kind: 'test' },
        { name: 'lint', run: 'npm run lint', kind: 'lint', fix: 'npm run lint:fix' },
        { name: 'e2e', run: 'npm run e2e', kind: 'test', 'verify-only': true },
      ],
    },
    (command) => {
      if (command === 'npm run lint:fix') writeFileSync(join(dir, 'plan', 'lint-fixed.txt'), 'fixed\n')
      if (command === 'npm run lint' && !existsSync(join(dir, 'plan', 'lint-fixed.txt')))
        return { exitCode: 1, output: LINT }
      return { exitCode: 0 }
    },
  )
  // Before the work `npm test` fails with vitest's own output (the scene's says only 'FAIL not yet').
  const script = made.loop.runner
  const run = script.run.bind(script)
  script.run = async (request) => {
    const result = await run(request)
    if (request.command !== 'npm test' || result.exitCode === 0) return result
    request.onOutput?.(Buffer.from(VITEST))
    return { ...result, output: VITEST, totalBytes: VITEST.length }
  }
  const plan = async () =>
    (await planIteration({ ...made.input, branch: 'loop/unit', bundleFile: made.bundle }, made.planDeps)).plan
  const verify = async (plan: PlanFile) => {
    const verdicts: VerdictFile[] = []
    const planned = { ...plan, iteration: plan.iteration ?? 0, candidate: plan.candidate ?? '' }
    for (const leg of plan.legs) verdicts.push(await verifyLeg(made.input, made.planDeps, planned, leg))
    return verdicts
  }
  const decide = async (plan: PlanFile, verdicts: VerdictFile[], verifyResult = 'success') => {
    const decided = await decideIteration(
      {
        ...made.input,
        cwd: made.decideDir,
        plan,
        bundleFile: plan.candidate === plan.base ? null : made.bundle,
        verdicts,
        unreadableVerdicts: new Map(),
        verifyResult,
      },
      made.decideDeps,
    )
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}: ${decided.message}`)
    return decided.result
  }
  return { ...made, plan, verify, decide }
}

describe('fan-out: the baseline round', () => {
  it('plans no work for a loop without a baseline: its base is the candidate, its legs the baseline’s checks', async () => {
    const s = scene()
    const head = gitIn(s.planDir, 'rev-parse', 'HEAD')
    const plan = await s.plan()
    expect(plan).toMatchObject({ version: 2, baseline: true, iteration: 1, stage: 'IMPLEMENT', base: head })
    expect(plan.candidate).toBe(head)
    expect(plan.report).toMatchObject({ work: null, usage: [], events: [] })
    // The verify-only check is no leg of the baseline, as the single job's baseline leaves it out.
    expect(plan.legs.map((leg) => leg.leg)).toEqual(['unit', 'lint'])
    // The work command, which writes progress.txt, did not run; nothing was committed.
    expect(s.loop.runner.runs).toEqual([])
    expect(existsSync(join(s.planDir, 'progress.txt'))).toBe(false)
    expect(gitIn(s.planDir, 'rev-parse', 'HEAD')).toBe(head)
    expect(existsSync(s.bundle)).toBe(false)
  })

  it('runs each leg’s check once at the base, with no flake check, and decide records the baseline with its failures analysed; no iteration is counted', async () => {
    const s = scene()
    const plan = await s.plan()
    const verdicts = await s.verify(plan)
    expect(s.loop.runner.runs.map((r) => [r.command, r.cwd])).toEqual([
      ['npm test', s.planDir],
      ['npm run lint', s.planDir],
    ])
    expect(verdicts.map((v) => [v.leg, v.candidate, v.run.exitCode, v.flakeCheck])).toEqual([
      ['unit', plan.base, 1, undefined],
      ['lint', plan.base, 1, undefined],
    ])
    const ran = s.loop.runner.runs.length
    const result = await s.decide(plan, verdicts)
    // Decide ran nothing of the project.
    expect(s.loop.runner.runs.length).toBe(ran)
    const saved = (await s.loop.store.load('unit'))?.state
    expect(saved).toMatchObject({ iteration: 0, claimedIteration: 0, status: 'running', stage: 'IMPLEMENT' })
    expect(saved?.lastVerification).toBeUndefined()
    expect(saved?.checkpoints).toEqual([])
    expect(saved?.baseline?.checks).toEqual({ unit: 'fail', lint: 'fail' })
    const failures = saved?.baseline?.failures ?? []
    expect(failures.map((f) => [f.check, f.pattern])).toEqual([
      ['unit', 'test-failure'],
      ['lint', 'lint-error'],
    ])
    expect(failures[0]?.locations[0]).toMatchObject({ file: 'test/math.test.js', line: 4 })
    expect(failures[0]?.excerpt).toContain('AssertionError: expected 3 to be 4')
    // The round's time counts in the loop's minutes.
    expect(saved?.usage.wallMs).toBeGreaterThan(0)
    // The journey says it as the single job's baseline does: verdicts, then each failure's pattern and place.
    expect(s.loop.audit.journey.map((e) => e.message)).toContain(
      "baseline: unit fail, lint fail · failing: `unit` (test): test-failure at test/math.test.js:4:21 - Expected; `lint` (lint): lint-error at /tmp/loop-fixtures/eslint/src/app.js:1:7 'unused' is assigned a value but never used. [Error/no-unused-vars]",
    )
    expect(result).toMatchObject({ outcome: 'continue', next: { kind: 'EXECUTE_STAGE', stage: 'IMPLEMENT' } })
    expect(result.baselineRound).toMatchObject({ iteration: 1, checks: [{ name: 'unit' }, { name: 'lint' }] })
  })

  it('judges every leg’s check with fail-fast on: both failing checks are in the baseline’s failures, the report and the briefing', async () => {
    const s = scene({ matrix: { 'fail-fast': true, 'max-parallel': 1 } })
    const round = await s.plan()
    const result = await s.decide(round, await s.verify(round))
    const saved = (await s.loop.store.load('unit'))?.state
    expect(saved?.baseline?.checks).toEqual({ unit: 'fail', lint: 'fail' })
    expect(saved?.baseline?.failures?.map((f) => f.check)).toEqual(['unit', 'lint'])
    expect(result.baselineRound?.checks.map((c) => [c.name, c.verdict])).toEqual([
      ['unit', 'fail'],
      ['lint', 'fail'],
    ])
    expect(s.loop.audit.journey.map((e) => e.message)).toContainEqual(
      expect.stringMatching(/^baseline: unit fail, lint fail · failing: `unit` \(test\): .*; `lint` \(lint\): /),
    )
    // Iteration 1's plan is briefed on both: lint's fix runs first, the agent hears of unit.
    expect((await s.plan()).report?.briefing).toEqual({ fixedFirst: ['lint'], toldAgent: ['unit'] })
  })

  it('gives the next plan, iteration 1, the baseline’s failures: the declared fix runs first, the agent’s prompt names the rest', async () => {
    const s = scene()
    const round = await s.plan()
    await s.decide(round, await s.verify(round))
    const before = s.loop.runner.runs.length
    const plan = await s.plan()
    expect(plan).toMatchObject({ baseline: false, iteration: 1 })
    expect(s.loop.runner.runs.slice(before).map((r) => r.command)).toEqual(['npm run lint:fix', 'agent'])
    const prompt = s.loop.files.get(join(s.input.loopDir, 'runs', '1', 'prompt.md')) ?? ''
    expect(prompt).toContain('test/math.test.js:4')
    expect(prompt).toContain('AssertionError: expected 3 to be 4')
    // The fix took lint: the agent hears of unit alone.
    expect(prompt).not.toContain('no-unused-vars')
    expect(plan.report?.briefing).toEqual({ fixedFirst: ['lint'], toldAgent: ['unit'] })
    // Decide's iteration 1 takes the work and the fix, and records the briefing as the single job's does.
    const result = await s.decide(plan, await s.verify(plan))
    // This iteration may reach VERIFY, so the verify-only check is a leg of it too.
    expect(result.checks.map((c) => [c.name, c.verdict])).toEqual([
      ['unit', 'pass'],
      ['lint', 'pass'],
      ['e2e', 'pass'],
    ])
    expect(result.state.iteration).toBe(1)
    // The fix the plan ran first took lint: an auto-fix, as the single job records it, not a plain pass.
    expect(result.checks.find((c) => c.name === 'lint')?.autoFixed).toBe(true)
    expect(result.checks.find((c) => c.name === 'unit')?.autoFixed).toBe(false)
    expect(result.state.metrics.autoFixes).toBe(1)
    expect(s.loop.audit.journey.map((e) => e.message)).toContain(
      'lint: fixed by its fix command before the work (no agent call)',
    )
    const record = s.loop.audit.files.get('iterations/1.md') ?? ''
    expect(record).toContain('## Baseline')
    expect(record).toContain(
      'The agent is told of: `unit` · the controller fixes itself, with its fix command before the agent: `lint`',
    )
    expect(result.state.baseline?.checks).toEqual({ unit: 'fail', lint: 'fail' })
  })

  it('is not recorded when a leg gave no verdict: the loss is journalled, the state keeps no baseline, and the next plan is a round again', async () => {
    const s = scene()
    const round = await s.plan()
    // Both legs lost: the verify job failed before either uploaded its verdict.
    const result = await s.decide(round, [], 'failure')
    const saved = (await s.loop.store.load('unit'))?.state
    expect(saved?.baseline).toBeUndefined()
    expect(saved).toMatchObject({ iteration: 0, baselineRoundsLost: 1, status: 'running' })
    expect(result).toMatchObject({
      outcome: 'continue',
      next: { kind: 'EXECUTE_STAGE' },
      baselineRound: { iteration: 1 },
    })
    const lost = "no verdict was uploaded (the verify job's result: failure)"
    expect(s.loop.audit.journey.map((e) => e.message)).toContain(
      `baseline round lost: no verdict from 'unit' (${lost}); 'lint' (${lost}); no baseline is recorded, and the round runs again (a second round that loses a leg records what its legs measured)`,
    )
    const again = await s.plan()
    expect(again).toMatchObject({ baseline: true, iteration: 1 })
    expect(again.legs.map((leg) => leg.leg)).toEqual(['unit', 'lint'])
  })

  it('records what a second round that lost a leg measured, names the check without a baseline, and iteration 1 runs next', async () => {
    const s = scene()
    const first = await s.plan()
    await s.decide(first, [], 'failure')
    const second = await s.plan()
    // lint's leg lost again; unit's gave its verdict.
    const verdicts = (await s.verify(second)).filter((v) => v.leg === 'unit')
    await s.decide(second, verdicts, 'failure')
    const saved = (await s.loop.store.load('unit'))?.state
    expect(saved?.baseline?.checks).toEqual({ unit: 'fail' })
    expect(saved?.baseline?.failures?.map((f) => f.check)).toEqual(['unit'])
    expect(saved?.baselineRoundsLost).toBeUndefined()
    expect(s.loop.audit.journey.map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /^baseline: unit fail · failing: `unit` \(test\): .* · no baseline for lint \(no baseline from 'lint'\)/,
      ),
    )
    const plan = await s.plan()
    expect(plan).toMatchObject({ baseline: false, iteration: 1 })
  })

  it('says no check was measured when a second round lost every leg, and goes on to iteration 1', async () => {
    const s = scene()
    const first = await s.plan()
    await s.decide(first, [], 'failure')
    await s.decide(await s.plan(), [], 'cancelled')
    expect((await s.loop.store.load('unit'))?.state.baseline).toMatchObject({ checks: {}, tests: {}, failures: [] })
    expect(s.loop.audit.journey.map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /^baseline: no check measured at the base · no baseline for unit \(no baseline from 'unit'\); lint /,
      ),
    )
    expect(await s.plan()).toMatchObject({ baseline: false, iteration: 1 })
  })

  it('is dispatched again on a plan made before the round’s state was saved (stale), and measures once', async () => {
    const s = scene()
    const round = await s.plan()
    await s.decide(round, await s.verify(round))
    // The same round's plan decided again: made on the state before the baseline, so stale.
    const again = await decideIteration(
      {
        ...s.input,
        cwd: s.decideDir,
        plan: round,
        bundleFile: null,
        verdicts: [],
        unreadableVerdicts: new Map(),
        verifyResult: 'success',
      },
      s.decideDeps,
    )
    expect(again.kind).toBe('stale')
    expect((await s.loop.store.load('unit'))?.state.iteration).toBe(0)
  })

  it('is no round where no check is measured at the baseline (every check verify-only): the work runs at once, and the baseline is empty, as in the single job', async () => {
    const s = fanOutScene(join(root, `scene-${++counter}`), {
      'flake-check': { enabled: false },
      checks: [{ name: 'e2e', run: 'npm test', kind: 'test', 'verify-only': true }],
    })
    const { plan } = await planIteration({ ...s.input, branch: 'loop/unit', bundleFile: s.bundle }, s.planDeps)
    expect(plan).toMatchObject({ baseline: false, iteration: 1 })
    expect(s.loop.runner.runs.map((r) => r.command)).toEqual(['agent'])
    const planned = { ...plan, iteration: 1, candidate: plan.candidate ?? '' }
    const verdicts = await Promise.all(plan.legs.map((leg) => verifyLeg(s.input, s.planDeps, planned, leg)))
    const decided = await decideIteration(
      {
        ...s.input,
        cwd: s.decideDir,
        plan,
        bundleFile: s.bundle,
        verdicts,
        unreadableVerdicts: new Map(),
        verifyResult: 'success',
      },
      s.decideDeps,
    )
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state).toMatchObject({ iteration: 1, baseline: { checks: {}, tests: {} } })
    expect(decided.result.state.baseline?.failures).toBeUndefined()
  })
})
