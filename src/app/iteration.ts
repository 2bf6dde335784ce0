/**
 * One controller iteration, shared by both front doors (the CLI and the action):
 * restore → decide → act → verify → analyze → transition → checkpoint → persist → audit.
 * Effects go through ports; the decisions are the pure engine's.
 */
import { join } from 'node:path'
import { stringify as stringifyYaml } from 'yaml'
import { messageOf } from '../config/errors.js'
import type { CheckConfig, LoopConfig } from '../config/loop-config.js'
import {
  buildDeadLetter,
  detectRegressions,
  inspectProtectedChanges,
  matchGlob,
  type PatternLibrary,
  regressionEnabled,
} from '../domain/analysis/index.js'
import { renderFinalMarkdown, renderIterationMarkdown } from '../domain/audit-markdown.js'
import { buildCommandEnv } from '../domain/command-env.js'
import {
  abort as abortLoop,
  applyOutcome,
  beginIteration,
  compactState,
  type Decision,
  decide,
  type FailureInput,
  type IterationOutcome,
  initialState,
  markBlocked,
  markCapped,
  markComplete,
  markWaiting,
  summarizeNextAction,
} from '../domain/engine/index.js'
import type { JourneyEvent } from '../domain/journey.js'
import { policyFromConfig } from '../domain/policy.js'
import type { Strategy } from '../domain/stages.js'
import type { CheckResult, LoopState } from '../domain/state.js'
import type { FailureForAgent } from '../domain/work-context.js'
import type { AuditLog } from '../ports/audit.js'
import type { Clock } from '../ports/clock.js'
import { ConcurrentCommitError, type Git, type Identity } from '../ports/git.js'
import type { Logger } from '../ports/logger.js'
import type { ProcessRunner, RunResult } from '../ports/process.js'
import { type Store, StoreConflictError, type StoreVersion } from '../ports/store.js'
import type { Workspace } from '../ports/workspace.js'
import { isFailing, safeName, usage } from './step-support.js'
import { junitResults, type LiveCheck, rerunCheck, verify } from './verification.js'
import { runWork } from './work-command.js'

/** Progress callbacks for a live view (the CLI's progress line); all optional. */
export interface ProgressSink {
  iterationStarted?(iteration: number, decision: Decision): void
  phase?(iteration: number, stage: string, text: string): void
  checkStarted?(iteration: number, check: CheckConfig): void
  checkFinished?(iteration: number, result: CheckResult): void
  analysis?(iteration: number, result: CheckResult): void
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
  stopRequested?: boolean
  /** The version of this tool, named when a newer state is refused. */
  toolVersion: string
  /** The loop config's path relative to cwd (protected from the work command), if it came from a file. */
  configPathRelative?: string
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
}

