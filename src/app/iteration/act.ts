/**
 * Act: what the retry strategy asks for: wait and re-run the checks, the checks' own fix commands, the
 * install command, or (by default) the work command. The stage's tasks run after it (`tasks.ts`).
 */
import { join } from 'node:path'
import { briefingLine } from '../../domain/audit-markdown.js'
import type { LoopConfig } from '../../domain/loop-config.js'
import type { FailureForAgent } from '../../domain/work-context.js'
import type { RunRequest } from '../../ports/process.js'
import { usage } from '../step-support.js'
import { runWork } from '../work-command.js'
import { beforeFix, beforeWork, event, type IterationRecord, type IterationRun, withEvents } from './record.js'

/** How long the install command may take. */
export const INSTALL_TIMEOUT_MS = 900_000

export async function act(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { input, deps, decision, strategy, stage, iteration } = run
  const { config } = input
  if (decision.kind === 'RETRY' && strategy === 'retry_with_backoff') {
    deps.progress?.phase?.(
      iteration,
      stage,
      `waiting ${Math.round(decision.backoffMs / 1000)} s before re-running the checks`,
    )
    await deps.clock.sleep(decision.backoffMs)
    return record
  }
  if (strategy === 'auto_fix' && hasFixCommand(config, record.previous))
    return runFixCommands(run, record, 'auto_fix strategy')
  if (strategy === 'dependency_check' && config.install) {
    deps.progress?.phase?.(iteration, stage, 'installing dependencies')
    const result = await deps.runner.run(command(run, config.install, 'install.log', INSTALL_TIMEOUT_MS))
    usage(record.state, iteration, 'install', 'dependency_check strategy', result)
    return { ...record, remediesRun: { ...record.remediesRun, install: true } }
  }
  // A declared fix is cheaper than an agent call: on failures no fix has run on yet (the baseline's) it
  // runs first, and the agent hears only of the rest. Later, a failure that outlived its fix is the agent's.
  const fixFirst = record.previousIsFresh && hasFixCommand(config, record.previous)
  const fixedFirst = fixFirst ? await runFixCommands(run, record, 'a baseline failure, fixed before the work') : record
  const forAgent = fixedFirst.previous.filter((f) => !fixedFirst.remediesRun.fixes.includes(f.check))
  const briefing = (toldAgent: string[] | null) =>
    record.previousIsFresh ? { fixedFirst: fixedFirst.remediesRun.fixes, toldAgent } : null
  if (fixedFirst !== record && forAgent.length === 0) return { ...fixedFirst, briefing: briefing(null) }
  const ready = {
    ...(fixedFirst === record
      ? record
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
