/**
 * aider, headless: `--message-file` runs one message and exits; it prints a line such as
 * `Tokens: 4.2k sent, 312 received. Cost: $0.02 message, $0.05 session.` and keeps no resumable
 * session id, so each call starts fresh. The controller commits, so aider must not. Pure.
 */
import { classifyAgentError } from './errors.js'
import type { AgentCall, AgentCallInput, AgentReport, AgentSettings } from './types.js'

export function aiderCall(settings: AgentSettings, input: AgentCallInput): AgentCall {
  const argv = [
    'aider',
    '--message-file',
    input.promptFile,
    '--yes-always',
    '--no-auto-commits',
    '--no-dirty-commits',
    '--no-stream',
    '--no-pretty',
    '--no-check-update',
    '--analytics-disable',
    '--no-show-model-warnings',
  ]
  if (settings.model) argv.push('--model', settings.model)
  argv.push(...settings.args)
  return { argv, stdinFile: null }
}

const TOKENS_LINE =
  /Tokens:\s*([\d.]+)([kKmM]?)\s*sent,\s*([\d.]+)([kKmM]?)\s*received\.(?:\s*Cost:\s*\$([\d.]+)\s*message)?/g

function scaled(value: string, unit: string): number {
  const factor = unit.toLowerCase() === 'k' ? 1_000 : unit.toLowerCase() === 'm' ? 1_000_000 : 1
  return Math.round(Number.parseFloat(value) * factor)
}

export function readAiderOutput(output: string, exitCode: number | null): AgentReport {
  let tokens: number | undefined
  let costUsd: number | undefined
  for (const match of output.matchAll(TOKENS_LINE)) {
    tokens = (tokens ?? 0) + scaled(match[1] ?? '0', match[2] ?? '') + scaled(match[3] ?? '0', match[4] ?? '')
    if (match[5]) costUsd = (costUsd ?? 0) + Number.parseFloat(match[5])
  }
  const report: AgentReport = {
    understood: tokens !== undefined,
    tokensAreSessionTotal: false,
    costIsSessionTotal: false,
    ...(tokens !== undefined ? { tokens } : {}),
    ...(costUsd !== undefined && Number.isFinite(costUsd) ? { costUsd } : {}),
  }
  if (exitCode !== 0 && exitCode !== null) {
    const errorLine = output.split('\n').find((l) => /error|exception/i.test(l)) ?? `aider exited ${exitCode}`
    return { ...report, failure: classifyAgentError(errorLine) }
  }
  return report
}
