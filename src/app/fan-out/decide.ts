/**
 * Decide: the end of a fan-out iteration, in the only job that holds a write token. It loads the state
 * itself and takes the plan only if it was made on that very state; it takes the candidate's commits
 * from their bundle after checking them; it judges the candidate's diff itself (the guard); and it
 * merges the legs' verdicts through the single job's own verification, analysis and transition, with a
 * process runner that runs nothing (`replay-runner.ts`), and the flake checks the legs made in the
 * remedies' place (`leg-flakes.ts`). A baseline round's decide records the baseline the legs measured
 * at the base instead (`decide-baseline.ts`), and counts no iteration. From the plan it takes on trust
 * only the plan's report of the work: its exit and usage, the stage's tasks, its briefing, its wall time.
 */
import { type CommitRules, describeRefusal, refuseFromCommit } from '../../domain/commit-policy.js'
import { decide } from '../../domain/engine/index.js'
import {
  baselineLegs,
  FanOutError,
  type Leg,
  legRunKey,
  legsOf,
  type MergedVerdicts,
  mergeVerdicts,
  type PlanFile,
  type VerdictFile,
} from '../../domain/fan-out.js'
import { fanOutTimeElsewhereMs, legTimeMs } from '../../domain/fan-out-time.js'
import { policyFromConfig } from '../../domain/policy.js'
import type { LoopState } from '../../domain/state.js'
import type { Git } from '../../ports/git.js'
import { analyze } from '../iteration/analyze.js'
import { writeIterationRecord } from '../iteration/audit.js'
import { baselineMessage, beginRun } from '../iteration/begin.js'
import { fixedFirst } from '../iteration/fixed-first.js'
import { guard } from '../iteration/guard.js'
import { event, type IterationRecord, type IterationRun, type IterationStep, withEvents } from '../iteration/record.js'
import { pullRequestMerged, restoreAndDecide } from '../iteration/restore.js'
import { transition } from '../iteration/transition.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { verify } from '../iteration/verify.js'
import { type IterationResult, settle } from '../iteration.js'
import { CANDIDATE_REF, candidateCommits, receiveCandidate } from './candidate.js'
import { recordBaselineRound } from './decide-baseline.js'
import { legFlakes } from './leg-flakes.js'
import { replayRunner } from './replay-runner.js'

/**
 * The single job's steps from the guard on. A baseline failure the plan's declared fix ran on before the
 * work is marked fixed first, as the single job marks it; in the remedies' place, the flake checks the
 * legs made (`leg-flakes.ts`): a fix or an install after verification would run project code here.
 */
function decideSteps(flakeChecks: MergedVerdicts['flakeChecks']): readonly IterationStep[] {
  return [guard, verify, fixedFirst, legFlakes(flakeChecks), analyze, transition]
}

export interface DecideInput extends IterationInput {
  /** Null when this run made no plan (a person's event: decide applies the command and settles or re-dispatches). */
  plan: PlanFile | null
  /** The candidate's bundle, when the plan made one. */
  bundleFile: string | null
  verdicts: readonly VerdictFile[]
  /** Legs whose artifact gave no verdict (a file not valid, a failed leg), by artifact name, with why (their legs are `no verdict`). */
  unreadableVerdicts: ReadonlyMap<string, string>
  /** The verify job's result as the workflow saw it (`needs.verify.result`), named for a leg without a verdict. */
  verifyResult: string
  /** Each leg's job's wall time (completed − started) as GitHub's Jobs API gave it, under `legRunKey`. */
  legJobWallMs?: ReadonlyMap<string, number>
  /**
   * The plan job's wall time from GitHub's Jobs API (completed − started), counted in the loop's minutes
   * instead of the time the plan reports of itself; absent where the job was not listed.
   */
  planJobWallMs?: number | undefined
}

export type Decided =
  | { kind: 'done'; result: IterationResult }
  /**
   * The loop runs an iteration, and this run has no plan for it (none made, or one made on another
   * state, iteration or commit): nothing of a plan is taken; `state` is the loop's now, to re-dispatch.
   */
  | { kind: 'stale'; message: string; state: LoopState | null }

