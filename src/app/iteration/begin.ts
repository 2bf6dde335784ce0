/**
 * An iteration begins: the state counts it, its folder and command environment are made, a checkpoint
 * left by a crash is folded back, and (once per loop) the matrix's baseline is measured.
 */
import { delimiter, join } from 'node:path'
import { AGENT_PRESETS } from '../../domain/agents/index.js'
import { attemptStrategy } from '../../domain/attempt-strategy.js'
import { describeFailure } from '../../domain/audit-markdown.js'
import { buildCommandEnv, withPathFirst } from '../../domain/command-env.js'
import { beginIteration, taskOfFailure } from '../../domain/engine/index.js'
import type { Policy } from '../../domain/policy.js'
import type { LoopState } from '../../domain/state.js'
import type { FailureForAgent } from '../../domain/work-context.js'
import type { Git } from '../../ports/git.js'
import type { Logger } from '../../ports/logger.js'
import { isFailing } from '../step-support.js'
import { everyIterationChecks, junitResults, type LiveCheck, verify } from '../verification.js'
import { protectedGlobs } from './guard.js'
import {
  event,
  type IterationRecord,
  type IterationRun,
  type LoopRecord,
  type RunningDecision,
  summarizeVerdicts,
  withEvents,
} from './record.js'
import type { IterationDeps, IterationInput } from './types.js'

/** Starts the iteration `decision` runs: its fixed facts and an empty record. */
export async function beginRun(
  input: IterationInput,
  deps: IterationDeps,
  policy: Policy,
  decision: RunningDecision,
  loop: LoopRecord,
  now: Date,
): Promise<{ run: IterationRun; record: IterationRecord }> {
  const state = beginIteration(loop.state, decision, now)
  const iteration = state.iteration
  deps.progress?.iterationStarted?.(iteration, decision)
  const stage = decision.stage
  const strategy = attemptStrategy(decision)
  const started = event(
    now,
    iteration,
    'iteration-started',
    `iteration ${iteration}: ${stage}${strategy ? ` (${strategy})` : ''}`,
  )
  const startedAt = Date.now()
  const iterationDir = join(input.loopDir, 'runs', String(iteration))
  await deps.workspace.makeDir(iterationDir)
  const { work } = input.config
  // The agent's own secrets (its API key) reach the agent alone: checks, fixes and install run code the
  // agent may have written.
  const agentSecrets = [
    ...work.secrets,
    ...(input.config.agent === 'command' ? [] : AGENT_PRESETS[input.config.agent].secretNames),
  ]
  const commandEnv = buildCommandEnv(input.env, { passEnv: [...work['pass-env'], ...agentSecrets], extra: {} })
  const checkEnv = buildCommandEnv(input.env, { passEnv: work['pass-env'], extra: {} })
  // The project's own commands find its installed tools as `npm run` and CI scripts do: `tsc --noEmit`.
  const projectEnv = withPathFirst(checkEnv, [join(input.cwd, 'node_modules', '.bin')], delimiter)
  // A controller killed after its checkpoint commit but before saving the state leaves a commit for this
  // very iteration, which now runs again: fold it back (found by test/reliability/crash.ts).
  // The check reads HEAD as it goes: what it leaves HEAD at is asked again only when it could not tell.
  const checked =
    input.commit && deps.git ? await undoUnsavedCheckpoint(deps.git, state, iteration, deps.logger) : undefined
  const headBefore = deps.git ? (checked ?? (await deps.git.head())) : null
  // A baseline measured in a round of its own (fan-out) whose failures no iteration has met yet: they are
  // this iteration's to brief, and no fix has run on them, as in the single job's iteration that measures it.
  const baselineFresh = (state.baseline?.failures?.length ?? 0) > 0 && !state.lastVerification
  return {
    run: {
      input,
      deps,
      policy,
      decision,
      now,
      iteration,
      stage,
      strategy,
      iterationDir,
      commandEnv,
      projectEnv,
      startedAt,
      headBefore,
    },
    record: {
      ...withEvents(loop, started),
      state,
      previous: baselineFresh ? (state.baseline?.failures ?? []) : lastFailures(state),
      treeBeforeWork: null,
      ignoredBeforeWork: null,
      work: null,
      tasksCompleted: [],
      tasksFailed: [],
      previousIsFresh: baselineFresh,
      remediesRun: { install: false, fixes: [] },
      briefing: null,
      fixSnapshots: [],
      gatesRaised: [],
      guardFailures: [],
      checks: [],
      flaky: [],
      autoFixed: [],
      failures: [],
      outcome: null,
      commit: null,
      timeElsewhereMs: 0,
    },
  }
}

/**
 * A baseline of the matrix before the first work: regressions are judged against it, and the agent's
 * first prompt already carries the failure analysis instead of a blind first attempt. Then the work
 * tree is noted, so the guard judges only what the work changed.
 */
export async function baseline(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, iteration } = run
  let next = record
  if (!record.state.baseline) {
    deps.progress?.phase?.(iteration, 'BASELINE', 'measuring the baseline')
    const { now } = run
    // Verify-only checks are judged at VERIFY alone, never in the baseline.
    const only = everyIterationChecks(input.config.checks)
    const baselineDir = join(run.iterationDir, 'baseline')
    const checks = await verify(input, deps, baselineDir, run.projectEnv, iteration, false, only)
    const state: LoopState = {
      ...record.state,
      baseline: {
        takenAt: now.toISOString(),
        checks: Object.fromEntries(checks.map((c) => [c.check.name, c.result.verdict === 'pass' ? 'pass' : 'fail'])),
        tests: await junitResults(input, deps),
      },
    }
    next = withEvents(
      {
        ...record,
        state,
        previous: checks.filter((c) => isFailing(c.result)).map(toAgentFailure),
        previousIsFresh: true,
      },
      event(now, iteration, 'check', baselineMessage(checks)),
    )
  }
  return noteTreeBeforeWork(run, next)
}

