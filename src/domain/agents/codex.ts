/**
 * Codex (`codex exec`), headless: `--json` prints one event per line (`thread.started` with the
 * thread's id, `turn.completed` with token usage, `turn.failed` or `error` on failure), the prompt
 * comes on standard input (`-`). Codex reports tokens, not dollars. Pure.
 */
import { classifyAgentError } from './errors.js'
import { jsonObjectLines, objectAt, shortString, sumCounts } from './json-lines.js'
import type { AgentCall, AgentCallInput, AgentReport, AgentSettings } from './types.js'

/** Writes inside the workspace only (`.git` read-only), never asks (there is nobody to ask), no network for its commands. */
export const CODEX_SANDBOX = 'workspace-write'
/**
 * Where Codex's bubblewrap cannot make its user namespace (root without capabilities, inside the
 * controller's own PID namespace), every edit fails; Codex's documentation says to run it without its
 * sandbox inside a container that gives the guarantees instead, which the controller's isolation is.
 */
export const CODEX_SANDBOX_UNDER_ISOLATION = 'danger-full-access'

export function codexCall(settings: AgentSettings, input: AgentCallInput): AgentCall {
  const common = ['--json', '--skip-git-repo-check']
  if (settings.model) common.push('--model', settings.model)
  const sandbox = input.ownSandbox ? CODEX_SANDBOX : CODEX_SANDBOX_UNDER_ISOLATION
  // `exec resume` takes no `--sandbox` flag: the mode goes in as a config override, for both forms alike.
  common.push('-c', `sandbox_mode="${sandbox}"`, '-c', 'approval_policy="never"')
  const argv = input.session
    ? ['codex', 'exec', 'resume', ...common, ...settings.args, input.session, '-']
    : ['codex', 'exec', ...common, ...settings.args, '-']
  if (input.ownSandbox) return { argv, stdinFile: input.promptFile }
  const note =
    "Codex runs without its own sandbox (sandbox_mode danger-full-access): it cannot make a user namespace here, so the controller's isolation is its only wall"
  return { argv, stdinFile: input.promptFile, note }
}

export function readCodexOutput(stdout: string): AgentReport {
  const events = jsonObjectLines(stdout).filter((e) => typeof e.type === 'string')
  const base: AgentReport = { understood: events.length > 0, tokensAreSessionTotal: true, costIsSessionTotal: false }
  if (events.length === 0) return base
  const started = events.find((e) => e.type === 'thread.started')
  const session = shortString(started?.thread_id)
  // A resumed thread's `turn.completed` carries the thread's running total: the last one is the figure.
  const completed = events.filter((e) => e.type === 'turn.completed').pop()
  const usage = objectAt(completed?.usage)
  // `input_tokens` already includes the cached ones (`cached_input_tokens`), as in OpenAI's usage.
  const tokens = usage ? sumCounts(usage.input_tokens, usage.output_tokens) : undefined
  const turns = events.filter((e) => e.type === 'turn.completed').length
  const report: AgentReport = {
    ...base,
    ...(session ? { session } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
    ...(turns > 0 ? { turns } : {}),
  }
  const failed = events.filter((e) => e.type === 'turn.failed' || e.type === 'error').pop()
  if (failed && !completed) {
    const message = objectAt(failed.error)?.message ?? failed.message
    return { ...report, failure: classifyAgentError(typeof message === 'string' ? message : 'Codex reported an error') }
  }
  return report
}
