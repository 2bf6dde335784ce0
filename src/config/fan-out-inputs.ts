/**
 * Inputs that mean nothing in fan-out mode (`command: plan | verify | decide`) and are refused there,
 * rather than ignored, so a workflow that sets them learns what to use instead.
 */

/** The commands of fan-out mode's three jobs. */
const FAN_OUT_COMMANDS: readonly string[] = ['plan', 'verify', 'decide']

/**
 * `budget-minutes` lets one job run further iterations; in fan-out one iteration is three jobs, so
 * there is no such job. The loop's own time budget is the config's `budget.minutes`.
 */
export function budgetMinutesInFanOutProblem(command: string, budgetMinutes: number | undefined): string | null {
  if (budgetMinutes === undefined || !FAN_OUT_COMMANDS.includes(command)) return null
  return (
    `Input 'budget-minutes' is for the single job (one job that may run several iterations); got 'budget-minutes: ${budgetMinutes}' with 'command: ${command}' (fan-out), where one iteration is three jobs (plan, verify, decide) and no job runs a second one. ` +
    `Leave 'budget-minutes' empty (do not pass it with the reusable workflow's 'fan-out: true'); to bound the loop's total time, set 'budget: { minutes: N }' in the loop config.`
  )
}

/**
 * Fan-out's `plan` and `verify` run the project's code beside the runner's runtime token, which can
 * write the Actions cache and upload artifacts whatever the job's `permissions` (a command reads it from
 * the controller's `/proc` where there is no isolation). The `cache`, `auto` and `artifact` stores keep
 * the state there, so a forged state could reach `decide`; the `git` store's branch takes only a push,
 * which their read-only token cannot make.
 */
export function storeInFanOutProblem(command: string, store: string): string | null {
  if (store === 'git' || !FAN_OUT_COMMANDS.includes(command)) return null
  return (
    `Input 'store' must be 'git' with 'command: ${command}' (fan-out); got 'store: ${store}'. ` +
    `Fan-out's plan and verify jobs run the project's code beside the runner's runtime token, which can write the Actions cache and upload artifacts, ` +
    `so a state kept there could be forged before decide reads it; the git store's branch takes only decide's push. Use the default store, 'git'.`
  )
}
