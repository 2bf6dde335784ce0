/**
 * Calling the agent: the work command as written (`agent: command`), or a preset's CLI with the prompt
 * on standard input, its session resumed, the loop's remaining budget held inside the call, its usage
 * read from its own output, and a transient API failure retried after a pause.
 */
import {
  AGENT_PRESETS,
  type AgentFailure,
  type AgentReport,
  callUsage,
  classifyAgentError,
  notInstalledMessage,
  oneLine,
  type SessionTotals,
} from '../domain/agents/index.js'
import type { LoopConfig } from '../domain/loop-config.js'
import type { LoopState } from '../domain/state.js'
import type { RunRequest, RunResult } from '../ports/process.js'
import type { IterationDeps } from './iteration/types.js'

/** Calls of a preset CLI per iteration when its API answers with a transient failure. */
export const AGENT_ATTEMPTS = 3

export interface AgentCallResult {
  result: RunResult
  /** What the preset read from the output (absent for `agent: command`). */
  report?: AgentReport
  failure?: AgentFailure
  tokens?: number
  costUsd?: number
  session?: string
  sessionUsage?: { tokens: number; costUsd: number }
  /** Lines for the journey: retries, an output the preset could not read. */
  notes: string[]
}

/**
 * The request for the work command of `agent: command`, or for one call of a preset's CLI, with the
 * preset's word on a choice it made (`note`). `ownSandbox`: the CLI can start its own sandbox here.
 */
export function agentRequest(
  config: LoopConfig,
  state: LoopState,
  base: Omit<RunRequest, 'command'>,
  promptFile: string,
  ownSandbox = true,
): { request: RunRequest; note?: string } {
  const timeoutMs = callTimeoutMs(config, state)
  if (config.agent === 'command') {
    // Validated at load: `command` always has its work.run.
    return { request: { ...base, command: config.work.run ?? [], timeoutMs } }
  }
  const preset = AGENT_PRESETS[config.agent]
  const remainingUsd =
    preset.holdsBudget && config.budget['cost-usd'] !== undefined
      ? Math.max(0, config.budget['cost-usd'] - state.usage.costUsd)
      : null
  const call = preset.call(
    { name: config.agent, args: config['agent-args'], model: config.model, maxTurns: config['max-turns'] },
    { promptFile, session: state.session ?? null, remainingUsd, ownSandbox },
  )
  const request: RunRequest = {
    ...base,
    command: call.argv,
    timeoutMs,
    captureStdout: true,
    ...(call.stdinFile ? { stdinFile: call.stdinFile } : {}),
  }
  return call.note ? { request, note: call.note } : { request }
}

/** The work's own time limit, shortened to what is left of the loop's minutes budget. */
function callTimeoutMs(config: LoopConfig, state: LoopState): number {
  const own = config.work.timeout * 1000
  const minutes = config.budget.minutes
  if (minutes === undefined) return own
  return Math.max(1000, Math.min(own, minutes * 60_000 - state.usage.wallMs))
}

/** Runs a preset's CLI (see the module comment); `agent: command` runs once and is read by the caller. */
export async function callAgent(
  config: LoopConfig,
  state: LoopState,
  request: RunRequest,
  deps: Pick<IterationDeps, 'runner' | 'clock' | 'logger'>,
): Promise<AgentCallResult> {
  if (config.agent === 'command') return { result: await deps.runner.run(request), notes: [] }
  const preset = AGENT_PRESETS[config.agent]
  const notes: string[] = []
  for (let attempt = 1; ; attempt++) {
    const result = await deps.runner.run(request)
    const read = readCall(config.agent, result)
    if (!read.report.understood && !result.spawnError) {
      notes.push(
        `${preset.title}'s output was not what it prints with its machine-readable flag; this call's usage is unknown (see work.log)`,
      )
      deps.logger.warning(`agent '${config.agent}': its output could not be read; usage unknown for this call.`)
    }
    const failure = read.failure
    if (failure?.transient && attempt < AGENT_ATTEMPTS) {
      const waitMs = config.retry['backoff-seconds'] * 1000 * 2 ** (attempt - 1)
      notes.push(
        `${preset.title} failed (${failure.kind}: ${failure.message}); calling again in ${Math.round(waitMs / 1000)} s (attempt ${attempt + 1} of ${AGENT_ATTEMPTS})`,
      )
      await deps.clock.sleep(waitMs)
      continue
    }
    const prior: SessionTotals | null =
      state.session && state.sessionUsage ? { id: state.session, ...state.sessionUsage } : null
    const usage = callUsage(read.report, prior)
    if (failure?.transient) notes.push(`${preset.title} still failed after ${AGENT_ATTEMPTS} calls: ${failure.message}`)
    return {
      result,
      report: read.report,
      ...(failure ? { failure } : {}),
      ...(usage.tokens !== undefined ? { tokens: usage.tokens } : {}),
      ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
      ...(read.report.session ? { session: read.report.session } : {}),
      ...(usage.totals ? { sessionUsage: { tokens: usage.totals.tokens, costUsd: usage.totals.costUsd } } : {}),
      notes,
    }
  }
}

/** The preset's reading of one call, with the failures its output cannot tell: not started, killed at the time limit. */
function readCall(
  name: Exclude<LoopConfig['agent'], 'command'>,
  result: RunResult,
): { report: AgentReport; failure?: AgentFailure } {
  const preset = AGENT_PRESETS[name]
  if (result.spawnError) {
    const missing = /ENOENT/.test(result.spawnError)
    const failure: AgentFailure = missing
      ? { kind: 'not-installed', transient: false, message: notInstalledMessage(name, name) }
      : classifyAgentError(result.spawnError)
    return { report: { understood: false, tokensAreSessionTotal: false, costIsSessionTotal: false }, failure }
  }
  const report = preset.read({ stdout: result.stdout ?? '', output: result.output, exitCode: result.exitCode })
  // Started through the isolation's `env`, a missing CLI is exit 127 rather than a spawn error.
  if (result.exitCode === 127 && !report.understood && /No such file or directory|not found/i.test(result.output)) {
    return { report, failure: { kind: 'not-installed', transient: false, message: notInstalledMessage(name, name) } }
  }
  if (result.timedOut) {
    const seconds = Math.round(result.durationMs / 1000)
    return { report, failure: { kind: 'timed-out', transient: false, message: `stopped after ${seconds} s` } }
  }
  if (report.failure) return { report, failure: report.failure }
  if (result.exitCode !== 0 && !report.understood) {
    return {
      report,
      failure: classifyAgentError(lastLines(result.output) || `${preset.title} exited ${result.exitCode}`),
    }
  }
  return { report }
}

function lastLines(output: string): string {
  return oneLine(output.trim().split('\n').slice(-5).reverse().join('\n'))
}
