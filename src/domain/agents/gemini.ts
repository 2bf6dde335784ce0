/**
 * Gemini CLI (`gemini`), headless: the prompt on standard input, `--output-format json` prints one
 * object (`response`, `stats.models.<model>.tokens`, `error`, and the session's id in versions that
 * resume). Exit code 53 is its turn limit. Pure.
 */
import { classifyAgentError } from './errors.js'
import { count, jsonObjectLines, objectAt, shortString } from './json-lines.js'
import type { AgentCall, AgentCallInput, AgentReport, AgentSettings } from './types.js'

export function geminiCall(settings: AgentSettings, input: AgentCallInput): AgentCall {
  // `auto_edit` approves edits and nothing else: shell commands it would need a person for are refused.
  const argv = ['gemini', '--output-format', 'json', '--approval-mode', 'auto_edit']
  if (settings.model) argv.push('--model', settings.model)
  if (input.session) argv.push('--resume', input.session)
  argv.push(...settings.args)
  return { argv, stdinFile: input.promptFile }
}

export function readGeminiOutput(stdout: string, exitCode: number | null): AgentReport {
  const result = jsonObjectLines(stdout)
    .reverse()
    .find((o) => 'response' in o || 'stats' in o || 'error' in o)
  const base: AgentReport = {
    understood: result !== undefined,
    tokensAreSessionTotal: false,
    costIsSessionTotal: false,
  }
  if (exitCode === 53)
    return { ...base, failure: { kind: 'max-turns', transient: false, message: 'turn limit exceeded (exit 53)' } }
  if (!result) return base
  const models = objectAt(objectAt(result.stats)?.models) ?? {}
  let tokens: number | undefined
  for (const model of Object.values(models)) {
    const total = count(objectAt(objectAt(model)?.tokens)?.total)
    if (total !== undefined) tokens = (tokens ?? 0) + total
  }
  const session = shortString(result.session_id) ?? shortString(result.sessionId)
  const report: AgentReport = { ...base, ...(tokens !== undefined ? { tokens } : {}), ...(session ? { session } : {}) }
  const error = objectAt(result.error)
  if (error) {
    const text = [error.code, error.type, error.message].filter((v) => v !== undefined).join(' ')
    return { ...report, failure: classifyAgentError(text || 'Gemini CLI reported an error') }
  }
  return report
}
