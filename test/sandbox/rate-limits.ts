// GitHub's primary rate limit as the REST stand-in keeps it: a user's tokens have 5,000 calls an hour
// each (one budget per token); GITHUB_TOKEN has 1,000 an hour per repository, shared by every job's
// token ("Rate limits for the REST API").

/** One budget: calls used, the limit, and when it resets (seconds since the epoch). */
export interface Rate {
  used: number
  limit: number
  reset: number
}

const REPOSITORY_BUDGET = 'installation tokens of the repository'

export class RateLimits {
  private readonly usage = new Map<string, Rate>()

  constructor(
    private readonly userHourly: number,
    private readonly repositoryHourly: number,
    private readonly isInstallation: (token: string) => boolean,
  ) {}

  /** The budget a token's call counts against, renewed when its hour has passed. */
  of(token: string): Rate {
    const installation = this.isInstallation(token)
    const key = installation ? REPOSITORY_BUDGET : token
    let entry = this.usage.get(key)
    const nowSeconds = Math.floor(Date.now() / 1000)
    if (!entry || entry.reset <= nowSeconds) {
      entry = { used: 0, limit: installation ? this.repositoryHourly : this.userHourly, reset: nowSeconds + 3600 }
      this.usage.set(key, entry)
    }
    return entry
  }

  setRemaining(token: string, remaining: number, inSeconds: number): void {
    setRemaining(this.of(token), remaining, inSeconds)
  }

  setRepositoryRemaining(remaining: number, inSeconds: number): void {
    const nowSeconds = Math.floor(Date.now() / 1000)
    const rate = this.usage.get(REPOSITORY_BUDGET) ?? {
      used: 0,
      limit: this.repositoryHourly,
      reset: nowSeconds + 3600,
    }
    this.usage.set(REPOSITORY_BUDGET, rate)
    setRemaining(rate, remaining, inSeconds)
  }
}

function setRemaining(rate: Rate, remaining: number, inSeconds: number): void {
  rate.used = Math.max(0, rate.limit - remaining)
  rate.reset = Math.floor(Date.now() / 1000) + inSeconds
}

/** The `x-ratelimit-*` headers of every answer. */
export function rateHeaders(rate: Rate): Record<string, string> {
  return {
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(Math.max(0, rate.limit - rate.used)),
    'x-ratelimit-used': String(rate.used),
    'x-ratelimit-reset': String(rate.reset),
    'x-ratelimit-resource': 'core',
  }
}

/** `GET /rate_limit`'s body for a budget. */
export function rateLimitBody(rate: Rate) {
  const core = {
    limit: rate.limit,
    remaining: Math.max(0, rate.limit - rate.used),
    reset: rate.reset,
    used: rate.used,
  }
  return { resources: { core, search: { ...core, limit: 30, remaining: 30, used: 0 } }, rate: core }
}
