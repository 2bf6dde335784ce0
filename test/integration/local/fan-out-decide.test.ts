import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { bundleCandidate } from '../../../src/app/fan-out/candidate.js'
import { decideIteration } from '../../../src/app/fan-out/decide.js'
import { planIteration } from '../../../src/app/fan-out/plan.js'
import { ProjectCodeRefusedError, replayRunner } from '../../../src/app/fan-out/replay-runner.js'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import { loopConfigSchema } from '../../../src/config/loop-config.js'
import type { PlanFile, VerdictFile } from '../../../src/domain/fan-out.js'
import { baselineRound, fanOutScene, gitIn, tempDir } from './helpers.js'

const root = tempDir('loop-fan-out-decide-')
let counter = 0
const sh = gitIn

/** A repository the plan works in (on loop/unit), a clone decide works in (at the base), and a loop on them. */
function scene() {
  return fanOutScene(join(root, `scene-${++counter}`), {
    'flake-check': { enabled: false },
    checks: [{ name: 'unit', run: 'npm test', kind: 'test' }],
  })
}

describe('a fan-out iteration, plan → verify → decide', () => {
  let s: ReturnType<typeof scene>
  let plan: PlanFile
  let verdict: VerdictFile
  let roundVersion: string | null
  beforeEach(async () => {
    s = scene()
    // The loop's baseline round first (its check fails before the work); then iteration 1.
    await baselineRound(s)
    roundVersion = (await s.loop.store.load('unit'))?.version ?? null
    const planned = await planIteration({ ...s.input, branch: 'loop/unit', bundleFile: s.bundle }, s.planDeps)
    plan = planned.plan
    expect(planned.bundled).toBe(true)
    expect(plan).toMatchObject({ iteration: 1, baseline: false, legs: [{ leg: 'unit', check: 'unit' }] })
    expect(plan.stateVersion).toBe(roundVersion)
    // The plan saved nothing: decide owns the state.
    expect((await s.loop.store.load('unit'))?.version).toBe(roundVersion)
    verdict = await verifyLeg(
      s.input,
      s.planDeps,
      { ...plan, iteration: 1, candidate: plan.candidate ?? '' },
      plan.legs[0]!,
    )
    expect(verdict.run.exitCode).toBe(0)
  })

  const decideInput = (over: Partial<Parameters<typeof decideIteration>[0]> = {}) => ({
    ...s.input,
    cwd: s.decideDir,
    plan,
    bundleFile: s.bundle,
    verdicts: [verdict],
    unreadableVerdicts: new Map<string, string>(),
    verifyResult: 'success',
    ...over,
  })

  it('takes the candidate, judges the legs’ verdicts, and runs nothing of the project', async () => {
    const ranBefore = s.loop.runner.runs.length
    const decided = await decideIteration(decideInput(), s.decideDeps)
    expect(decided.kind).toBe('done')
    if (decided.kind !== 'done') return
    expect(s.loop.runner.runs.length).toBe(ranBefore)
    expect(decided.result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'pass']])
    expect(decided.result.commit).toBe(plan.candidate)
    expect(sh(s.decideDir, 'rev-parse', 'HEAD')).toBe(plan.candidate)
    expect(decided.result.state.checkpoints.map((c) => c.commit)).toEqual([plan.candidate])
    // The baseline its round measured (the check failed before the work) is the loop's.
    expect(decided.result.state.baseline?.checks).toEqual({ unit: 'fail' })
    expect((await s.loop.store.load('unit'))?.state.iteration).toBe(1)
  })

  it('judges a leg without a verdict an error naming it, never a pass', async () => {
    const decided = await decideIteration(decideInput({ verdicts: [], verifyResult: 'cancelled' }), s.decideDeps)
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    const [unit] = decided.result.checks
    expect(unit?.verdict).toBe('error')
    expect(unit?.excerpt).toContain(
      "loop-controller: no verdict from unit: no verdict was uploaded (the verify job's result: cancelled)",
    )
    expect(decided.result.outcome).toBe('continue')
  })

  it('refuses a plan made on another state version, and takes nothing of it', async () => {
    // Iteration 1 decided and saved, the loop running on (its leg left no verdict).
    await decideIteration(decideInput({ verdicts: [] }), s.decideDeps)
    const saved = await s.loop.store.load('unit')
    expect(saved?.state.status).toBe('running')
    // The same plan again: the state has moved on.
    const again = await decideIteration(decideInput(), s.decideDeps)
    expect(again).toMatchObject({
      kind: 'stale',
      message: `The plan was made on state version ${roundVersion}, and the state is at ${saved?.version}: nothing of a plan is kept, and the iteration is dispatched to plan again.`,
    })
    expect((await s.loop.store.load('unit'))?.version).toBe(saved?.version)
  })

  it("counts the plan's time and the slowest leg's in the loop's minutes, and stops the loop at its budget", async () => {
    const withTime = { ...plan, report: { ...plan.report!, wallMs: 90_000 } }
    // The check failed on the candidate: without the budget the loop would try again.
    const failingRun = { ...verdict.run, exitCode: 1, output: 'FAIL not yet\n', totalBytes: 13, durationMs: 30_000 }
    const slowLeg = { ...verdict, run: failingRun }
    const config = { ...s.input.config, budget: { minutes: 2 } }
    const decided = await decideIteration(decideInput({ plan: withTime, verdicts: [slowLeg], config }), s.decideDeps)
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    // 90 s of plan and 30 s of verify before decide's own time: the 2 minutes are spent after one iteration.
    expect(decided.result.state.usage.wallMs).toBeGreaterThanOrEqual(120_000)
    expect(decided.result.outcome).toBe('capped')
    expect(decided.result.next).toMatchObject({ kind: 'CAP_REACHED', limit: 'minutes' })
    expect((await s.loop.store.load('unit'))?.state.usage.wallMs).toBe(decided.result.state.usage.wallMs)
  })

  it("counts the plan job's time as GitHub's jobs listing gave it, not the time the plan reports", async () => {
    // The plan says it took no time; GitHub says its job ran 3 minutes: the 2 minutes are spent.
    const claimsNoTime = { ...plan, report: { ...plan.report!, wallMs: 0 } }
    const failingRun = { ...verdict.run, exitCode: 1, output: 'FAIL not yet\n', totalBytes: 13, durationMs: 1_000 }
    const config = { ...s.input.config, budget: { minutes: 2 } }
    const input = decideInput({ plan: claimsNoTime, verdicts: [{ ...verdict, run: failingRun }], config })
    const decided = await decideIteration({ ...input, planJobWallMs: 180_000 }, s.decideDeps)
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.state.usage.wallMs).toBeGreaterThanOrEqual(180_000)
    expect(decided.result.next).toMatchObject({ kind: 'CAP_REACHED', limit: 'minutes' })
  })

  it('judges the checks of its own config, not the legs a plan names: a plan without legs is no pass', async () => {
    // A plan whose legs were taken out (the work rewrote plan.json after the plan wrote it), with the verify
    // legs it then left without a verdict: every check of the config is still judged, an error, not skipped.
    const decided = await decideIteration(
      decideInput({ plan: { ...plan, legs: [] }, verdicts: [], verifyResult: 'failure' }),
      s.decideDeps,
    )
    if (decided.kind !== 'done') throw new Error(`expected done, got ${decided.kind}`)
    expect(decided.result.checks.map((c) => [c.name, c.verdict])).toEqual([['unit', 'error']])
    expect(decided.result.checks[0]?.excerpt).toContain('loop-controller: no verdict from unit')
    expect(decided.result.outcome).toBe('continue')
  })

  it('refuses a candidate that carries what the loop never commits, and takes nothing of it', async () => {
    // A bundle the plan's checkpoint did not make (its hand-off rewritten after it): a .env committed on top.
    writeFileSync(join(s.planDir, '.env'), 'API_KEY=sk-planted-by-the-work\n')
    sh(s.planDir, 'add', '.env')
    sh(s.planDir, 'commit', '-q', '-m', 'carry a secret')
    const head = sh(s.planDir, 'rev-parse', 'HEAD')
    expect(await bundleCandidate(s.planDeps.git, s.bundle, 'loop/unit', plan.base ?? '')).toBe(true)
    const forged = { ...plan, candidate: head }
    await expect(
      decideIteration(decideInput({ plan: forged, verdicts: [{ ...verdict, candidate: head }] }), s.decideDeps),
    ).rejects.toThrow(
      /^The candidate carries what the loop never commits, which the plan's checkpoint leaves out: .*\.env/,
    )
    // The loop's branch did not move, and nothing was saved.
    expect(sh(s.decideDir, 'rev-parse', 'HEAD')).toBe(plan.base)
    expect((await s.loop.store.load('unit'))?.version).toBe(roundVersion)
  })

  it('refuses a plan for another loop', async () => {
    await expect(decideIteration(decideInput({ plan: { ...plan, loopId: 'other' } }), s.decideDeps)).rejects.toThrow(
      'The plan is for loop other; this job decides loop unit.',
    )
  })
})

