/**
 * How the project's commands (the agent, checks, fixes, install, tasks) are kept from the controller's
 * own processes, whose environment holds the job's tokens: a command of the same user could otherwise
 * read `/proc/<controller>/environ`. Pure: the names, and what a person is told.
 */

/** What a person may ask for: the strongest available (`auto`), a PID namespace or else refuse, or none. */
export const ISOLATION_MODES = ['auto', 'pid-namespace', 'none'] as const
export type IsolationMode = (typeof ISOLATION_MODES)[number]

/** What is in force for this run. */
export interface IsolationReport {
  level: 'pid-namespace' | 'none'
  /** How it was achieved, or why there is none, in a sentence for the summary. */
  how: string
  /**
   * Whether a command inside may build a sandbox of its own (an unprivileged user namespace, which is
   * what Codex's bubblewrap needs). Root without capabilities cannot map its uid into one, so under the
   * strongest isolation as root the agent CLI's own sandbox cannot start and the controller's is the wall.
   */
  nestedSandbox: boolean
}

/** The line a summary or the CLI prints about it; loud when there is none. */
export function isolationLine(report: IsolationReport): string {
  return report.level === 'pid-namespace'
    ? `Isolation: the agent and the checks run in their own PID namespace with their own /proc and no capabilities (${report.how}); they cannot see the controller's processes or read its environment.`
    : `⚠️ No isolation: the agent and the checks run as the controller's user and can read its environment (the job's tokens) through /proc (${report.how}). Use a runner with sudo or user namespaces, or run the agent in a job that holds no write token.`
}
