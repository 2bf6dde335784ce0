/**
 * What every job that runs an iteration (the single job, fan-out's plan and its decide) hands it from
 * the run alike: the loop's config with the secrets it passes, where raw logs go, the commit identity,
 * the event's task and stop label, the cap or config path a person gave. Each job adds what differs:
 * the environment and parallelism of its commands, its sandbox, whether it commits, its branch.
 */
import { join } from 'node:path'
import type { IterationInput } from '../app/iteration.js'
import { taskOfEvent } from '../domain/action-event.js'
import type { PatternLibrary } from '../domain/analysis/index.js'
import { hasStopLabel } from '../domain/commands.js'
import { VERSION } from '../version.js'
import { COMMIT_IDENTITY } from './commit-identity.js'
import { type loadActionConfig, withSecretsPassed } from './loop-config.js'
import type { RunContext } from './run-context.js'

/** The part of an iteration's input that comes from the run, the same for every kind of job. */
export type RunIterationInput = Omit<IterationInput, 'env' | 'maxParallel'>

export function runIterationInput(
  run: RunContext,
  loaded: Awaited<ReturnType<typeof loadActionConfig>>,
  parts: { library: PatternLibrary; loopId: string; root: string; runnerTemp: string; commit: boolean },
): RunIterationInput {
  const { config, configPathRelative, capGiven } = loaded
  return {
    config: withSecretsPassed(config, run.settings.secrets),
    library: parts.library,
    loopId: parts.loopId,
    cwd: parts.root,
    // Raw logs and prompt files stay outside the uploaded audit trail: only redacted text leaves the runner.
    loopDir: join(parts.runnerTemp, 'loop-controller', 'runs', parts.loopId),
    excludeFromCommits: [],
    commit: parts.commit,
    identity: COMMIT_IDENTITY,
    // The issue or pull request a starting loop is about becomes its task (quoted, untrusted text).
    task: taskOfEvent(run.event.name, run.event.payload),
    // The event's own labels (no API call): an event that carries the kill switch starts no work.
    stopRequested: hasStopLabel(run.event.subject.labels),
    toolVersion: VERSION,
    // A re-dispatch that carries no cap leaves the loop's own, set when it started, in force.
    ...(capGiven !== undefined ? { capGiven } : {}),
    ...(configPathRelative ? { configPathRelative } : {}),
  }
}
