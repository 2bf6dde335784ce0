/**
 * The iteration record: what the steps of a running iteration produce, passed from step to step. Each
 * step is a function `(run, record) => record` over it; none keeps state of its own.
 */
import {
  type Decision,
  type FailureInput,
  type IterationOutcome,
  summarizeNextAction,
  type UnfinishedTask,
} from '../../domain/engine/index.js'
import type { JourneyEvent } from '../../domain/journey.js'
import type { Command } from '../../domain/loop-config.js'
import type { Policy } from '../../domain/policy.js'
import type { Stage, Strategy } from '../../domain/stages.js'
import type { CheckResult, LoopState } from '../../domain/state.js'
import type { FailureForAgent } from '../../domain/work-context.js'
import type { StoreVersion } from '../../ports/store.js'
import type { LiveCheck } from '../verification.js'
import type { IterationDeps, IterationInput, IterationOutcomeKind, IterationResult } from './types.js'

/** A decision that runs an iteration (the others only settle the loop). */
export type RunningDecision = Extract<Decision, { kind: 'EXECUTE_STAGE' | 'RETRY' }>

/** The facts of a running iteration, fixed once it has begun. */
export interface IterationRun {
  input: IterationInput
  deps: IterationDeps
  policy: Policy
  decision: RunningDecision
  /** When the run decided; the iteration's start and baseline are stamped with it. */
  now: Date
  iteration: number
  stage: Stage
  /** The retry's strategy; null for a first attempt at the stage. */
  strategy: Strategy | null
  /** This iteration's folder for logs, prompt and context files. */
  iterationDir: string
  /** The environment the work command gets (the controller's secrets left out). */
  commandEnv: Record<string, string>
  /** The environment of the project's commands (checks, fixes, install, tasks): the repository's tools first on PATH. */
  projectEnv: Record<string, string>
  /** Wall time (ms since the epoch) the iteration began, for its `wallMs`. */
  startedAt: number
  /** HEAD before the iteration changed anything (null without git). */
  headBefore: string | null
}

/** The work tree (a `Git.snapshot`) just before the controller ran a check's fix command. */
/**
 * A point in the iteration where another author's changes begin: a fix command the controller runs
 * (`check` and `command`), or the agent's work after the controller's own fixes (`work`). `tree` is the
 * work tree just before.
 */
export type FixSnapshot = { check: string; command: Command; tree: string } | { work: true; tree: string }

/** What the work reported: its exit, whether it asked for a person, its usage. */
export type WorkReport = NonNullable<IterationOutcome['work']>

/** The loop as this run holds it: what is saved at the end, with the journey events that go with it. */
export interface LoopRecord {
  state: LoopState
  /** Journey events of this run so far, saved with the state. */
  events: readonly JourneyEvent[]
  /** Whether a state was loaded (a first run always saves). */
  loaded: boolean
  version: StoreVersion | null
}

/** What the steps of a running iteration produce, step by step; each returns a new record. */
export interface IterationRecord extends LoopRecord {
  /** The failures the work is asked to fix: the last verification's, or the baseline's. */
  previous: FailureForAgent[]
  /** The work tree before the work (a tree id), so the guard judges only what the work changed. */
  treeBeforeWork: string | null
  /** The ignored files on protected paths before the work, fingerprinted (the guard compares them after). */
  ignoredBeforeWork: Record<string, string> | null
  work: WorkReport | null
  tasksCompleted: string[]
  /** Stage tasks that ran after the work and did not succeed. */
  tasksFailed: UnfinishedTask[]
  /** Remedy commands already run this iteration, so that none runs twice. */
  /** `previous` was measured in this iteration (the baseline): no fix command has run on it yet. */
  previousIsFresh: boolean
  remediesRun: { install: boolean; fixes: string[] }
  /** For the baseline's failures: the checks whose fix command ran before the work, and those the work was told of (null: it did not run). */
  briefing: { fixedFirst: string[]; toldAgent: string[] | null } | null
  /** The work tree just before each fix command the controller ran, so each is committed apart. */
  fixSnapshots: FixSnapshot[]
  /**
   * The work tree as the checkpoint judged it (refused paths included, the loop's own files left out),
   * which nothing changes before the iteration's record is written.
   */
  treeAtCheckpoint?: string
  gatesRaised: { gate: string; reason: string }[]
  guardFailures: FailureInput[]
  checks: LiveCheck[]
  flaky: string[]
  autoFixed: string[]
  failures: FailureInput[]
  outcome: IterationOutcome | null
  commit: string | null
  /** Wall time this iteration spent in other jobs (fan-out's plan and slowest verify leg), added to this job's own. */
  timeElsewhereMs: number
}

/** One step of a running iteration. */
export type IterationStep = (run: IterationRun, record: IterationRecord) => Promise<IterationRecord>

/** The record with `events` added to its journey. */
export function withEvents<R extends LoopRecord>(record: R, ...events: JourneyEvent[]): R {
  return { ...record, events: [...record.events, ...events] }
}

/** A line of the verification's journey (a remedy, a flake check), also shown on the progress line. */
export function verifyNote(
  run: IterationRun,
  type: JourneyEvent['type'],
  message: string,
  data?: Record<string, unknown>,
): JourneyEvent {
  run.deps.progress?.phase?.(run.iteration, 'VERIFY', message)
  return event(run.deps.clock.now(), run.iteration, type, message, data)
}

export function event(
  at: Date,
  iteration: number,
  type: JourneyEvent['type'],
  message: string,
  data?: Record<string, unknown>,
): JourneyEvent {
  return { at: at.toISOString(), iteration, type, message, ...(data ? { data } : {}) }
}

/**
 * Notes the work tree before the controller runs `check`'s fix command, so that the checkpoint commits
 * what came before (the agent's work) and the fix apart. Nothing is noted when no commit will be made.
 */
export async function beforeFix(run: IterationRun, check: string, command: Command): Promise<FixSnapshot[]> {
  const { input, deps } = run
  if (!input.commit || !deps.git) return []
  return [{ check, command, tree: await deps.git.snapshot(input.excludeFromCommits) }]
}

/** Notes the work tree before the agent works, after fixes the controller ran first. */
export async function beforeWork(run: IterationRun): Promise<FixSnapshot[]> {
  const { input, deps } = run
  if (!input.commit || !deps.git) return []
  return [{ work: true, tree: await deps.git.snapshot(input.excludeFromCommits) }]
}

/** Names one saved state, so staged journey events can be matched with the save they belong to. */
export function savedMarker(state: LoopState): string {
  return `${state.loopId}:${state.iteration}:${state.updatedAt}`
}

export function summarizeVerdicts(results: CheckResult[]): string {
  return results.map((r) => `${r.name} ${r.verdict}`).join(', ')
}

/** What an iteration that ran hands to the settling steps. */
export interface RanIteration {
  checks: CheckResult[]
  commit: string | null
  record: string | null
  decision: Decision
}

export function finish(
  outcome: IterationOutcomeKind,
  state: LoopState,
  decision: Decision,
  next: Decision,
  ran: Partial<RanIteration>,
  version: StoreVersion | null,
): IterationResult {
  return {
    outcome,
    state,
    decision,
    next,
    nextAction: summarizeNextAction(state, next),
    checks: ran.checks ?? [],
    commit: ran.commit ?? null,
    record: ran.record ?? null,
    version,
  }
}
