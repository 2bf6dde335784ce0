/**
 * The dashboard issue a loop's summary and status comment link to (`dashboard: true`): the one the
 * controller keeps, found as the end-of-job rewrite finds it. None before the first rewrite opened it,
 * and none when GitHub cannot list it: a link is not worth failing the report for.
 */
import { messageOf } from '../config/errors.js'
import type { DashboardIssues } from '../ports/dashboard.js'
import type { Logger } from '../ports/logger.js'

export async function dashboardLink(
  issues: DashboardIssues | undefined,
  logger: Pick<Logger, 'info'>,
): Promise<{ number: number; url: string } | undefined> {
  if (!issues) return undefined
  try {
    const [kept] = await issues.list()
    return kept ? { number: kept.number, url: kept.url } : undefined
  } catch (error) {
    logger.info(`The report does not link the dashboard: ${messageOf(error)}`)
    return undefined
  }
}

/** `dashboardLink` asked at most once, when first needed: a release tells up to ten queued loops, each linking it. */
export function dashboardLinkOnce(
  issues: DashboardIssues | undefined,
  logger: Pick<Logger, 'info'>,
): () => Promise<{ number: number; url: string } | undefined> {
  let asked: Promise<{ number: number; url: string } | undefined> | undefined
  return () => {
    asked ??= dashboardLink(issues, logger)
    return asked
  }
}
