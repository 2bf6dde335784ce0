/**
 * The dashboard issue on GitHub (`adapters/dashboard-issue.ts`): found by its label among the issues
 * the controller opened, created, pinned, rewritten, and closed when a race made two.
 */

export interface DashboardIssue {
  number: number
  /** GraphQL's global id, which `pinIssue` takes. */
  nodeId: string
  body: string
  url: string
}

export interface DashboardIssues {
  /**
   * The open issues with the dashboard label that the controller itself opened and whose body opens with
   * the dashboard's marker, lowest number first.
   */
  list(): Promise<DashboardIssue[]>
  /** Opens the dashboard issue with its label. */
  create(title: string, body: string): Promise<DashboardIssue>
  /** Pins the issue to the repository (GraphQL `pinIssue`). */
  pin(issue: DashboardIssue): Promise<void>
  /** Whether the issue is pinned now (GraphQL `Issue.isPinned`: REST does not say). */
  isPinned(issue: DashboardIssue): Promise<boolean>
  update(number: number, body: string): Promise<void>
  /** The issue as it is now (its body, for the notes other jobs wrote since it was listed). */
  get(number: number): Promise<DashboardIssue>
  /** Unpins and closes a duplicate, saying which issue is kept. */
  closeDuplicate(duplicate: DashboardIssue, kept: number): Promise<void>
}