describe('decide’s process runner', () => {
  it('answers a check from its recorded run and refuses anything else', async () => {
    const { checks } = loopConfigSchema.parse({ work: { run: 'agent' }, checks: [{ name: 'unit', run: 'npm test' }] })
    const run = {
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 3,
      output: 'boom\n',
      totalBytes: 5,
      truncated: false,
    }
    const runner = replayRunner(checks, new Map([['unit', run]]))
    const seen: string[] = []
    const answer = await runner.run({
      command: 'npm test',
      cwd: '/x',
      env: {},
      timeoutMs: 1000,
      logFile: '/x/runs/1/unit.log',
      onOutput: (chunk) => seen.push(chunk.toString()),
    })
    expect(answer).toEqual(run)
    expect(seen).toEqual(['boom\n'])
    await expect(
      runner.run({ command: 'npm ci', cwd: '/x', env: {}, timeoutMs: 1000, logFile: '/x/install.log' }),
    ).rejects.toThrow(ProjectCodeRefusedError)
    // The check's command under another log name (a fix, a task) is not the check.
    await expect(
      runner.run({ command: 'npm test', cwd: '/x', env: {}, timeoutMs: 1000, logFile: '/x/task-unit.log' }),
    ).rejects.toThrow(/decide runs no project code/)
  })
})
