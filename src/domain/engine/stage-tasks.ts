/**
 * Stage tasks that are not done after the work: each is a failure of its own, under the same retry
 * budget as a failing check (per-failure, same-error, total), so a task nobody does ends the loop
 * BLOCKED with a handoff that names it instead of calling the agent until the cap. Pure.
 */
import { normaliseTokens } from '../analysis/similarity.js'
import type { Stage } from '../stages.js'
import type { FailureInput } from './retry.js'

/** A stage task whose command ran after this iteration's work and did not succeed. */
export interface UnfinishedTask {
  task: string
  /** The end of its output, or how it ended when it printed nothing. */
  excerpt: string
}

/** Failures of tasks are named apart from checks (a check name cannot hold ':'). */
const TASK_PREFIX = 'task:'

/** The failure name of a task, e.g. `task:changelog`. */
export function taskFailureName(task: string): string {
  return `${TASK_PREFIX}${task}`
}

/** The task a failure is about, or null for a check's failure. */
export function taskOfFailure(check: string): string | null {
  return check.startsWith(TASK_PREFIX) ? check.slice(TASK_PREFIX.length) : null
}

/** The pending tasks that ran this iteration and did not succeed, as failures the retry rules count. */
export function taskFailures(pending: readonly string[], unfinished: readonly UnfinishedTask[]): FailureInput[] {
  return unfinished
    .filter((u) => pending.includes(u.task))
    .map((u) => ({
      check: taskFailureName(u.task),
      kind: 'custom',
      pattern: null,
      confidence: null,
      // The agent has to do what the task checks: find out what it asks, then do it.
      strategy: 'analyze_then_fix',
      alternates: [],
      retryable: true,
      signature: `task:none:${u.task}`,
      tokens: normaliseTokens(u.excerpt),
      error: u.excerpt,
    }))
}

/**
 * The handoff when the budget is spent on a task: which task, at which stage, how many attempts, what its
 * command said, and the two ways on (do it and resume, or skip it with a reason). Null for a check.
 */
export function taskHandoff(check: string, stage: Stage, attempts: number, excerpt: string): string | null {
  const task = taskOfFailure(check)
  if (task === null) return null
  const output = excerpt
    .trim()
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim()
    .slice(0, 200)
  return (
    `the ${stage} task '${task}' is still not done after ${attempts} attempt${attempts === 1 ? '' : 's'}` +
    `${output ? ` (${output})` : ''}; do it and resume the loop, or skip it: skip ${task} --reason "why"`
  )
}
