import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decideIteration } from '../../../src/app/fan-out/decide.js'
import { planIteration } from '../../../src/app/fan-out/plan.js'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import type { LoopConfigInput } from '../../../src/config/loop-config.js'
import type { PlanFile, VerdictFile } from '../../../src/domain/fan-out.js'
import { baselineRound, fanOutScene, tempDir } from './helpers.js'

const root = tempDir('loop-fan-out-legs-')
let counter = 0

/**
 * A loop on a plan repository and a decide clone: the work writes progress.txt; `npm test` passes once
 * it is there; `npm run e2e` (the slow suite) passes; `npm ci` fails while `broken` is set.
 */
function scene(config: Partial<LoopConfigInput>, broken = false) {
  const made = fanOutScene(
    join(root, `scene-${++counter}`),
    { 'flake-check': { enabled: false }, ...config },
    (command) =>
      command === 'npm ci' && broken
        ? { exitCode: 1, output: 'npm ERR! code EUSAGE\nnpm ERR! lockfile out of date\n' }
        : { exitCode: 0 },
  )
  const { loop, input, planDeps, decideDeps, decideDir, planDir, bundle } = made
  const plan = async () => (await planIteration({ ...input, branch: 'loop/unit', bundleFile: bundle }, planDeps)).plan
  const verify = (plan: PlanFile, leg = plan.legs[0]!) =>
    verifyLeg(input, planDeps, { ...plan, iteration: plan.iteration ?? 0, candidate: plan.candidate ?? '' }, leg)
  const decide = (plan: PlanFile, verdicts: VerdictFile[]) =>
    decideIteration(
      {
        ...input,
        cwd: decideDir,
        plan,
        bundleFile: bundle,
        verdicts,
        unreadableVerdicts: new Map(),
        verifyResult: verdicts.length > 0 ? 'success' : 'failure',
      },
      decideDeps,
    )
  /** The loop's baseline round, before its first iteration's plan. */
  const round = () => baselineRound(made)
  return { loop, plan, verify, decide, planDir, round }
}

const unit = { name: 'unit', run: 'npm test', kind: 'test' as const }
const e2e = { name: 'e2e', run: 'npm run e2e', kind: 'test' as const, 'verify-only': true, timeout: 3600 }

describe('fan-out legs: the verify-only checks', () => {
  it('are legs of an iteration that can reach VERIFY, and decide judges them there', async () => {
    const s = scene({ pipeline: 'iterate', checks: [unit, e2e] })
    await s.round()
    const plan = await s.plan()
    expect(plan.stage).toBe('IMPLEMENT')
    expect(plan.legs.map((l) => l.leg)).toEqual(['unit', 'e2e'])
    const decided = await s.decide(plan, [await s.verify(plan, plan.legs[0]), await s.verify(plan, plan.legs[1])])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.checks.map((c) => [c.name, c.verdict])).toEqual([
      ['unit', 'pass'],
      ['e2e', 'pass'],
    ])
  })

  it('are no legs of an iteration that cannot reach VERIFY, and cost it neither a runner nor time', async () => {
    const s = scene({ pipeline: ['IMPLEMENT', 'TEST', 'VERIFY', 'COMPLETE'], checks: [unit, e2e] })
    await s.round()
    const plan = await s.plan()
    expect(plan.stage).toBe('IMPLEMENT')
    expect(plan.legs.map((l) => l.leg)).toEqual(['unit'])
    const decided = await s.decide(plan, [await s.verify(plan)])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    // Judged as the single job judges it: e2e did not run, and is no error.
    expect(decided.result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'pass']])
    // The e2e leg, not run, is not counted at its hour-long timeout.
    expect(decided.result.state.usage.wallMs).toBeLessThan(600_000)
  })
})

describe('fan-out legs: time', () => {
  it("counts a leg that gave no verdict at its check's timeout: a hung leg spends the budget", async () => {
    const s = scene({ checks: [{ ...unit, timeout: 180 }], budget: { minutes: 3 } })
    await s.round()
    const plan = await s.plan()
    const decided = await s.decide(plan, [])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state.usage.wallMs).toBeGreaterThanOrEqual(180_000)
    expect(decided.result.next).toMatchObject({ kind: 'CAP_REACHED', limit: 'minutes' })
  })

  it("counts a leg's setup with its check", async () => {
    const s = scene({ checks: [unit], 'verify-setup': 'npm ci', budget: { minutes: 2 } })
    await s.round()
    const plan = await s.plan()
    const verdict = await s.verify(plan)
    expect(verdict.setupMs).toBe(5)
    const decided = await s.decide(plan, [{ ...verdict, setupMs: 150_000 }])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state.usage.wallMs).toBeGreaterThanOrEqual(150_000)
  })
})

