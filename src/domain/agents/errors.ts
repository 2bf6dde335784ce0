/**
 * Telling an agent's failure apart from the work it did: the CLIs print their API's error in their own
 * words, so the kind is read from the status code and the API's error type where they appear. Pure.
 */
import type { AgentFailure, AgentFailureKind } from './types.js'

const RULES: readonly { kind: AgentFailureKind; transient: boolean; sign: RegExp }[] = [
  // Out of money or quota looks like a 429 on some APIs, but waiting does not help: checked first.
  {
    kind: 'quota',
    transient: false,
    sign: /insufficient_quota|credit balance is too low|quota exceeded|exceeded your current quota|billing/i,
  },
  {
    kind: 'auth',
    transient: false,
    sign: /\b401\b|\b403\b|authentication_error|permission_error|invalid[ _-]?(x-)?api[ _-]?key|invalid_api_key|unauthori[sz]ed|please run \/login|not logged in/i,
  },
  { kind: 'overloaded', transient: true, sign: /\b529\b|overloaded/i },
  { kind: 'rate-limit', transient: true, sign: /\b429\b|rate[ _-]?limit|too many requests/i },
  {
    kind: 'server-error',
    transient: true,
    // Codex words a 5xx as "high demand, which may cause temporary errors".
    sign: /\b50[0234]\b|internal server error|api_error|bad gateway|service unavailable|gateway timeout|high demand|temporary errors?/i,
  },
  {
    kind: 'network',
    transient: true,
    sign: /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|socket hang up|connection error|stream disconnected|network error|fetch failed/i,
  },
  { kind: 'bad-request', transient: false, sign: /\b400\b|invalid_request_error|bad request/i },
]

/** The failure an agent's error text describes; `unknown` (not transient) when nothing matches. */
export function classifyAgentError(text: string): AgentFailure {
  const message = oneLine(text)
  for (const rule of RULES) {
    if (rule.sign.test(text)) return { kind: rule.kind, transient: rule.transient, message }
  }
  return { kind: 'unknown', transient: false, message }
}

/** The first non-empty line, bounded: enough for a journey line and a handoff. */
export function oneLine(text: string, max = 300): string {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  const first = line ?? ''
  return first.length > max ? `${first.slice(0, max - 1)}…` : first
}

/** What a person should do about a failure that waiting will not fix. */
export function failureHandoff(failure: AgentFailure, agent: string): string {
  switch (failure.kind) {
    case 'auth':
      return `the ${agent} API refused the key (${failure.message}); check the secret the agent reads and that it is passed to the step`
    case 'quota':
      return `the ${agent} account is out of quota or credit (${failure.message}); top it up or raise the limit, then resume`
    case 'max-turns':
      return `the agent stopped at its turn limit (${failure.message}); raise max-turns or narrow the goal`
    case 'budget':
      return `the agent stopped at the loop's remaining USD budget (${failure.message}); raise budget.cost-usd to go on`
    case 'not-installed':
      return failure.message
    case 'timed-out':
      return `the agent ran past its time limit and was stopped (${failure.message})`
    default:
      return `the agent failed: ${failure.message}`
  }
}

/**
 * A failure after which another call cannot help until a person acts (a refused key, no quota, a
 * request the API rejects, a CLI that is not there) or that outlasted its retries: the loop stops
 * with a handoff. A call cut short (its turn limit, the budget, the time limit) still left work to
 * verify, so the checks judge it.
 */
export function stopsTheLoop(failure: AgentFailure): boolean {
  return failure.transient || ['auth', 'quota', 'bad-request', 'not-installed'].includes(failure.kind)
}
