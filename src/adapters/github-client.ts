/**
 * The REST client every GitHub call of the action goes through: `@actions/github`'s Octokit with the
 * retry plugin (5xx, network; bounded) and the throttling plugin (rate limits; waited out only while
 * the wait is short, see `MAX_RATE_LIMIT_WAIT_SECONDS`).
 */
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import type { Logger } from '../ports/logger.js'

export interface GitHubClientOptions {
  token: string
  owner: string
  repo: string
  /** The REST API root; `GITHUB_API_URL` on a runner. */
  baseUrl: string
  logger?: Pick<Logger, 'warning' | 'debug'>
  /** Retries of a failed request (5xx, network); 403/404/422 are never retried. Default 3. */
  retries?: number
  /** Base of the retry back-off in ms (the wait is base x attempt²). Default 1000. */
  retryBaseMs?: number
  /** Retries after a primary or secondary rate limit before giving up. Default 2. */
  rateLimitRetries?: number
  /** The throttling plugin (on by default); off only for tests of other behaviour. */
  throttle?: boolean
  /** Milliseconds per second of a rate limit's `retry-after`. Default 1000 (tests shorten it). */
  rateLimitUnitMs?: number
  /** Waits before asking again for a job's log GitHub answers 404 (just ended); default JOB_LOG_WAITS_MS. */
  jobLogWaitsMs?: readonly number[]
}

/** The REST client the adapter uses (exported for the composition root's own calls). */
export type OctokitClient = ReturnType<typeof getOctokit>

/**
 * The longest a job waits for a rate limit to reset before it gives up on the call. The primary limit
 * resets on the hour: its wait can be up to 3,600 s, longer than the reusable workflow's default job
 * timeout (60 min), so a job that waited would be killed waiting, reporting nothing. GitHub's secondary
 * limits ask for about 60 s. A call given up on fails at once with a warning naming the reset; a failed
 * re-dispatch is recorded in the state, and a sweeper dispatches it again later.
 */
export const MAX_RATE_LIMIT_WAIT_SECONDS = 60

/** When a rate limit resets, as its messages say it: UTC to the second. */
export function resetTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** Creates an Octokit with the retry and throttling plugins, bounded as `options` says. */
export function createOctokit(options: GitHubClientOptions): OctokitClient {
  const rateLimitRetries = options.rateLimitRetries ?? 2
  const onLimit =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
      const where = `GitHub ${kind} rate limit on ${request.method} ${request.url}`
      if (retryAfter > MAX_RATE_LIMIT_WAIT_SECONDS) {
        const resetAt = resetTime(new Date(Date.now() + retryAfter * 1000))
        options.logger?.warning(
          `${where}: it resets at ${resetAt} (in ${retryAfter} s), later than the ${MAX_RATE_LIMIT_WAIT_SECONDS} s a job waits; giving up on this call now.`,
        )
        return false
      }
      const again = retryCount < rateLimitRetries
      options.logger?.warning(`${where}; ${again ? `retrying after ${retryAfter} s` : 'giving up'}.`)
      return again
    }
  return getOctokit(
    options.token,
    {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      userAgent: 'loop-controller',
      retry: { retries: options.retries ?? 3, retryAfterBaseValue: options.retryBaseMs ?? 1000 },
      throttle:
        options.throttle === false
          ? { enabled: false }
          : {
              onRateLimit: onLimit('primary'),
              onSecondaryRateLimit: onLimit('secondary'),
              retryAfterBaseValue: options.rateLimitUnitMs ?? 1000,
            },
    },
    retry,
    throttling,
  )
}
