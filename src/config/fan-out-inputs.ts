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
