/**
 * What a loop admitted from the line says once its job starts (its sticky comment): it no longer waits,
 * and which run runs its iteration, until that iteration's report replaces it. Pure.
 */
import { code, link } from './escape.js'

export interface Admitted {
  loopId: string
  /** The iteration its job runs now. */
  iteration: number
  /** The run of the job that runs it, and its address. */
  runId?: string
  runUrl?: string
}

export function renderAdmitted(input: Admitted): string {
  const runName = input.runId ? `run ${input.runId}` : 'this job'
  return [
    `## ▶️ loop-controller: ${code(input.loopId)} started`,
    '',
    '**Out of the line:** it is admitted and no longer waits; its slot is its own until it ends.',
    '',
    `**Now:** iteration ${input.iteration} starts in ${link(runName, input.runUrl)}. This comment says how it went when the iteration ends.`,
    '',
  ].join('\n')
}