/** The work tree as the work finds it, so the guard judges only what the work changed. */
export async function noteTreeBeforeWork(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps } = run
  const treeBeforeWork = deps.git && run.headBefore ? await deps.git.snapshot() : null
  const ignoredBeforeWork = deps.git && run.headBefore ? await deps.git.ignoredFiles(protectedGlobs(input)) : null
  return { ...record, treeBeforeWork, ignoredBeforeWork }
}

/**
 * While HEAD is this loop's checkpoint for `iteration` and the state does not know it (the controller died
 * between its commits and the state save), soft-resets it, so that the changes stay staged and the rerun
 * commits the iteration once. An iteration may have made several commits (the agent's work, then each
 * fix apart): all are folded back. Left alone when a commit was pushed: history others may have is never
 * rewritten. Returns HEAD as it leaves it, read with the last commit it looked at (undefined when it did
 * not look, or could not read HEAD's commit).
 */
async function undoUnsavedCheckpoint(
  git: Git,
  state: LoopState,
  iteration: number,
  logger: Logger,
): Promise<string | undefined> {
  if (state.checkpoints.some((c) => c.iteration === iteration)) return undefined
  const loopIdLine = new RegExp(`^Loop-Id: ${state.loopId.replace(/[.]/g, '\\.')}$`, 'm')
  const iterationLine = new RegExp(`^Loop-Iteration: ${iteration}$`, 'm')
  let undone = 0
  let head: string | undefined
  // Bounded: an iteration commits its work and at most one fix per check.
  for (let attempt = 0; attempt < 100; attempt++) {
    head = undefined
    // HEAD's id on the first line, then its message: one git for both.
    const read = await git.exec(['log', '-1', '--no-show-signature', '--format=%H%n%B'], { allowFailure: true })
    const [id = '', ...message] = read.stdout.split('\n')
    if (read.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(id)) break
    head = id
    const body = message.join('\n')
    if (!loopIdLine.test(body) || !iterationLine.test(body)) break
    const pushed = await git.exec(['branch', '-r', '--contains', 'HEAD'], { allowFailure: true })
    if (pushed.exitCode !== 0 || pushed.stdout.trim() !== '') break
    const parent = await git.exec(['rev-parse', '--verify', '-q', 'HEAD~1'], { allowFailure: true })
    if (parent.exitCode !== 0) break
    await git.exec(['reset', '-q', '--soft', 'HEAD~1'])
    head = undefined
    undone++
  }
  if (undone === 0) return head
  logger.info(
    `iteration ${iteration}: ${undone > 1 ? `its ${undone} checkpoint commits were` : 'its checkpoint commit was'} made but the state was never saved (a crash); undone (soft), and the iteration runs again`,
  )
  return head
}

/** The baseline's verdicts, then each failing check's pattern and first location. */
export function baselineMessage(checks: LiveCheck[]): string {
  const failing = checks.filter((c) => isFailing(c.result)).map((c) => describeFailure(toAgentFailure(c)))
  const verdicts = `baseline: ${summarizeVerdicts(checks.map((c) => c.result))}`
  return failing.length > 0 ? `${verdicts} · failing: ${failing.join('; ')}` : verdicts
}

/**
 * The failing checks of the last verification, as the work command is told about them, and a stage task
 * left undone by the last attempt (the agent is to do what it checks).
 */
function lastFailures(state: LoopState): FailureForAgent[] {
  const current = state.failures.current
  const task =
    current?.resolution === 'open' && taskOfFailure(current.check) !== null
      ? [
          {
            check: current.check,
            kind: 'task',
            pattern: null,
            confidence: null,
            strategy: current.strategy,
            locations: [],
            excerpt: current.error,
          },
        ]
      : []
  return [...task, ...checkFailures(state)]
}

function checkFailures(state: LoopState): FailureForAgent[] {
  return (state.lastVerification?.results ?? [])
    .filter((r) => r.verdict === 'fail' || r.verdict === 'timeout' || r.verdict === 'error')
    .map((r) => ({
      check: r.name,
      kind: r.kind,
      pattern: r.pattern,
      confidence: r.confidence,
      strategy: r.strategy ?? 'analyze_then_fix',
      locations: r.locations,
      excerpt: r.excerpt,
      ...(r.signature ? { signature: r.signature } : {}),
      ...(r.regression ? { regression: true } : {}),
    }))
}

/** A failing check of a verification as the work command is told of it, with its analysis's hint. */
export function toAgentFailure(live: LiveCheck): FailureForAgent {
  return {
    check: live.check.name,
    kind: live.check.kind,
    pattern: live.result.pattern,
    confidence: live.result.confidence,
    strategy: live.result.strategy ?? 'analyze_then_fix',
    locations: live.result.locations,
    excerpt: live.result.excerpt,
    ...(live.result.signature ? { signature: live.result.signature } : {}),
    ...(live.analysis?.hint ? { hint: live.analysis.hint } : {}),
  }
}