/** Runs one controller iteration. Never throws for a failing check; throws for faults and bad state. */
export async function runOneIteration(input: IterationInput, deps: IterationDeps): Promise<IterationResult> {
  const { config, loopId } = input
  const policy = policyFromConfig(config)
  const now = deps.clock.now()
  const loaded = await deps.store.load(loopId)
  let version: StoreVersion | null = loaded?.version ?? null
  // Events staged by a run that died between its save and its journey append are recovered here.
  await deps.audit.recoverPending(loaded ? savedMarker(loaded.state) : null)
  let state: LoopState
  const events: JourneyEvent[] = []
  if (loaded) {
    state = loaded.state
  } else {
    state = initialState({ loopId, goal: config.goal, policy, now })
    // The cap is structural: a lost state restarts counting from the dispatched iteration, never from 0.
    if (input.dispatchedIteration && input.dispatchedIteration > 1) {
      state = { ...state, iteration: input.dispatchedIteration - 1, claimedIteration: input.dispatchedIteration - 1 }
    }
    events.push(event(now, state.iteration, 'loop-started', `loop ${loopId} started: ${config.goal}`))
  }

  if (input.dispatchedIteration !== undefined && input.dispatchedIteration <= state.iteration) {
    const decision: Decision = {
      kind: 'WAIT_FOR_HUMAN',
      reason: `iteration ${input.dispatchedIteration} already ran (state is at ${state.iteration})`,
    }
    await deps.audit.appendEvents([
      event(now, state.iteration, 'superseded', `a dispatch of iteration ${input.dispatchedIteration} was superseded`),
    ])
    return finish('superseded', state, decision, decision, [], null, null, version)
  }

  const decision = decide(
    state,
    { now, stopRequested: input.stopRequested || config.stop, pullRequestMerged: await merged(state, deps) },
    policy,
  )
  events.push(event(now, state.iteration, 'decision', `${decision.kind}: ${decision.reason}`, { decision }))

  if (decision.kind !== 'EXECUTE_STAGE' && decision.kind !== 'RETRY') {
    return settle(decision)
  }

  // ---- an iteration runs ----
  state = beginIteration(state, decision, now)
  const iteration = state.iteration
  deps.progress?.iterationStarted?.(iteration, decision)
  const stage = decision.stage
  const strategy: Strategy | null = decision.kind === 'RETRY' ? decision.strategy : null
  events.push(
    event(now, iteration, 'iteration-started', `iteration ${iteration}: ${stage}${strategy ? ` (${strategy})` : ''}`),
  )
  const startedAt = Date.now()
  const iterationDir = join(input.loopDir, 'runs', String(iteration))
  await deps.workspace.makeDir(iterationDir)
  const commandEnv = buildCommandEnv(input.env, { passEnv: config.work['pass-env'], extra: {} })
  // A controller killed after its checkpoint commit but before saving the state leaves a commit for this
  // very iteration, which now runs again: fold it back (found by test/reliability/crash.ts).
  if (input.commit && deps.git) await undoUnsavedCheckpoint(deps.git, state, iteration, deps.logger)
  const headBefore = deps.git ? await deps.git.head() : null

  // A baseline of the matrix before the first work: regressions are judged against it, and the agent's
  // first prompt already carries the failure analysis instead of a blind first attempt.
  let previous = lastFailures(state)
  if (!state.baseline) {
    deps.progress?.phase?.(iteration, 'BASELINE', 'measuring the baseline')
    const baseline = await verify(input, deps, join(iterationDir, 'baseline'), commandEnv, iteration, false)
    state = {
      ...state,
      baseline: {
        takenAt: now.toISOString(),
        checks: Object.fromEntries(baseline.map((c) => [c.check.name, c.result.verdict === 'pass' ? 'pass' : 'fail'])),
        tests: await junitResults(input, deps),
      },
    }
    previous = baseline.filter((c) => isFailing(c.result)).map(toAgentFailure)
    events.push(event(now, iteration, 'check', `baseline: ${summarizeVerdicts(baseline.map((c) => c.result))}`))
  }

  // What the work tree is before the work, so the guard judges only what the work changed.
  const treeBeforeWork = deps.git && headBefore ? await deps.git.snapshot() : null

  // ---- act ----
  let work: IterationOutcome['work']
  const tasksCompleted: string[] = []
  const autoFixed: string[] = []
  if (decision.kind === 'EXECUTE_STAGE') {
    for (const task of config.stages[stage]?.tasks ?? []) {
      if (state.tasks.completed.includes(task.name) || state.tasks.skipped.some((s) => s.task === task.name)) continue
      deps.progress?.phase?.(iteration, stage, `task ${task.name}`)
      const result = await deps.runner.run({
        command: task.run,
        cwd: input.cwd,
        env: commandEnv,
        timeoutMs: task.timeout * 1000,
        logFile: join(iterationDir, `task-${safeName(task.name)}.log`),
      })
      if (result.exitCode === 0) tasksCompleted.push(task.name)
      usage(state, iteration, `task ${task.name}`, 'stage task', result)
    }
  }
  if (strategy === 'retry_with_backoff' && decision.kind === 'RETRY') {
    deps.progress?.phase?.(
      iteration,
      stage,
      `waiting ${Math.round(decision.backoffMs / 1000)} s before re-running the checks`,
    )
    await deps.clock.sleep(decision.backoffMs)
  } else if (strategy === 'auto_fix' && hasFixCommand(config, previous)) {
    for (const failure of previous) {
      const check = config.checks.find((c) => c.name === failure.check)
      if (!check?.fix) continue
      deps.progress?.phase?.(iteration, stage, `auto-fix ${check.name}`)
      const result = await deps.runner.run({
        command: check.fix,
        cwd: input.cwd,
        env: commandEnv,
        timeoutMs: check.timeout * 1000,
        logFile: join(iterationDir, `fix-${check.name}.log`),
      })
      usage(state, iteration, `fix ${check.name}`, 'auto_fix strategy', result)
    }
  } else if (strategy === 'dependency_check' && config.install) {
    deps.progress?.phase?.(iteration, stage, 'installing dependencies')
    const result = await deps.runner.run({
      command: config.install,
      cwd: input.cwd,
      env: commandEnv,
      timeoutMs: 900_000,
      logFile: join(iterationDir, 'install.log'),
    })
    usage(state, iteration, 'install', 'dependency_check strategy', result)
  } else {
    work = await runWork(
      input,
      deps,
      state,
      stage,
      decision.kind === 'EXECUTE_STAGE' ? decision.capability : decision.capability,
      strategy,
      previous,
      iterationDir,
      commandEnv,
    )
    events.push(
      event(
        deps.clock.now(),
        iteration,
        'work',
        `work exited ${work.exitCode}${work.blocked ? ` (BLOCKED: ${work.blockedReason})` : ''}`,
        { durationMs: work.durationMs },
      ),
    )
  }

  // ---- the verifier-gaming guard ----
  const gatesRaised: { gate: string; reason: string }[] = []
  const guardFailures: FailureInput[] = []
  if (deps.git && treeBeforeWork) {
    const changes = await deps.git.changesSince(treeBeforeWork)
    const protectedGlobs = [
      ...(input.configPathRelative ? [input.configPathRelative] : []),
      ...(typeof config.patterns === 'string' ? [config.patterns] : []),
      '.github/**',
      ...config.protect.paths,
    ]
    const testGlobs = config.protect['test-files'].length > 0 ? config.protect['test-files'] : DEFAULT_TEST_GLOBS
    const findings = inspectProtectedChanges(changes, { protectedGlobs, testGlobs })
    // Gates triggered by paths: raised when the work changed a path they watch, until approved.
    const changedPaths = await deps.git.changedPaths(treeBeforeWork)
    for (const gate of config.gates) {
      if (gate.paths.length === 0 || state.gates[gate.name]?.status === 'approved') continue
      const touched = changedPaths.filter((path) => gate.paths.some((glob) => matchGlob(glob, path)))
      if (touched.length > 0) {
        gatesRaised.push({
          gate: gate.name,
          reason: `the work changed ${touched.slice(0, 5).join(', ')}${touched.length > 5 ? ` and ${touched.length - 5} more` : ''}`,
        })
      }
    }
    if (findings.length > 0) {
      const reason = findings.map((f) => `${f.path}: ${f.reason}`).join('; ')
      events.push(event(deps.clock.now(), iteration, 'guard', `protected changes: ${reason}`, { findings }))
      if (config.protect['on-change'] === 'gate') gatesRaised.push({ gate: 'verifier', reason })
      else guardFailures.push(guardFailure(reason))
    }
  }

  // ---- verify ----
  deps.progress?.phase?.(iteration, 'VERIFY', 'verification matrix')
  const checks = await verify(input, deps, iterationDir, commandEnv, iteration, true)
  const flaky: string[] = []
  const passes = (result: RunResult) => result.exitCode === 0 && !result.timedOut
  const recheck = async (check: CheckConfig, label: string) =>
    passes(await rerunCheck(input, deps, check, iterationDir, commandEnv, `${check.name}.${label}`))
  const remedy = async (
    command: LoopConfig['work']['run'],
    log: string,
    what: string,
    why: string,
    timeoutMs: number,
  ) =>
    usage(
      state,
      iteration,
      what,
      why,
      await deps.runner.run({ command, cwd: input.cwd, env: commandEnv, timeoutMs, logFile: join(iterationDir, log) }),
    )
  const note = (type: JourneyEvent['type'], message: string) => {
    deps.progress?.phase?.(iteration, 'VERIFY', message)
    events.push(event(deps.clock.now(), iteration, type, message))
  }
  let installed = false
  // Cheaper remedies before anyone is woken: each ends with the check passing, or leaves the failure
  // for the analysis and the retry rules.
  for (const live of checks) {
    if (!isFailing(live.result)) continue
    const name = live.check.name
    // Flake check: re-run unchanged; a pass is recorded as flaky and costs no retry.
    if (config['flake-check'].enabled && live.result.verdict !== 'timeout') {
      let passed = false
      for (let attempt = 1; attempt <= config['flake-check'].reruns && !passed; attempt++) {
        passed = await recheck(live.check, `rerun-${attempt}`)
      }
      if (passed) {
        live.result = { ...live.result, verdict: 'flaky' }
        flaky.push(name)
        note('flaky', `${name}: failed, then passed when re-run (flaky, no retry spent)`)
        continue
      }
    }
    const pattern = live.analysis?.pattern
    // auto_fix: the check's own fix command, then the check again, without the agent.
    if (live.analysis?.strategy === 'auto_fix' && live.check.fix && !autoFixed.includes(name)) {
      await remedy(
        live.check.fix,
        `${name}.fix.log`,
        `fix ${name}`,
        `auto_fix for ${pattern}`,
        live.check.timeout * 1000,
      )
      if (await recheck(live.check, 'after-fix')) {
        live.result = { ...live.result, verdict: 'pass', autoFixed: true }
        autoFixed.push(name)
        note('auto-fix', `${name}: ${pattern} fixed by its fix command (no agent call)`)
        continue
      }
    }
    // dependency_check: the configured install command (once an iteration), then the check again.
    if (live.analysis?.strategy === 'dependency_check' && config.install) {
      if (!installed) await remedy(config.install, 'install.log', 'install', `dependency_check for ${name}`, 900_000)
      installed = true
      if (await recheck(live.check, 'after-install')) {
        live.result = { ...live.result, verdict: 'pass' }
        note('auto-fix', `${name}: ${pattern} resolved by the install command (no agent call)`)
        continue
      }
    }
    if (live.analysis) deps.progress?.analysis?.(iteration, live.result)
  }

  // Regressions: a check (or a JUnit test) that passed in the baseline and fails now.
  const regressionOn = regressionEnabled(config.complexity, config.regression)
  const current = {
    checks: Object.fromEntries(checks.map((c) => [c.check.name, isFailing(c.result) ? 'fail' : 'pass'] as const)),
    tests: await junitResults(input, deps),
  }
  const regressions =
    regressionOn && state.baseline ? detectRegressions(state.baseline, current) : { checks: [], tests: [] }
  if (regressions.checks.length + regressions.tests.length > 0) {
    events.push(
      event(
        deps.clock.now(),
        iteration,
        'regression',
        `regressions: ${[...regressions.checks, ...regressions.tests].join(', ')}`,
      ),
    )
  }

  const failures: FailureInput[] = [...guardFailures]
  for (const live of checks) {
    if (!isFailing(live.result) || !live.check.required || !live.analysis) continue
    const regression = regressions.checks.includes(live.check.name)
    const analysis = live.analysis
    failures.push({
      check: live.check.name,
      kind: live.check.kind,
      pattern: regression && !analysis.pattern ? 'regression-detected' : analysis.pattern,
      confidence: analysis.confidence,
      strategy: regression && !analysis.pattern ? 'context_expand' : analysis.strategy,
      alternates: analysis.alternates,
      retryable: analysis.retryable,
      ...(analysis.maxAutoRetries !== undefined ? { maxAutoRetries: analysis.maxAutoRetries } : {}),
      signature: analysis.signature,
      tokens: analysis.tokens,
      error: analysis.excerpt.slice(0, 2000),
      regression,
      security: analysis.pattern === 'security-finding',
    })
    events.push(
      event(
        deps.clock.now(),
        iteration,
        'analysis',
        `${live.check.name}: ${analysis.pattern ?? 'no match'} (${analysis.confidence.toFixed(2)}) → ${analysis.strategy}`,
        {
          signature: analysis.signature,
          locations: analysis.locations.slice(0, 5),
        },
      ),
    )
  }

  const outcome: IterationOutcome = {
    now: deps.clock.now(),
    stage,
    ...(work ? { work } : {}),
    checks: checks.map((c) => c.result),
    failures,
    flaky,
    autoFixed,
    gatesRaised,
    tasksCompleted,
    ...(strategy ? { strategyUsed: strategy } : {}),
    wallMs: Date.now() - startedAt,
  }
  const applied = applyOutcome(state, outcome, policy)
  state = applied.state
  events.push(...applied.events)

  // ---- checkpoint: the iteration's changes, committed on the current branch ----
  let commit: string | null = null
  if (input.commit && deps.git) {
    const verdict = summarizeVerdicts(outcome.checks)
    const message = `${config.commit['message-prefix']}(${loopId}): iteration ${iteration} ${stage}${strategy ? ` [${strategy}]` : ''}\n\n${verdict}\n\nLoop-Id: ${loopId}\nLoop-Iteration: ${iteration}`
    try {
      commit = await deps.git.commitAll(message, input.identity, input.excludeFromCommits)
    } catch (error) {
      // A second controller in this work tree committed first: it owns this iteration.
      if (!(error instanceof ConcurrentCommitError)) throw error
      await deps.audit.appendEvents([event(deps.clock.now(), iteration, 'superseded', messageOf(error))])
      return finish('superseded', state, decision, decision, outcome.checks, null, null, version)
    }
    if (commit) {
      state = {
        ...state,
        checkpoints: [
          ...state.checkpoints,
          { iteration, commit, message: message.split('\n')[0] ?? '', at: deps.clock.now().toISOString() },
        ].slice(-50),
      }
      events.push(event(deps.clock.now(), iteration, 'checkpoint', `committed ${commit.slice(0, 12)}`))
    }
  }

  const next = decide(
    state,
    { now: deps.clock.now(), stopRequested: false, pullRequestMerged: await merged(state, deps) },
    policy,
  )
  const record = renderIterationMarkdown({
    state,
    decision,
    next,
    checks: checks.map((c) => ({ result: c.result, output: c.outcome.result?.output ?? '', analysis: c.analysis })),
    work: work ?? null,
    diffStat: deps.git && headBefore ? await deps.git.diffStat(headBefore) : '',
    commit,
  })
  const recordPath = await deps.audit
    .writeIteration(iteration, record)
    .then(() => join('iterations', `${iteration}.md`))
  const settled = await settle(next, {
    checks: outcome.checks,
    commit,
    record: recordPath,
    iterationDecision: decision,
  })
  return settled

  // ---- helpers that close over this iteration ----

  async function settle(
    final: Decision,
    ran?: { checks: CheckResult[]; commit: string | null; record: string | null; iterationDecision: Decision },
  ): Promise<IterationResult> {
    const at = deps.clock.now()
    const record = (applied: { state: LoopState; events: JourneyEvent[] }) => {
      state = applied.state
      events.push(...applied.events)
    }
    let kind: IterationOutcomeKind = ran ? 'continue' : 'blocked'
    switch (final.kind) {
      case 'COMPLETE':
        kind = 'complete'
        record(markComplete(state, at))
        break
      case 'CAP_REACHED':
        kind = 'capped'
        record(markCapped(state, final, at))
        break
      case 'ESCALATE':
        kind = 'blocked'
        record(markBlocked(state, final.reason, at))
        break
      case 'WAIT_FOR_HUMAN':
        kind = 'blocked'
        break
      case 'WAIT_FOR_APPROVAL':
        kind = 'waiting'
        if (state.status !== 'waiting' || state.statusReason !== final.reason)
          record(markWaiting(state, final.gate, final.reason, at))
        break
      case 'ABORTED':
        kind = 'aborted'
        if (state.status !== 'aborted') record(abortLoop(state, 'the kill switch (loop/stop label or stop: true)', at))
        break
      default:
        kind = 'continue'
    }
    state = compactState(state)
    const terminal = kind !== 'continue'
    // Nothing changed and nothing ran: a repeated look at a waiting or blocked loop writes nothing.
    const changed = Boolean(ran) || events.some((e) => e.type !== 'decision') || !loaded
    if (changed) {
      const marker = savedMarker(state)
      const redacted = events.map((e) => redactEvent(e, deps.redact))
      await deps.audit.stagePending(marker, redacted)
      try {
        version = await deps.store.save(loopId, state, version)
      } catch (error) {
        await deps.audit.discardPending(marker)
        if (error instanceof StoreConflictError) {
          await deps.audit.appendEvents([
            event(at, state.iteration, 'superseded', 'another controller saved this iteration first'),
          ])
          return finish(
            'superseded',
            state,
            ran?.iterationDecision ?? final,
            final,
            ran?.checks ?? [],
            null,
            null,
            version,
          )
        }
        throw error
      }
      await deps.audit.commitPending(marker)
    }
    if (terminal && changed && (kind === 'complete' || kind === 'blocked' || kind === 'capped' || kind === 'aborted')) {
      let deadLetter: string | undefined
      if (kind === 'blocked' && state.failures.current) {
        const letter = buildDeadLetter({
          loopId,
          failure: state.failures.current,
          history: state.failures.history,
          tried: state.failures.tried,
        })
        await deps.audit.writeDeadLetter(
          letter.signature,
          letter.markdown,
          letter.candidatePattern ? candidateYaml(letter.candidatePattern) : undefined,
        )
        deadLetter = letter.signature
      }
      await deps.audit.writeFinal(renderFinalMarkdown({ state, decision: final, deadLetter }))
    }
    return finish(
      kind,
      state,
      ran?.iterationDecision ?? final,
      final,
      ran?.checks ?? [],
      ran?.commit ?? null,
      ran?.record ?? null,
      version,
    )
  }
}