export async function decideIteration(given: DecideInput, deps: IterationDeps): Promise<Decided> {
  const startedAt = Date.now()
  const { plan } = given
  const git = deps.git
  if (!git || !given.commit) throw new FanOutError('fan-out needs the loop to commit its work (a git checkout)')
  if (plan && plan.loopId !== given.loopId) {
    throw new FanOutError(`The plan is for loop ${plan.loopId}; this job decides loop ${given.loopId}.`)
  }
  // The legs are decide's own config's, never the plan's list: a plan.json the work rewrote with legs
  // taken out would leave checks unjudged; each leg of the config without a verdict is an error instead
  // (in a baseline round, a check without a baseline).
  const everyLeg = plan?.iteration != null ? legsOf(given.config) : []
  const legs = plan?.baseline ? baselineLegs(everyLeg, given.config.checks) : everyLeg
  const { runs, tests, flakeChecks, legTimesMs } = mergeVerdicts(
    legs,
    given.verdicts,
    {
      loopId: given.loopId,
      iteration: plan?.iteration ?? 0,
      candidate: plan?.candidate ?? '',
      verifyResult: given.verifyResult,
    },
    given.unreadableVerdicts,
  )
  // The checks' JUnit reports were read in the legs, not here (a file at that path in the candidate is
  // the work's): decide judges regressions on the verdicts the legs recorded, shards united.
  const input: DecideInput = {
    ...given,
    config: { ...given.config, checks: given.config.checks.map(({ junit: _, ...check }) => check) },
    recordedTests: tests,
  }
  const policy = policyFromConfig(input.config)
  const replaying: IterationDeps = { ...deps, runner: replayRunner(input.config.checks, runs) }
  const restored = await restoreAndDecide(input, replaying, policy)
  if (restored.kind === 'superseded') return { kind: 'done', result: restored.result }
  const { decision, record: loop } = restored
  const stale = (why: string): Decided => ({
    kind: 'stale',
    message: `${why}: nothing of a plan is kept, and the iteration is dispatched to plan again.`,
    state: loop.loaded ? loop.state : null,
  })
  // A decision that runs no iteration needs nothing of the plan: the loop is settled on this job's own.
  const running = decision.kind === 'EXECUTE_STAGE' || decision.kind === 'RETRY'
  if (!running) {
    return { kind: 'done', result: await settle(input, replaying, loop, decision) }
  }
  if (!plan) return stale("This run made no plan (a person's event)")
  if (plan.stateVersion !== loop.version) {
    return stale(
      `The plan was made on state version ${plan.stateVersion ?? '(none)'}, and the state is at ${loop.version ?? '(none)'}`,
    )
  }
  const expected = loop.state.iteration + 1
  if (plan.iteration !== expected || plan.stage !== decision.stage || !plan.base || !plan.candidate || !plan.report) {
    return stale(
      `This job decides iteration ${expected} (${decision.stage}); the plan ran ${plan.iteration === null ? 'no iteration' : `iteration ${plan.iteration} (${plan.stage})`}`,
    )
  }
  const head = await git.head()
  if (head !== plan.base) {
    return stale(
      `The plan built on ${plan.base.slice(0, 12)}, and the loop's branch is at ${head?.slice(0, 12) ?? 'no commit'}`,
    )
  }
  // A loop without a baseline measures it in a round of its own first (any check to measure), and only then.
  const needsRound = !loop.state.baseline && baselineLegs(everyLeg, input.config.checks).length > 0
  if (plan.baseline !== needsRound) {
    return stale(
      needsRound
        ? 'The loop has no baseline yet, and the plan did work instead of measuring it'
        : 'The plan measures the baseline, and the loop has one (or no check to measure)',
    )
  }
  const legDurationsMs = legDurationsOf(legs, input, plan, legTimesMs)
  // GitHub's word on the plan job's time where it gave it; the plan's own report only where it did not.
  const planWallMs = given.planJobWallMs ?? plan.report.wallMs
  if (plan.baseline) {
    const round = { iteration: plan.iteration, legs, merged: { runs, tests }, planWallMs }
    const result = await recordBaselineRound(input, replaying, loop, { ...round, legDurationsMs, startedAt }, policy)
    return { kind: 'done', result }
  }

  const begun = await beginRun(input, replaying, policy, decision, loop, restored.now)
  const { run } = begun
  await takeCandidate(git, input.bundleFile, plan.base, plan.candidate, commitRules(input.config))
  let record = await withPlanReport(run, begun.record, plan, { planWallMs, legDurationsMs }, git)
  record = withEmptyBaseline(run, record)
  for (const step of decideSteps(flakeChecks)) record = await step(run, record)
  const checks = record.checks.map((c) => c.result)
  record = await checkpointOfCandidate(run, record, plan.base, plan.candidate, git)
  const next = decide(
    record.state,
    { now: deps.clock.now(), stopRequested: false, pullRequestMerged: await pullRequestMerged(record.state, deps) },
    policy,
  )
  const recordPath = await writeIterationRecord(run, record, next)
  const ran = { checks, commit: record.commit, record: recordPath, decision }
  return { kind: 'done', result: await settle(input, replaying, record, next, ran) }
}

/**
 * Each leg's time on the candidate: what its verdict measured; for a leg without one, its job's wall
 * time (GitHub's Jobs API), else its check's timeout if the plan ran it as a job, else 0 (a verify-only
 * check the plan left out).
 */
function legDurationsOf(
  legs: readonly Leg[],
  input: Pick<DecideInput, 'config' | 'legJobWallMs'>,
  plan: PlanFile,
  measuredMs: ReadonlyMap<string, number>,
): number[] {
  const planned = new Set(plan.legs.map((leg) => leg.leg))
  return legs.map((leg) => {
    const key = legRunKey(leg.check, leg.shard)
    const measured = measuredMs.get(key) ?? input.legJobWallMs?.get(key)
    if (measured === undefined && !planned.has(leg.leg)) return 0
    return legTimeMs(measured, input.config.checks.find((c) => c.name === leg.check)?.timeout ?? 0)
  })
}