describe('fan-out legs: the setup', () => {
  it.each([
    { title: 'verify-setup', config: { 'verify-setup': 'npm ci' }, log: 'verify-setup.log' },
    { title: 'install, when there is no verify-setup', config: { install: 'npm ci' }, log: 'install.log' },
  ])('runs $title in the leg before its check, in the check’s environment', async ({ config, log }) => {
    const s = scene({ checks: [unit], ...config })
    await s.round()
    const plan = await s.plan()
    const before = s.loop.runner.runs.length
    const verdict = await s.verify(plan)
    const ran = s.loop.runner.runs.slice(before)
    expect(ran.map((r) => r.command)).toEqual(['npm ci', 'npm test'])
    expect(ran[0]?.logFile).toMatch(new RegExp(`runs/1/verify/${log.replace('.', '\\.')}$`))
    expect(ran[0]?.env).toEqual(ran[1]?.env)
    expect(verdict.run.exitCode).toBe(0)
  })

  it('runs in a baseline round’s leg before its check there too; the plan runs neither', async () => {
    const s = scene({ checks: [unit], 'verify-setup': 'npm ci' })
    const plan = await s.plan()
    expect(plan.baseline).toBe(true)
    expect(s.loop.runner.runs).toEqual([])
    const leg = await s.verify(plan)
    expect(s.loop.runner.runs.map((r) => [r.command, r.cwd])).toEqual([
      ['npm ci', s.planDir],
      ['npm test', s.planDir],
    ])
    expect(s.loop.runner.runs[0]?.logFile).toMatch(/runs\/1\/baseline\/verify-setup\.log$/)
    expect(leg).toMatchObject({ candidate: plan.base, run: { exitCode: 1 }, setupMs: 5 })
  })

  it('records no baseline for the check of a leg lost in a second round, and says so; the checks of the others keep theirs', async () => {
    const s = scene({ checks: [unit, { name: 'lint', run: 'npm run lint' }] })
    const warnings: string[] = []
    s.loop.deps.logger.warning = (message) => warnings.push(message)
    // The unit leg was lost: only lint's verdict reaches decide. The first such round is not recorded.
    const first = await s.plan()
    const lintOf = (plan: typeof first) => plan.legs.find((leg) => leg.check === 'lint')
    const firstLint = lintOf(first)
    if (!firstLint) throw new Error('expected a lint leg')
    expect((await s.decide(first, [await s.verify(first, firstLint)])).kind).toBe('done')
    expect((await s.loop.store.load('unit'))?.state).toMatchObject({ iteration: 0, baselineRoundsLost: 1 })
    const plan = await s.plan()
    const lintLeg = lintOf(plan)
    if (!lintLeg) throw new Error('expected a lint leg')
    const decided = await s.decide(plan, [await s.verify(plan, lintLeg)])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state.baseline).toMatchObject({ checks: { lint: 'pass' }, failures: [] })
    const line =
      "no baseline for unit (no baseline from 'unit'): not judged for regressions as a check, as one the baseline lacks"
    expect(warnings).toContain(`The baseline: ${line}.`)
    const journey = s.loop.audit.journey.map((e) => e.message)
    expect(journey).toContain(`baseline: lint pass · ${line}`)
  })

  it('makes a setup that failed at the baseline a failure there', async () => {
    const s = scene({ checks: [unit], 'verify-setup': 'npm ci' }, true)
    const warnings: string[] = []
    s.loop.deps.logger.warning = (message) => warnings.push(message)
    const plan = await s.plan()
    const leg = await s.verify(plan)
    const line = "loop-controller: the leg's verify-setup failed (exit 1), so check 'unit' did not run in leg unit"
    expect(warnings).toContain(line)
    expect(leg.run.spawnError).toBe(line)
    const decided = await s.decide(plan, [leg])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state.baseline?.checks).toEqual({ unit: 'fail' })
  })

  it('runs no setup where the config names none', async () => {
    const s = scene({ checks: [unit] })
    await s.round()
    const plan = await s.plan()
    const before = s.loop.runner.runs.length
    const verdict = await s.verify(plan)
    expect(s.loop.runner.runs.slice(before).map((r) => r.command)).toEqual(['npm test'])
    expect(verdict.setupMs).toBeUndefined()
  })

  it('makes a failed setup the check’s error, with its output and a line saying so, and runs no check', async () => {
    const s = scene({ checks: [unit], 'verify-setup': 'npm ci' }, true)
    await s.round()
    const plan = await s.plan()
    const before = s.loop.runner.runs.length
    const verdict = await s.verify(plan)
    // The setup failed, and no check ran.
    expect(s.loop.runner.runs.slice(before).map((r) => r.command)).toEqual(['npm ci'])
    const line = "loop-controller: the leg's verify-setup failed (exit 1), so check 'unit' did not run in leg unit"
    expect(verdict.run.spawnError).toBe(line)
    expect(verdict.run.output).toContain('npm ERR! lockfile out of date')
    expect(verdict.run.output).toContain(line)
    const decided = await s.decide(plan, [verdict])
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'error']])
    expect(decided.result.checks[0]?.excerpt).toContain(line)
  })
})
