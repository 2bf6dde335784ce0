/**
 * Every input, output and saved-state name of the action, in one place (the loop's own names, its
 * labels, branch and comment marker, live in `domain/loop-names.ts`).
 * `action.yml` and `.github/workflows/loop.yml` must use exactly these names; a unit test checks that.
 */

/** Names of the action's inputs, as written in `action.yml`. */
export const Inputs = {
  Work: 'work',
  Agent: 'agent',
  Verify: 'verify',
  Goal: 'goal',
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
  Isolation: 'isolation',
  FailOn: 'fail-on',
  Secrets: 'secrets',
  WorkingDirectory: 'working-directory',
  StaleAfterMinutes: 'stale-after-minutes',
  Dashboard: 'dashboard',
  MaxLoops: 'max-loops',
  HandOff: 'hand-off',
  Leg: 'leg',
  VerifyResult: 'verify-result',
  PersonCommand: 'person-command',
  JobTimeoutMinutes: 'job-timeout-minutes',
} as const
export type InputName = (typeof Inputs)[keyof typeof Inputs]

/** Names of the action's outputs. */
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
  Matrix: 'matrix',
  Verify: 'verify',
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
  store: 'git',
  stateBranch: 'loop-state',
  command: 'run',
  dispatch: true,
  allowUntrusted: false,
  isolation: 'auto',
  failOn: 'blocked,capped,aborted',
  workingDirectory: '.',
  staleAfterMinutes: 30,
  dashboard: false,
} as const

export { Labels, loopBranch, stickyCommentMarker } from './domain/loop-names.js'

/** The login GitHub gives the `GITHUB_TOKEN` when it writes comments. */
export const GITHUB_ACTIONS_BOT_LOGIN = 'github-actions[bot]'
