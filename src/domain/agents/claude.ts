/**
 * Claude Code (`claude`), headless: `-p` with the prompt on standard input and `--output-format json`,
 * which ends with one `result` object (`usage`, `total_cost_usd`, `session_id`, `num_turns`, `is_error`,
 * `subtype`). Pure.
 */
import { classifyAgentError } from './errors.js'
import { count, jsonObjectLines, objectAt, shortString, sumCounts } from './json-lines.js'
import type { AgentCall, AgentCallInput, AgentReport, AgentSettings } from './types.js'

/**
 * Edits in the workspace without asking, and nothing more: file tools and the shell (the agent runs the
 * project's tests as a developer would), no web tools, no pushing and no changing where git pushes.
 */
export const CLAUDE_ALLOWED_TOOLS = ['Read', 'Edit', 'MultiEdit', 'Write', 'Glob', 'Grep', 'LS', 'Bash', 'TodoWrite']
export const CLAUDE_DISALLOWED_TOOLS = ['WebFetch', 'WebSearch', 'Bash(git push:*)', 'Bash(git remote:*)']

export function claudeCall(settings: AgentSettings, input: AgentCallInput): AgentCall {
  const argv = [
    'claude',
    '-p',
    '--output-format',
    'json',
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    CLAUDE_ALLOWED_TOOLS.join(','),
    '--disallowedTools',
    CLAUDE_DISALLOWED_TOOLS.join(','),
  ]
  if (settings.model) argv.push('--model', settings.model)
  if (settings.maxTurns) argv.push('--max-turns', String(settings.maxTurns))
  if (input.remainingUsd !== null) argv.push('--max-budget-usd', input.remainingUsd.toFixed(4))
  if (input.session) argv.push('--resume', input.session)
  argv.push(...settings.args)
  return { argv, stdinFile: input.promptFile }
}

const SUBTYPE_FAILURES: Record<string, { kind: 'max-turns' | 'budget'; transient: false }> = {
  error_max_turns: { kind: 'max-turns', transient: false },
  error_max_budget_usd: { kind: 'budget', transient: false },
}

export function readClaudeOutput(stdout: string): AgentReport {
  const result = jsonObjectLines(stdout)
    .reverse()
    .find((o) => o.type === 'result')
  if (!result) return { understood: false, tokensAreSessionTotal: false, costIsSessionTotal: true }
  const usage = objectAt(result.usage)
  const tokens = usage
    ? sumCounts(
        usage.input_tokens,
        usage.cache_creation_input_tokens,
        usage.cache_read_input_tokens,
        usage.output_tokens,
      )
    : undefined
  const costUsd = count(result.total_cost_usd)
  const session = shortString(result.session_id)
  const turns = count(result.num_turns)
  const report: AgentReport = {
    understood: true,
    tokensAreSessionTotal: false,
    // A resumed session reports the cost of the whole session so far, not of this call.
    costIsSessionTotal: true,
    ...(tokens !== undefined ? { tokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(session ? { session } : {}),
    ...(turns !== undefined ? { turns } : {}),
  }
  const subtype = typeof result.subtype === 'string' ? result.subtype : ''
  const text = typeof result.result === 'string' ? result.result : subtype
  const bySubtype = SUBTYPE_FAILURES[subtype]
  if (bySubtype)
    return { ...report, failure: { ...bySubtype, message: `${subtype}${turns ? ` after ${turns} turns` : ''}` } }
  if (result.is_error === true || subtype.startsWith('error')) {
    // `api_error_status` is the API's own answer: the surest sign of what failed when there is one.
    const status = count(result.api_error_status)
    const said = text || 'Claude Code reported an error'
    return { ...report, failure: classifyAgentError(status ? `API error ${status}: ${said}` : said) }
  }
  return report
}
