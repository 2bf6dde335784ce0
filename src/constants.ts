/**
 * Every input, output and saved-state name of the action, in one place (STYLE.md point 3).
 * `action.yml` and `.github/workflows/loop.yml` must use exactly these names; a unit test checks that.
 */

/** Names of the action's inputs, as written in `action.yml`. */
export const Inputs = {
  Work: 'work',
  Verify: 'verify',
  Config: 'config',
  LoopId: 'loop-id',
  MaxIterations: 'max-iterations',
  CapReason: 'cap-reason',
  Store: 'store',
  StateBranch: 'state-branch',
  GitHubToken: 'github-token',
  PushToken: 'push-token',
  Iteration: 'iteration',
  Command: 'command',
  Gate: 'gate',
  Task: 'task',
  Reason: 'reason',
  Dispatch: 'dispatch',
  BudgetMinutes: 'budget-minutes',
  AllowUntrusted: 'allow-untrusted',
  Secrets: 'secrets',
  WorkingDirectory: 'working-directory',
} as const
export type InputName = (typeof Inputs)[keyof typeof Inputs]

/** Names of the action's outputs (DESIGN.md section 8). */
export const Outputs = {
  LoopId: 'loop-id',
  Iteration: 'iteration',
  Stage: 'stage',
  Verdict: 'verdict',
  Status: 'status',
  Pattern: 'pattern',
  NextAction: 'next-action',
  PrNumber: 'pr-number',
  StatePath: 'state-path',
} as const
export type OutputName = (typeof Outputs)[keyof typeof Outputs]

/** Names saved with `core.saveState` for a later phase of the same job. */
export const SavedState = {
  LoopId: 'loop-id',
  Iteration: 'iteration',
  StateVersion: 'state-version',
} as const

/** Defaults that `action.yml` documents; the parser applies the same ones when an input is empty. */
export const InputDefaults = {
  config: '.github/loop.yml',
  store: 'auto',
  stateBranch: 'loop-state',
  command: 'run',
  dispatch: true,
  allowUntrusted: false,
  workingDirectory: '.',
} as const

/** Labels people put on an issue or pull request (DESIGN.md section 5). */
export const Labels = {
  /** Starts a loop from an issue (used by the example workflow). */
  Start: 'loop',
  Stop: 'loop/stop',
  ApprovedPrefix: 'loop/approved:',
} as const

/** The hidden marker that finds a loop's sticky comment. */
export function stickyCommentMarker(loopId: string): string {
  return `<!-- loop-controller:${loopId} -->`
}

/** The branch a loop commits its work to (DESIGN.md section 8). */
export function loopBranch(loopId: string): string {
  return `loop/${loopId}`
}

/** The login GitHub gives the `GITHUB_TOKEN` when it writes comments. */
export const GITHUB_ACTIONS_BOT_LOGIN = 'github-actions[bot]'
