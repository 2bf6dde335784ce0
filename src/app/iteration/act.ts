/**
 * Act: the stage's tasks on a first attempt, then what the retry strategy asks for: wait and re-run
 * the checks, the checks' own fix commands, the install command, or (by default) the work command.
 */
import { join } from 'node:path'
import { briefingLine } from '../../domain/audit-markdown.js'
import type { LoopConfig } from '../../domain/loop-config.js'
import type { FailureForAgent } from '../../domain/work-context.js'
import type { RunRequest } from '../../ports/process.js'
import { safeName, usage } from '../step-support.js'
import { runWork } from '../work-command.js'
import { beforeFix, beforeWork, event, type IterationRecord, type IterationRun, withEvents } from './record.js'

/** How long the install command may take. */
export const INSTALL_TIMEOUT_MS = 900_000

export async function act(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const withTasks = await runStageTasks(run, record)
  const { input, deps, decision, strategy, stage, iteration } = run
  const { config } = input
  if (decision.kind === 'RETRY' && strategy === 'retry_with_backoff') {
    deps.progress?.phase?.(
      iteration,
      stage,
      `waiting ${Math.round(decision.backoffMs / 1000)} s before re-running the checks`,
    )
    await deps.clock.sleep(decision.backoffMs)
    return withTasks
  }
  if (strategy === 'auto_fix' && hasFixCommand(config, withTasks.previous))
    return runFixCommands(run, withTasks, 'auto_fix strategy')
  if (strategy === 'dependency_check' && config.install) {
    deps.progress?.phase?.(iteration, stage, 'installing dependencies')
    const result = await deps.runner.run(command(run, config.install, 'install.log', INSTALL_TIMEOUT_MS))
    usage(withTasks.state, iteration, 'install', 'dependency_check strategy', result)
    return { ...withTasks, remediesRun: { ...withTasks.remediesRun, install: true } }
  }
  // A declared fix is cheaper than an agent call: on failures no fix has run on yet (the baseline's) it
  // runs first, and the agent hears only of the rest. Later, a failure that outlived its fix is the agent's.
  const fixFirst = withTasks.previousIsFresh && hasFixCommand(config, withTasks.previous)
  const fixedFirst = fixFirst
    ? await runFixCommands(run, withTasks, 'a baseline failure, fixed before the work')
    : withTasks
  const forAgent = fixedFirst.previous.filter((f) => !fixedFirst.remediesRun.fixes.includes(f.check))
  const briefing = (toldAgent: string[] | null) =>
    withTasks.previousIsFresh ? { fixedFirst: fixedFirst.remediesRun.fixes, toldAgent } : null
  if (fixedFirst !== withTasks && forAgent.length === 0) return { ...fixedFirst, briefing: briefing(null) }
  const ready = {
    ...(fixedFirst === withTasks
      ? withTasks
      : { ...fixedFirst, fixSnapshots: [...fixedFirst.fixSnapshots, ...(await beforeWork(run))] }),
    briefing: briefing(forAgent.map((f) => f.check)),
  }
  const told = ready.briefing ? [event(deps.clock.now(), iteration, 'work', briefingLine(ready.briefing))] : []
  const { work, notes } = await runWork(
    input,
    deps,
    ready.state,
    stage,
    decision.capability,
    strategy,
    forAgent,
    run.iterationDir,
    run.commandEnv,
  )
  return withEvents(
    { ...ready, work },
    ...told,
    ...notes.map((note) => event(deps.clock.now(), iteration, 'work', note)),
    event(
      deps.clock.now(),
      iteration,
      'work',
      `work exited ${work.exitCode}${work.blocked ? ` (BLOCKED: ${work.blockedReason})` : ''}${work.failure ? ` (${work.agent} failed: ${work.failure.kind}: ${work.failure.message})` : ''}`,
      { durationMs: work.durationMs },
    ),
  )
}

/** A first attempt at a stage runs its tasks not yet completed or skipped. */
async function runStageTasks(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  if (run.decision.kind !== 'EXECUTE_STAGE') return record
  const { deps, stage, iteration } = run
  const { tasks } = record.state
  const completed: string[] = []
  for (const task of run.input.config.stages[stage]?.tasks ?? []) {
    if (tasks.completed.includes(task.name) || tasks.skipped.some((s) => s.task === task.name)) continue
    deps.progress?.phase?.(iteration, stage, `task ${task.name}`)
    const result = await deps.runner.run(command(run, task.run, `task-${safeName(task.name)}.log`, task.timeout * 1000))
    if (result.exitCode === 0) completed.push(task.name)
    usage(record.state, iteration, `task ${task.name}`, 'stage task', result)
  }
  return { ...record, tasksCompleted: [...record.tasksCompleted, ...completed] }
}

/** Each failing check's own fix command, without the agent (the auto_fix strategy, and before any agent call). */
async function runFixCommands(run: IterationRun, record: IterationRecord, why: string): Promise<IterationRecord> {
  const { input, deps, stage, iteration } = run
  const fixed: string[] = []
  const fixSnapshots = [...record.fixSnapshots]
  for (const failure of record.previous) {
    const check = input.config.checks.find((c) => c.name === failure.check)
    if (!check?.fix || fixed.includes(check.name) || record.remediesRun.fixes.includes(check.name)) continue
    deps.progress?.phase?.(iteration, stage, `running the fix command of ${check.name}`)
    fixSnapshots.push(...(await beforeFix(run, check.name, check.fix)))
    const result = await deps.runner.run(command(run, check.fix, `fix-${check.name}.log`, check.timeout * 1000))
    usage(record.state, iteration, `fix ${check.name}`, why, result)
    fixed.push(check.name)
  }
  return {
    ...record,
    fixSnapshots,
    remediesRun: { ...record.remediesRun, fixes: [...record.remediesRun.fixes, ...fixed] },
  }
}

/** Whether any failing check has a `fix` command; without one, `auto_fix` falls to the agent. */
function hasFixCommand(config: LoopConfig, failures: FailureForAgent[]): boolean {
  return failures.some((failure) => config.checks.some((check) => check.name === failure.check && check.fix))
}

/** A project command of this iteration (task, fix, install): in the repository, with the project's environment, logged in its folder. */
export function command(
  run: IterationRun,
  line: RunRequest['command'],
  logName: string,
  timeoutMs: number,
): RunRequest {
  return { command: line, cwd: run.input.cwd, env: run.projectEnv, timeoutMs, logFile: join(run.iterationDir, logName) }
}