/** Names one saved state, so staged journey events can be matched with the save they belong to. */
function savedMarker(state: LoopState): string {
  return `${state.loopId}:${state.iteration}:${state.updatedAt}`
}

/** Whether any failing check has a `fix` command; without one, `auto_fix` falls to the agent. */
function hasFixCommand(config: LoopConfig, failures: FailureForAgent[]): boolean {
  return failures.some((failure) => config.checks.some((check) => check.name === failure.check && check.fix))
}

function finish(
  outcome: IterationOutcomeKind,
  state: LoopState,
  decision: Decision,
  next: Decision,
  checks: CheckResult[],
  commit: string | null,
  record: string | null,
  version: StoreVersion | null,
): IterationResult {
  return {
    outcome,
    state,
    decision,
    next,
    nextAction: summarizeNextAction(state, next),
    checks,
    commit,
    record,
    version,
  }
}

/**
 * When HEAD is this loop's checkpoint for `iteration` and the state does not know it (the controller died
 * between the commit and the state save), soft-resets it so that its changes stay staged and the rerun
 * commits the iteration once. Left alone when the commit was pushed: history others may have is never
 * rewritten.
 */
async function undoUnsavedCheckpoint(git: Git, state: LoopState, iteration: number, logger: Logger): Promise<void> {
  if (state.checkpoints.some((c) => c.iteration === iteration)) return
  const body = await git.exec(['log', '-1', '--format=%B'], { allowFailure: true })
  const loopIdLine = new RegExp(`^Loop-Id: ${state.loopId.replace(/[.]/g, '\\.')}$`, 'm')
  if (body.exitCode !== 0 || !loopIdLine.test(body.stdout)) return
  if (!new RegExp(`^Loop-Iteration: ${iteration}$`, 'm').test(body.stdout)) return
  const pushed = await git.exec(['branch', '-r', '--contains', 'HEAD'], { allowFailure: true })
  if (pushed.exitCode !== 0 || pushed.stdout.trim() !== '') return
  const parent = await git.exec(['rev-parse', '--verify', '-q', 'HEAD~1'], { allowFailure: true })
  if (parent.exitCode !== 0) return
  await git.exec(['reset', '-q', '--soft', 'HEAD~1'])
  logger.info(
    `iteration ${iteration}: its checkpoint commit was made but the state was never saved (a crash); the commit is undone (soft) and the iteration runs again`,
  )
}

