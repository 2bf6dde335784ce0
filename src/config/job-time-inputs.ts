/**
 * `budget-minutes` against the time a job has: GitHub ends a job on a GitHub-hosted runner after 6
 * hours, and the workflow's `timeout-minutes` (the reusable workflow's default is 60) cancels it
 * sooner. A budget past either lets a job start an iteration it cannot finish, killed with no report
 * and no re-dispatch, so such a budget is refused before anything runs.
 */

/** GitHub's 6-hour job limit on its hosted runners (360 minutes), less 10 for set-up and the report. */
export const MAX_BUDGET_MINUTES = 350

/**
 * What a job needs besides its iterations (checkout, restoring the trail, the report, the re-dispatch):
 * a budget must leave this much of the job's timeout.
 */
export const JOB_TIMEOUT_MARGIN_MINUTES = 5

/** The problem with `budget-minutes` for a job that times out after `jobTimeoutMinutes`, or null. */
export function budgetBeyondJobTimeoutProblem(
  budgetMinutes: number | undefined,
  jobTimeoutMinutes: number | undefined,
): string | null {
  if (budgetMinutes === undefined || jobTimeoutMinutes === undefined) return null
  if (budgetMinutes + JOB_TIMEOUT_MARGIN_MINUTES <= jobTimeoutMinutes) return null
  return (
    `Input 'budget-minutes' must leave ${JOB_TIMEOUT_MARGIN_MINUTES} minutes of the job's timeout for set-up and the report; ` +
    `got 'budget-minutes: ${budgetMinutes}' with 'job-timeout-minutes: ${jobTimeoutMinutes}' (the job's timeout-minutes). ` +
    `Lower 'budget-minutes' to ${Math.max(0, jobTimeoutMinutes - JOB_TIMEOUT_MARGIN_MINUTES)} or less, or raise the job's timeout-minutes.`
  )
}
