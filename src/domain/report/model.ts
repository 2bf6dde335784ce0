/**
 * What the job summary and the sticky comment show, in one plain object built from the loop's state,
 * the iteration's checks and the latest decision. Pure data; the renderers take nothing else.
 */
import { type AggregatedMetrics, aggregateMetrics } from '../analysis/metrics.js'
import type { Decision } from '../engine/decide.js'
import type { LoopStatus, Stage } from '../stages.js'
import type { CheckResult, GateState, LoopState } from '../state.js'

/** What happened in the iteration this report is about. */
export type ReportOutcome = 'continue' | 'complete' | 'blocked' | 'waiting' | 'capped' | 'aborted' | 'superseded'

export interface ReportLinks {
  /** The artifact (or folder) holding the audit trail: full logs, every iteration's record. */
  auditTrail?: string
  pullRequest?: { number: number; url: string }
  /** This workflow run. */
  run?: string
  /** The loop's branch. */
  branch?: { name: string; url?: string }
  /** The issue the loop works on. */
  issue?: { number: number; url: string }
  /** The repository's dashboard issue (`dashboard: true`), where every loop is listed. */
  dashboard?: { number: number; url: string }
  /** Fan-out: the verify legs whose check failed, each named as GitHub names its job, with that job's log. */
  failedLegs?: readonly { name: string; url: string }[]
}

/** The BLOCKED handoff's parts the engine cannot know from state alone. */
export interface Handoff {
  reason: string
  /** The specific ask of a person. */
  humanAction: string
  /** A suggested next step (e.g. from the dead letter's smart suggestions). */
  suggestion?: string
}

export interface ReportModel {
  loopId: string
  /** Iterations run so far (this one included). */
  iteration: number
  /** When the state was last written (ISO). */
  updatedAt: string
  /** What the controller ran, per iteration (agent calls with tokens and cost, verifications). */
  usageLog: LoopState['usage']['log']
  maxIterations: number
  pipeline: readonly Stage[]
  stage: Stage
  status: LoopStatus
  statusReason: string
  outcome: ReportOutcome
  capabilities: { total: number; completed: number; current: string | null }
  /** This iteration's checks, in matrix order (a baseline round's: the checks at the base). */
  checks: readonly CheckResult[]
  /**
   * Set when this run was fan-out's baseline round, not an iteration: it measured the baseline before
   * the work of `iteration`, which runs next.
   */
  baselineRound?: { iteration: number }
  /**
   * The checks ran in an earlier job of this iteration (this job ran none: a person's command, a late
   * dispatch on an ended loop): the report shows them rather than lose the loop's last verdict.
   */
  checksRanEarlier: boolean
  /** Longer output per failing check (already redacted and bounded), by check name; else its excerpt. */
  outputs: Readonly<Record<string, string>>
  /** The decision for what comes next. */
  next: Decision | null
  /** One sentence: what the loop does next (the `next-action` output). */
  nextAction: string
  failures: {
    total: number
    totalLimit: number
    consecutive: number
    perFailureLimit: number
    current: LoopState['failures']['current']
    tried: LoopState['failures']['tried']
  }
  gates: Readonly<Record<string, GateState>>
  /** What the last checkpoint left out of its commits, why, and what a person can do. */
  refusedFromCommit: readonly { path: string; reason: string; remedy: string }[]
  budget: {
    minutesUsed: number
    minutesLimit?: number
    costUsd: number
    costLimit?: number
    tokens: number
    tokensLimit?: number
  }
  handoff?: Handoff
  pullRequestWaiting?: PullRequestWaiting
  links: ReportLinks
  /** The loop's metrics so far: counts and the aggregates over patterns. */
  metrics?: {
    workCalls: number
    autoFixes: number
    flakes: number
    regressions: number
    deadLetters: number
    aggregate: AggregatedMetrics
  }
}

/** The parts of a report that do not come from state. */
export interface ReportExtras {
  checks: readonly CheckResult[]
  baselineRound?: { iteration: number }
  outputs?: Readonly<Record<string, string>>
  next: Decision | null
  nextAction: string
  outcome: ReportOutcome
  handoff?: Handoff
  links?: ReportLinks
  pullRequestWaiting?: PullRequestWaiting
}

/**
 * The loop's branch is pushed but GitHub would not let the job's token open its pull request (the
 * repository setting that lets GitHub Actions create pull requests is off).
 */
export interface PullRequestWaiting {
  branch: string
  /** Where a person opens it by hand: the branch compared with the default branch. */
  compareUrl: string
}

/** Builds the report model from the loop's state plus what the iteration returned. */
export function buildReportModel(state: LoopState, extras: ReportExtras): ReportModel {
  const earlier = extras.checks.length === 0 ? checksOfThisIteration(state) : []
  return {
    loopId: state.loopId,
    iteration: state.iteration,
    updatedAt: state.updatedAt,
    usageLog: state.usage.log,
    maxIterations: state.maxIterations,
    pipeline: state.pipeline,
    stage: state.stage,
    status: state.status,
    statusReason: state.statusReason,
    outcome: extras.outcome,
    capabilities: {
      total: state.capabilities.total,
      completed: state.capabilities.completed.length,
      current: state.capabilities.current,
    },
    checks: earlier.length > 0 ? earlier : extras.checks,
    checksRanEarlier: earlier.length > 0,
    ...(extras.baselineRound ? { baselineRound: extras.baselineRound } : {}),
    outputs: extras.outputs ?? {},
    next: extras.next,
    nextAction: extras.nextAction,
    failures: {
      total: state.failures.total,
      totalLimit: state.failures.limits.total,
      consecutive: state.failures.consecutive,
      perFailureLimit: state.failures.limits.perFailure,
      current: state.failures.current,
      tried: state.failures.tried,
    },
    gates: state.gates,
    refusedFromCommit: state.refusedFromCommit ?? [],
    budget: {
      minutesUsed: state.usage.wallMs / 60_000,
      ...(state.budget.minutes !== undefined ? { minutesLimit: state.budget.minutes } : {}),
      costUsd: state.usage.costUsd,
      ...(state.budget.costUsd !== undefined ? { costLimit: state.budget.costUsd } : {}),
      tokens: state.usage.tokens,
      ...(state.budget.tokens !== undefined ? { tokensLimit: state.budget.tokens } : {}),
    },
    ...(extras.handoff ? { handoff: extras.handoff } : {}),
    ...(extras.pullRequestWaiting ? { pullRequestWaiting: extras.pullRequestWaiting } : {}),
    links: extras.links ?? {},
    metrics: {
      workCalls: state.metrics.workCalls,
      autoFixes: state.metrics.autoFixes,
      flakes: state.metrics.flakes,
      regressions: state.metrics.regressions,
      deadLetters: state.metrics.deadLetters,
      aggregate: aggregateMetrics(state.metrics),
    },
  }
}

/** The checks the loop's current iteration ran, as its state recorded them; none when it ran none. */
function checksOfThisIteration(state: LoopState): readonly CheckResult[] {
  const verification = state.lastVerification
  return verification && verification.iteration === state.iteration ? verification.results : []
}