const DEFAULT_TEST_GLOBS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/test_*.py',
  '**/*_test.py',
  '**/*_test.go',
]

async function merged(state: LoopState, deps: IterationDeps): Promise<boolean | undefined> {
  if (state.stage !== 'SHIP' || !deps.pullRequestMerged) return undefined
  return deps.pullRequestMerged()
}

function event(
  at: Date,
  iteration: number,
  type: JourneyEvent['type'],
  message: string,
  data?: Record<string, unknown>,
): JourneyEvent {
  return { at: at.toISOString(), iteration, type, message, ...(data ? { data } : {}) }
}

function redactEvent(e: JourneyEvent, redact: (text: string) => string): JourneyEvent {
  return JSON.parse(redact(JSON.stringify(e))) as JourneyEvent
}

function summarizeVerdicts(results: CheckResult[]): string {
  return results.map((r) => `${r.name} ${r.verdict}`).join(', ')
}

function lastFailures(state: LoopState): FailureForAgent[] {
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
    }))
}

function toAgentFailure(live: LiveCheck): FailureForAgent {
  return {
    check: live.check.name,
    kind: live.check.kind,
    pattern: live.result.pattern,
    confidence: live.result.confidence,
    strategy: live.result.strategy ?? 'analyze_then_fix',
    locations: live.result.locations,
    excerpt: live.result.excerpt,
    ...(live.analysis?.hint ? { hint: live.analysis.hint } : {}),
  }
}

function guardFailure(reason: string): FailureInput {
  return {
    check: 'verifier-guard',
    kind: 'custom',
    pattern: null,
    confidence: null,
    strategy: 'escalate',
    alternates: [],
    retryable: false,
    signature: 'verifier-guard:none:00000000',
    tokens: [],
    error: `The work changed protected paths: ${reason}`,
  }
}

/** A proposed pattern, as a patterns file a person can review and add (`patterns:` in the loop config). */
function candidateYaml(pattern: unknown): string {
  return `# A candidate pattern proposed from similar failures with no confident match; review before use.\n${stringifyYaml({ patterns: [pattern] })}`
}
