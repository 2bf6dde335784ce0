/**
 * What one iteration is given and what it returns: shared by the pipeline (`../iteration.ts`), its
 * steps, the verification matrix and the work command, and by both front doors.
 */

import type { PatternLibrary } from '../../domain/analysis/index.js'
import type { Decision } from '../../domain/engine/index.js'
import type { CheckConfig, LoopConfig } from '../../domain/loop-config.js'
import type { LoopTask } from '../../domain/loop-task.js'
import type { Strategy } from '../../domain/stages.js'
import type { CheckResult, LoopState } from '../../domain/state.js'
import type { AuditLog } from '../../ports/audit.js'
import type { Clock } from '../../ports/clock.js'
import type { Git, Identity } from '../../ports/git.js'
import type { Logger } from '../../ports/logger.js'
import type { ProcessRunner } from '../../ports/process.js'
import type { Store, StoreVersion } from '../../ports/store.js'
import type { Workspace } from '../../ports/workspace.js'

/** Progress callbacks for a live view (the CLI's progress line); all optional. */
export interface ProgressSink {
  iterationStarted?(iteration: number, decision: Decision): void
  phase?(iteration: number, stage: string, text: string): void
  checkStarted?(iteration: number, check: CheckConfig): void
  checkFinished?(iteration: number, result: CheckResult): void
  /**
   * A failing check's analysis, told once the retry rules weighed it: `taken` is the strategy the loop
   * takes for it (`escalate`: a person), null when it takes none for this check (see `strategyTaken`).
   */
  analysis?(iteration: number, result: CheckResult, taken: Strategy | null): void
}

export interface IterationDeps {
  store: Store
  runner: ProcessRunner
  git: Git | null
  clock: Clock
  logger: Logger
  workspace: Workspace
  audit: AuditLog
  redact: (text: string) => string
  progress?: ProgressSink
  /** Asked only in SHIP: has the loop's pull request been merged? */
  pullRequestMerged?: () => Promise<boolean>
  /**
   * Asked at the start of every iteration: where the kill switch (`loop/stop`) is set on the loop's own
   * issue or pull request (e.g. `pull request #3`), or null when it is not.
   */
  stopLabelOn?: (state: LoopState) => Promise<string | null>
  /**
   * Asked only when the loop's state was lost: the open pull request of the loop's branch (`loop/<id>`),
   * or null when there is none. Recorded in the BLOCKED state, so its status comment is posted there.
   */
  openPullRequestOf?: (branch: string) => Promise<{ number: number; url: string } | null>
}

export interface IterationInput {
  config: LoopConfig
  library: PatternLibrary
  loopId: string
  /** The repository root the commands run in. */
  cwd: string
  /** The loop's own folder for logs and prompt files (`.loop/<loop-id>` for the CLI). */
  loopDir: string
  /** Paths (relative to cwd) never committed as the loop's work, e.g. `.loop`. */
  excludeFromCommits: string[]
  /** The iteration this job was dispatched to run (GitHub); older or equal to what ran → superseded. */
  dispatchedIteration?: number
  commit: boolean
  identity: Identity
  /** The controller's environment; commands get a filtered copy. */
  env: NodeJS.ProcessEnv
  maxParallel: number
  /** The issue or pull request this run's event is about: the task of a loop it starts (untrusted text). */
  task?: LoopTask | null
  /** Whether an agent CLI can start its own sandbox under the isolation in force (absent: it can). */
  agentSandbox?: boolean
  stopRequested?: boolean
  /** The version of this tool, named when a newer state is refused. */
  toolVersion: string
  /** The loop config's path relative to cwd (protected from the work command), if it came from a file. */
  configPathRelative?: string
  /**
   * The iteration cap a person gave this run (flag or input); absent, a running loop keeps the cap in its
   * state. A given cap that differs becomes the loop's, recorded in its journey.
   */
  capGiven?: number
  /**
   * The branch the work tree has checked out was just fetched from the remote (the action): a last
   * checkpoint it does not hold was lost with a job that died before its push (see `forgetLostCheckpoint`).
   */
  branchFromRemote?: string
  /** The workflow run this job belongs to (the action): recorded as the loop's `lastRun` when an iteration ran. */
  run?: { id: string; url: string }
  /**
   * The checks' JUnit verdicts as they were read where the checks ran (fan-out's verify legs): when set,
   * regressions and progress are judged on them and no JUnit report is read in this job.
   */
  recordedTests?: Record<string, 'pass' | 'fail'>
}

export type IterationOutcomeKind = 'continue' | 'complete' | 'blocked' | 'waiting' | 'capped' | 'aborted' | 'superseded'

export interface IterationResult {
  outcome: IterationOutcomeKind
  state: LoopState
  /** The decision that drove this iteration (or ended the loop). */
  decision: Decision
  /** The decision for the next iteration, after this one's outcome. */
  next: Decision
  nextAction: string
  checks: CheckResult[]
  commit: string | null
  /** Where this iteration's markdown record was written, if any. */
  record: string | null
  version: StoreVersion | null
  /**
   * Set when this run was fan-out's baseline round instead of an iteration: the iteration it measured
   * for (which runs next) and the checks' verdicts at the base.
   */
  baselineRound?: { iteration: number; checks: CheckResult[] }
}
