/**
 * Tasks: the stage's tasks not yet completed or skipped, run after the work (and the guard), so a task
 * the work has just done is seen as done in the same iteration. One that fails is reported to the engine,
 * which counts it against the retry budget like a failing check.
 */
import type { UnfinishedTask } from '../../domain/engine/index.js'
import { safeName, usage } from '../step-support.js'
import { command } from './act.js'
import type { IterationRecord, IterationRun } from './record.js'

/** How much of a failed task's output is kept for the agent and the handoff. */
const TASK_EXCERPT_CHARS = 1500

export async function stageTasks(run: IterationRun, record: IterationRecord): Promise<IterationRecord> {
  const { deps, stage, iteration } = run
  const { tasks } = record.state
  const completed: string[] = []
  const failed: UnfinishedTask[] = []
  for (const task of run.input.config.stages[stage]?.tasks ?? []) {
    if (tasks.completed.includes(task.name) || tasks.skipped.some((s) => s.task === task.name)) continue
    deps.progress?.phase?.(iteration, stage, `task ${task.name}`)
    const result = await deps.runner.run(command(run, task.run, `task-${safeName(task.name)}.log`, task.timeout * 1000))
    usage(record.state, iteration, `task ${task.name}`, 'stage task', result)
    if (result.exitCode === 0) {
      completed.push(task.name)
      continue
    }
    const how = result.timedOut
      ? `timed out after ${task.timeout} s`
      : (result.spawnError ?? `exited ${result.exitCode ?? result.signal ?? 'with an error'}`)
    const output = deps.redact(result.output).trim().slice(-TASK_EXCERPT_CHARS)
    failed.push({ task: task.name, excerpt: output ? `${output}\n(${how})` : `its command ${how}` })
  }
  return {
    ...record,
    tasksCompleted: [...record.tasksCompleted, ...completed],
    tasksFailed: [...record.tasksFailed, ...failed],
  }
}
