// Faults a test injects into the REST stand-in: 5xx answers, GitHub's secondary rate limit, latency.
import { DOCS, type Reply } from './rest-handlers.js'

/**
 * A fault to inject. `match` is `METHOD /path` where `*` matches any characters (so
 * `POST /repos/*\/dispatches` matches every dispatch). The first matching rule with `times` left applies.
 */
export interface FaultRule {
  match: string
  /** Answer with this status (e.g. 502) instead of serving the request. */
  status?: number
  /** Answer as GitHub's secondary rate limit: this status (403 or 429) with `retry-after`. */
  secondaryRateLimit?: { status?: 403 | 429; retryAfterSeconds: number }
  /** Delay before answering (or before serving, when no status is set). */
  latencyMs?: number
  /** How many requests the rule applies to; unlimited when omitted. */
  times?: number
  headers?: Record<string, string>
  body?: unknown
}

const globToRegex = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )

/** The injected rules, first match with `times` left applies. */
export class FaultRules {
  private readonly rules: { rule: FaultRule; left: number; regex: RegExp }[] = []

  /** Adds a rule; returns a function that removes it. */
  add(rule: FaultRule): () => void {
    const entry = { rule, left: rule.times ?? Number.POSITIVE_INFINITY, regex: globToRegex(rule.match) }
    this.rules.push(entry)
    return () => {
      entry.left = 0
    }
  }

  /** The rule for `METHOD /path`, counting it as used; undefined when none applies. */
  take(signature: string): FaultRule | undefined {
    const found = this.rules.find((entry) => entry.left > 0 && entry.regex.test(signature))
    if (!found) return undefined
    found.left -= 1
    return found.rule
  }
}

/** What a rule answers instead of the stand-in, or undefined when it only delays. */
export function faultReply(rule: FaultRule): Reply | undefined {
  const limited = rule.secondaryRateLimit
  if (limited) {
    return {
      status: limited.status ?? 403,
      headers: { 'retry-after': String(limited.retryAfterSeconds), ...rule.headers },
      body: rule.body ?? {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
        documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
        status: String(limited.status ?? 403),
      },
    }
  }
  if (rule.status) {
    return {
      status: rule.status,
      headers: rule.headers ?? {},
      body: rule.body ?? { message: 'Server Error', status: String(rule.status) },
    }
  }
  return undefined
}
