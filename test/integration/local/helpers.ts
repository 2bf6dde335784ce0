// Shared helpers for the local adapter integration tests: temp folders, git repositories, a fan-out loop
// on them and process liveness.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { decideIteration } from '../../../src/app/fan-out/decide.js'
import { planIteration } from '../../../src/app/fan-out/plan.js'
import { verifyLeg } from '../../../src/app/fan-out/verify-leg.js'
import type { IterationDeps, IterationInput } from '../../../src/app/iteration.js'
import type { LoopConfigInput } from '../../../src/config/loop-config.js'
import type { PlanFile } from '../../../src/domain/fan-out.js'
import { fakeLoop, type Script } from '../../unit/app/iteration-fakes.js'

/** A fresh temp folder, removed when the test file ends. */
export function tempDir(prefix = 'loop-local-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs git in `cwd` as a test author; its output, trimmed. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim()
}

/**
 * A fan-out scene in `dir`: the repository the plan works in (one `base` commit on main, then on
 * `branch`) and a clone decide works in, taken at the base.
 */
export function planAndDecideRepos(dir: string, branch = 'loop/unit'): { planDir: string; decideDir: string } {
  const planDir = join(dir, 'plan')
  mkdirSync(planDir, { recursive: true })
  gitIn(planDir, 'init', '-q', '-b', 'main')
  writeFileSync(join(planDir, 'README.md'), 'base\n')
  gitIn(planDir, 'add', 'README.md')
  gitIn(planDir, 'commit', '-q', '-m', 'base')
  const decideDir = join(dir, 'decide')
  gitIn(dir, 'clone', '-q', planDir, decideDir)
  gitIn(planDir, 'checkout', '-q', '-b', branch)
  return { planDir, decideDir }
}

/**
 * A fan-out loop on `planAndDecideRepos(dir)`: the work writes progress.txt and `npm test` passes once
 * it is there; `other` answers any other command (by default, exit 0). The plan and the legs run in the
 * plan repository, decide in its clone.
 */
export function fanOutScene(
  dir: string,
  config: Partial<LoopConfigInput>,
  other: (command: string) => Script = () => ({ exitCode: 0 }),
) {
  const { planDir, decideDir } = planAndDecideRepos(dir)
  const loop = fakeLoop(config, (command, cwd) => {
    if (command === 'agent') writeFileSync(join(planDir, 'progress.txt'), '1\n')
    // Where it runs: the plan's checkout, or a leg's checkout of the base apart (its baseline).
    if (command === 'npm test')
      return existsSync(join(cwd, 'progress.txt')) ? { exitCode: 0 } : { exitCode: 1, output: 'FAIL not yet\n' }
    return other(command)
  })
  // The loop's folder on disk, outside the checkout, as the action's (a leg checks the base out in it).
  const input = { ...loop.input, cwd: planDir, loopDir: join(dir, 'loop-dir'), commit: true }
  const planDeps = { ...loop.deps, git: new GitCli(planDir) }
  const decideDeps = { ...loop.deps, git: new GitCli(decideDir) }
  return { dir, planDir, decideDir, loop, input, planDeps, decideDeps, bundle: join(dir, 'candidate.bundle') }
}

/**
 * A fan-out loop's baseline round, plan → every leg → decide, on `scene`'s repositories: what a loop
 * without a baseline runs before its first iteration. Returns the round's plan; throws unless decide
 * recorded the baseline.
 */
export async function baselineRound(scene: {
  input: IterationInput
  planDeps: IterationDeps
  decideDeps: IterationDeps
  decideDir: string
  bundle: string
}): Promise<PlanFile> {
  const { plan } = await planIteration(
    { ...scene.input, branch: 'loop/unit', bundleFile: scene.bundle },
    scene.planDeps,
  )
  if (!plan.baseline || plan.iteration === null || plan.candidate === null) {
    throw new Error(`expected a baseline round, got ${JSON.stringify(plan)}`)
  }
  const planned = { ...plan, iteration: plan.iteration, candidate: plan.candidate }
  const verdicts = []
  for (const leg of plan.legs) verdicts.push(await verifyLeg(scene.input, scene.planDeps, planned, leg))
  const decided = await decideIteration(
    {
      ...scene.input,
      cwd: scene.decideDir,
      plan,
      bundleFile: null,
      verdicts,
      unreadableVerdicts: new Map(),
      verifyResult: 'success',
    },
    scene.decideDeps,
  )
  if (decided.kind !== 'done' || !decided.result.state.baseline) {
    throw new Error(`the baseline round recorded no baseline: ${JSON.stringify(decided)}`)
  }
  return plan
}

/**
 * True while `pid` runs. A zombie counts as gone: in a container whose init does not reap, a killed
 * orphan may linger as a zombie that holds no resources.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Waits until `predicate` holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(predicate: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (predicate()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return predicate()
}

/** The environment a test command runs with: enough to find bash and the usual tools. */
export const baseEnv: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  LANG: 'C.UTF-8',
}
