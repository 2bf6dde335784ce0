/** One git wrapper: non-interactive, identity per command, `try*` methods that return a boolean. */

export interface GitResult {
  exitCode: number
  stdout: string
  stderr: string
}

export interface Identity {
  name: string
  email: string
}

export interface Git {
  readonly cwd: string
  exec(args: readonly string[], options?: { allowFailure?: boolean; env?: Record<string, string> }): Promise<GitResult>
  isRepository(): Promise<boolean>
  head(): Promise<string | null>
  currentBranch(): Promise<string | null>
  /** Paths changed in the work tree since `ref` (committed or not), relative to the repository root. */
  changedPaths(since: string | null): Promise<string[]>
  diffStat(since: string | null): Promise<string>
  diff(since: string | null, paths?: readonly string[]): Promise<string>
  /** Stages everything but `exclude` and commits; returns the new commit or null when nothing changed. */
  commitAll(message: string, identity: Identity, exclude?: readonly string[]): Promise<string | null>
}
