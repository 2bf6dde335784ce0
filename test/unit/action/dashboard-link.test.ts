// The dashboard a loop's report links to: the controller's issue when there is one; none before the
// first rewrite opened it, none without `dashboard: true`, and none (said in the log) when GitHub fails.
import { describe, expect, it } from 'vitest'
import { dashboardLink } from '../../../src/action/dashboard-link.js'
import type { DashboardIssue, DashboardIssues } from '../../../src/ports/dashboard.js'

function issuesListing(list: () => Promise<DashboardIssue[]>): DashboardIssues {
  const unused = async (): Promise<never> => {
    throw new Error('not used by the link')
  }
  return { list, create: unused, pin: unused, isPinned: unused, update: unused, get: unused, closeDuplicate: unused }
}

describe('dashboardLink', () => {
  const kept = { number: 3, nodeId: 'I_3', body: '', url: 'https://github.com/o/r/issues/3' }
  const table: [string, DashboardIssues | undefined, { number: number; url: string } | undefined, string[]][] = [
    ['the kept dashboard', issuesListing(async () => [kept]), { number: 3, url: kept.url }, []],
    ['none opened yet', issuesListing(async () => []), undefined, []],
    ['no dashboard input', undefined, undefined, []],
    [
      'GitHub failing',
      issuesListing(async () => {
        throw new Error('GitHub refused to list the dashboard issues: 502')
      }),
      undefined,
      ['The report does not link the dashboard: GitHub refused to list the dashboard issues: 502'],
    ],
  ]
  it.each(table)('%s', async (_, issues, expected, said) => {
    const lines: string[] = []
    expect(await dashboardLink(issues, { info: (line) => void lines.push(line) })).toEqual(expected)
    expect(lines).toEqual(said)
  })
})
