/**
 * The plan job of a fan-out iteration: the beginning of an iteration (restore, decide, begin, act,
 * guard, tasks: the single job's own steps), the work committed on the loop's branch as the candidate,
 * and the hand-off for the verify legs and decide. It runs no check. A loop without a baseline gets a
 * baseline round first: the plan does no work and names its base as the candidate, the legs run their
 * checks there, and decide records the baseline with its analysed failures, which the next plan's
 * prompt carries (as the single job's first iteration measures it before the work). Saves nothing: its
 * token cannot write, and decide owns the state.
 */
import { mayReachVerification } from '../../domain/engine/index.js'
import {
  baselineLegs,
  iterationLegs,
  type Leg,
  legsOf,
  noIterationPlan,
  PLAN_FILE_VERSION,
  type PlanFile,
  type PlanReport,
} from '../../domain/fan-out.js'
import { policyFromConfig } from '../../domain/policy.js'
import { act } from '../iteration/act.js'
import { beginRun, noteTreeBeforeWork } from '../iteration/begin.js'
import { checkpoint } from '../iteration/checkpoint.js'
import { guard } from '../iteration/guard.js'
import type { IterationRecord, IterationStep, LoopRecord } from '../iteration/record.js'
import { restoreAndDecide } from '../iteration/restore.js'
import { stageTasks } from '../iteration/tasks.js'
import type { IterationDeps, IterationInput } from '../iteration/types.js'
import { bundleCandidate } from './candidate.js'

/**
 * The single job's steps up to the verification, in its order, but for the baseline: a baseline round's
 * legs measure it (a whole check matrix here would cost the suite's whole time, sharded or not).
 */
const PLAN_STEPS: readonly IterationStep[] = [noteTreeBeforeWork, act, guard, stageTasks]

/** What the plan hands on, and why there is no iteration to verify when there is none. */
export interface Planned {
  plan: PlanFile
  /** Set when no iteration runs: what the loop does instead (decide settles it). */
  nothing: string | null
  /** True when `bundleFile` was written (the work changed something). */
  bundled: boolean
}

/**
 * Plans one iteration on the loop's branch, checked out in `input.cwd`. `bundleFile`: where the
 * candidate's commits are written for the other jobs.
 */
export async function planIteration(
  input: IterationInput & { branch: string; bundleFile: string },
  deps: IterationDeps,
): Promise<Planned> {
  const git = deps.git
  if (!git || !input.commit) {
    throw new Error(
      'fan-out needs the loop to commit its work (commit.enabled and a git checkout): the candidate travels as commits',
    )
  }
  const startedAt = Date.now()
  // A matrix GitHub would not run is refused before any work is done.
  const legs = legsOf(input.config)
  const policy = policyFromConfig(input.config)
  const restored = await restoreAndDecide(input, deps, policy)
  const none = (reason: string, stateVersion: string | null): Planned => ({
    plan: noIterationPlan(input.loopId, stateVersion),
    nothing: reason,
    bundled: false,
  })
  if (restored.kind === 'superseded') return none(restored.result.decision.reason, restored.result.version)
  const { decision } = restored
  if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
    return none(`${decision.kind}: ${decision.reason}`, restored.record.version)
  }
  // No baseline yet: this run measures it (a round of its own) when any check is measured in it; with
  // none to measure, the single job's empty baseline is decide's to record, and the work runs at once.
  const measuring = restored.record.state.baseline ? [] : baselineLegs(legs, input.config.checks)
  if (measuring.length > 0) return baselineRound(input, git, restored.record, decision.stage, measuring, startedAt)
  const begun = await beginRun(input, deps, policy, decision, restored.record, restored.now)
  const { run } = begun
  let record = begun.record
  for (const step of PLAN_STEPS) record = await step(run, record)
  const base = run.headBefore
  if (!base) throw new Error('fan-out needs a commit to build on: the loop branch has no commit')
  const checkpointed = await checkpoint(run, record)
  if (checkpointed.kind === 'superseded') return none('another controller committed first', restored.record.version)
  record = checkpointed.record
  const candidate = (await git.head()) ?? base
  const bundled = await bundleCandidate(git, input.bundleFile, input.branch, base)
  return {
    plan: {
      version: PLAN_FILE_VERSION,
      loopId: input.loopId,
      stateVersion: restored.record.version,
      iteration: run.iteration,
      stage: run.stage,
      base,
      candidate,
      // Measured last, after the bundle: decide counts the plan's whole part of the iteration.
      report: reportOf(record, run.iteration, Date.now() - run.startedAt),
      // The slow verify-only checks are legs only where the single job could run them: where this
      // iteration reaches VERIFY if its checks pass (decide replays them only where they do, `iteration/verify.ts`).
      legs: iterationLegs(legs, input.config.checks, mayReachVerification(run.stage, record.state, policy)),
      baseline: false,
    },
    nothing: null,
    bundled,
  }
}

/**
 * The plan of a baseline round: no work, no checkpoint, no bundle; the base (the loop branch's head) is
 * the candidate, and `legs` are the checks the single job's baseline measures. The iteration it names
 * is the one it measures for, not begun here: decide saves the baseline and dispatches that iteration.
 */
async function baselineRound(
  input: IterationInput,
  git: NonNullable<IterationDeps['git']>,
  loop: LoopRecord,
  stage: string,
  legs: Leg[],
  startedAt: number,
): Promise<Planned> {
  const base = await git.head()
  if (!base) throw new Error('fan-out needs a commit to build on: the loop branch has no commit')
  const iteration = Math.max(loop.state.iteration, loop.state.claimedIteration) + 1
  return {
    plan: {
      version: PLAN_FILE_VERSION,
      loopId: input.loopId,
      stateVersion: loop.version,
      iteration,
      stage,
      base,
      candidate: base,
      report: {
        work: null,
        tasksCompleted: [],
        tasksFailed: [],
        usage: [],
        events: [],
        wallMs: Math.max(0, Math.round(Date.now() - startedAt)),
      },
      legs,
      baseline: true,
    },
    nothing: null,
    bundled: false,
  }
}

/** What decide takes from the plan on trust: what ran here and what it spent (its wall time too). */
function reportOf(record: IterationRecord, iteration: number, wallMs: number): PlanReport {
  return {
    wallMs: Math.max(0, Math.round(wallMs)),
    work: record.work,
    tasksCompleted: record.tasksCompleted,
    tasksFailed: record.tasksFailed,
    usage: record.state.usage.log.filter((entry) => entry.iteration === iteration),
    briefing: record.briefing,
    events: record.events
      .filter((e) => e.iteration === iteration && (e.type === 'work' || e.type === 'check'))
      .map((e) => ({ ...e, type: e.type as 'work' | 'check' })),
  }
}