/**
 * The loop's branch fast-forwarded to the candidate, its commits checked first: their shape (the bundle),
 * and what each holds against the base by the single job's commit rules, as the plan's checkpoint judged
 * them. A plan whose hand-off was rewritten after its checkpoint (a process the work left running, where
 * no isolation ends it) cannot get a file past them that the loop never commits.
 */
async function takeCandidate(
  git: Git,
  bundleFile: string | null,
  base: string,
  candidate: string,
  rules: CommitRules,
): Promise<void> {
  if (candidate === base) return
  if (!bundleFile) throw new FanOutError(`The plan's candidate ${candidate} came without its bundle.`)
  await receiveCandidate(git, bundleFile, base, candidate)
  const commits = (await candidateCommits(git, base, candidate)).map((c) => c.commit)
  const refused = refuseFromCommit(await git.commitCandidates(commits, null, rules.maxFileBytes), rules)
  if (refused.length > 0) {
    const named = refused.filter((r, i) => refused.findIndex((other) => other.path === r.path) === i)
    throw new FanOutError(
      `The candidate carries what the loop never commits, which the plan's checkpoint leaves out: ${named.map(describeRefusal).join('; ')}`,
    )
  }
  await git.exec(['merge', '--ff-only', '-q', CANDIDATE_REF])
}

function commitRules(config: IterationInput['config']): CommitRules {
  return {
    maxFileBytes: config.commit['max-file-bytes'],
    allowPaths: config.commit['allow-paths'],
    allowWorkflows: config.commit['allow-workflows'],
  }
}

/** The plan's report of what ran in it, in the record the single job's steps carry on. */
async function withPlanReport(
  run: IterationRun,
  record: IterationRecord,
  plan: PlanFile,
  times: {
    /** The plan job's wall time (GitHub's, else the plan's report's). */
    planWallMs: number
    /** Each leg's time on the candidate (`legTimeMs`). */
    legDurationsMs: readonly number[]
  },
  git: Git,
): Promise<IterationRecord> {
  const report = plan.report
  if (!report || !plan.base) return record
  const { state } = record
  const next: LoopState = {
    ...state,
    usage: {
      ...state.usage,
      log: [...state.usage.log, ...report.usage.map((u) => ({ ...u, iteration: run.iteration }))],
    },
  }
  const baseTree = (await git.exec(['rev-parse', `${plan.base}^{tree}`])).stdout.trim()
  return withEvents(
    {
      ...record,
      state: next,
      work: report.work,
      tasksCompleted: report.tasksCompleted,
      tasksFailed: report.tasksFailed,
      briefing: report.briefing ?? null,
      // The fixes the plan ran on the baseline's failures before the work: `fixedFirst` marks their checks.
      remediesRun: { ...record.remediesRun, fixes: report.briefing?.fixedFirst ?? [] },
      // The guard judges what the candidate changed since the base, here, from the commits themselves.
      treeBeforeWork: baseTree,
      ignoredBeforeWork: null,
      // The plan's time and the slowest leg's ran before this job: the loop's minutes count them too.
      timeElsewhereMs: fanOutTimeElsewhereMs(times.planWallMs, times.legDurationsMs),
    },
    ...report.events.map((e) => ({ ...e, iteration: run.iteration })),
  )
}

/**
 * A loop without a baseline and without a check to measure one (every check verify-only) records an
 * empty baseline in its first iteration, as the single job's does, and works at once: no round.
 */
function withEmptyBaseline(run: IterationRun, record: IterationRecord): IterationRecord {
  if (record.state.baseline) return record
  return withEvents(
    { ...record, state: { ...record.state, baseline: { takenAt: run.now.toISOString(), checks: {}, tests: {} } } },
    event(run.now, run.iteration, 'check', baselineMessage([])),
  )
}

/** The candidate's commits, made by the plan, recorded as this iteration's checkpoints. */
async function checkpointOfCandidate(
  run: IterationRun,
  record: IterationRecord,
  base: string,
  candidate: string,
  git: Git,
): Promise<IterationRecord> {
  if (candidate === base) return record
  const made = await candidateCommits(git, base, candidate)
  const at = run.deps.clock.now().toISOString()
  const state = {
    ...record.state,
    checkpoints: [...record.state.checkpoints, ...made.map((m) => ({ iteration: run.iteration, ...m, at }))].slice(-50),
  }
  return withEvents(
    { ...record, state, commit: made.at(-1)?.commit ?? null },
    event(
      run.deps.clock.now(),
      run.iteration,
      'checkpoint',
      `took ${made.map((m) => m.commit.slice(0, 12)).join(', ')} from the plan`,
    ),
  )
}
