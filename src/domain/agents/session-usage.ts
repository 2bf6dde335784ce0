/**
 * Counting each token and each dollar once: some CLIs report a resumed session's running totals
 * rather than the call's own figures, so the loop keeps what the session had reported and subtracts
 * it. Pure.
 */
import type { AgentReport } from './types.js'

/** What a session had reported so far (its id and its running totals). */
export interface SessionTotals {
  id: string
  tokens: number
  costUsd: number
}

/**
 * This call's own usage, and the session's totals to keep for the next call. A report in running
 * totals counts only what grew since the same session's last report; a new session starts from zero.
 */
export function callUsage(
  report: AgentReport,
  previous: SessionTotals | null,
): { tokens?: number; costUsd?: number; totals: SessionTotals | null } {
  const sameSession = previous !== null && report.session !== undefined && report.session === previous.id
  const before = sameSession ? previous : { tokens: 0, costUsd: 0 }
  const tokens =
    report.tokens === undefined
      ? undefined
      : report.tokensAreSessionTotal
        ? Math.max(0, report.tokens - before.tokens)
        : report.tokens
  const costUsd =
    report.costUsd === undefined
      ? undefined
      : report.costIsSessionTotal
        ? Math.max(0, report.costUsd - before.costUsd)
        : report.costUsd
  if (report.session === undefined) return { ...defined(tokens, costUsd), totals: null }
  const totals: SessionTotals = {
    id: report.session,
    tokens: report.tokensAreSessionTotal ? (report.tokens ?? before.tokens) : before.tokens + (tokens ?? 0),
    costUsd: report.costIsSessionTotal ? (report.costUsd ?? before.costUsd) : before.costUsd + (costUsd ?? 0),
  }
  return { ...defined(tokens, costUsd), totals }
}

function defined(tokens: number | undefined, costUsd: number | undefined): { tokens?: number; costUsd?: number } {
  return { ...(tokens !== undefined ? { tokens } : {}), ...(costUsd !== undefined ? { costUsd } : {}) }
}
