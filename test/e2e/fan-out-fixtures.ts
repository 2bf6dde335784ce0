// What the fan-out and sharded-check scenarios share: the example fan-out workflow in the project, the
// scenario it runs, its jobs by kind, and the loop config of a staircase whose `test` check is split in
// shards, each with its own JUnit report.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SandboxOptions } from '../sandbox/sandbox.js'
import type { JobRecord } from '../sandbox/workflow-engine.js'
import { ACTION_DIR, type ProjectOptions, projectFiles, type Scenario, startScenario } from './fixtures.js'

/** examples/workflows/loop-fan-out.yml, as a user copies it. */
export const FAN_OUT_EXAMPLE = readFileSync(join(ACTION_DIR, 'examples', 'workflows', 'loop-fan-out.yml'), 'utf8')

/** The staircase project with the example fan-out workflow (run as `loop-fan-out.yml`), and `extra` files. */
export function fanOutFiles(
  extra: Record<string, string> = {},
  options: ProjectOptions = { steps: 2 },
): Record<string, string> {
  return { ...projectFiles(options), '.github/workflows/loop-fan-out.yml': FAN_OUT_EXAMPLE, ...extra }
}

/** Starts a scenario on fanOutFiles(extra, project), its dispatches running `loop-fan-out.yml`. */
export function startFanOutScenario(
  extra: Record<string, string> = {},
  project: ProjectOptions = { steps: 2 },
  sandbox: Partial<SandboxOptions> = {},
): Promise<Scenario> {
  return startScenario({
    sandbox: { ...sandbox, repoFiles: fanOutFiles(extra, project), workflow: { file: 'loop-fan-out.yml' } },
  })
}

/**
 * The staircase's loop config (of `project`) with `from` replaced by `to`. Throws when the config has no
 * `from`: a replace that changes nothing would quietly run the scenario on the plain staircase.
 */
export function staircaseConfigWith(from: string | RegExp, to: string, project: ProjectOptions = { steps: 2 }): string {
  const config = projectFiles(project)['.github/loop.yml'] ?? ''
  const edited = config.replace(from, to)
  if (edited === config) throw new Error(`the staircase's loop config has no ${String(from)}:\n${config}`)
  return edited
}

/** The fan-out jobs of one kind (`plan`, `verify`, `decide`), as the caller's job `loop` names them. */
export function jobsNamed(jobs: readonly JobRecord[], kind: 'plan' | 'verify' | 'decide'): JobRecord[] {
  return jobs.filter((job) => job.name.startsWith(`loop / ${kind}`))
}

export interface ShardedConfig {
  goal: string
  maxIterations: number
  shards: number
  /** The project's script each shard runs as `node <script> {shard}/{shards}`. */
  script: string
  /** `regression: on`, so a test that passed and then fails is a regression. */
  regression?: boolean
  /** The staircase's own check of this step, after the sharded one. */
  stepCheck?: number
}

/** The loop config: the staircase's work, a sharded `test` check with a JUnit report per shard. */
export function shardedConfig(config: ShardedConfig): string {
  const lines = [
    `goal: ${config.goal}`,
    `max-iterations: ${config.maxIterations}`,
    ...(config.regression ? ['regression: on'] : []),
    'work:',
    '  run: node tools/work.mjs',
    '  timeout: 1m',
    '  pass-env: [E2E_SIGNAL_DIR]',
    'checks:',
    '  - name: test',
    '    kind: test',
    `    shards: ${config.shards}`,
    `    run: node ${config.script} {shard}/{shards}`,
    '    junit: reports/junit-{shard}.xml',
    '    timeout: 30s',
  ]
  if (config.stepCheck !== undefined) {
    lines.push(
      `  - name: step-${config.stepCheck}`,
      '    kind: test',
      `    run: node tools/check.mjs ${config.stepCheck}`,
      '    timeout: 30s',
    )
  }
  return `${lines.join('\n')}\n`
}
