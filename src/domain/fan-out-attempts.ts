/**
 * Fan-out across a run's attempts. "Re-run all jobs" and "Re-run failed jobs" make new attempts of the
 * same run, and upload-artifact refuses a name the run holds already, so each hand-off artifact names
 * the attempt that made it (`loop-plan.attempt-<n>`, `<leg artifact>.attempt-<n>`), and a verify leg
 * whose controller failed says so in its name (`.failed`): the runner names it, not the leg's code.
 * Decide takes each leg's latest attempt; a re-run of failed jobs keeps the earlier attempt's legs that
 * passed, and their artifacts, in the run.
 */
import { z } from 'zod'

/** The most attempts GitHub makes of one run (a run is re-run at most 50 times). */
const MAX_ATTEMPT = 51

/** A verdict artifact's name, read: the leg's artifact (`loop-verdict-<leg>`), the attempt, and whether its controller failed. */
export interface VerdictArtifactName {
  name: string
  artifact: string
  attempt: number
  failed: boolean
}

/** The artifact name the verify job's upload step gives a leg's verdict (the workflow's expression, as a function). */
export function verdictArtifactName(artifact: string, attempt: number, failed: boolean): string {
  return `${artifact}.attempt-${attempt}${failed ? '.failed' : ''}`
}

/** A verdict artifact's name, or null when it is not one the workflow gives. */
export function parseVerdictArtifactName(name: string): VerdictArtifactName | null {
  const match = /^(loop-verdict-[A-Za-z0-9._-]+)\.attempt-([1-9][0-9]{0,2})(\.failed)?$/.exec(name)
  if (!match) return null
  const attempt = Number(match[2])
  if (attempt > MAX_ATTEMPT) return null
  return { name, artifact: match[1] as string, attempt, failed: match[3] !== undefined }
}

/**
 * Of every verdict artifact in the run, each leg's latest attempt's (one per leg artifact), and the names
 * that are no verdict artifact of the workflow's. The latest attempt speaks for the leg: an earlier
 * attempt's verdict is of a leg that ran again since. An attempt after decide's own (`currentAttempt`,
 * when known) is none the workflow made yet: something else uploaded it, and it is foreign.
 */
export function latestVerdictArtifacts(
  names: readonly string[],
  currentAttempt?: number,
): {
  latest: VerdictArtifactName[]
  foreign: string[]
} {
  const byArtifact = new Map<string, VerdictArtifactName>()
  const foreign: string[] = []
  for (const name of names) {
    const parsed = parseVerdictArtifactName(name)
    if (!parsed || (currentAttempt !== undefined && parsed.attempt > currentAttempt)) {
      foreign.push(name)
      continue
    }
    const known = byArtifact.get(parsed.artifact)
    // Two names of one attempt (passed and failed) cannot both come from the workflow: the failed one counts.
    if (!known || parsed.attempt > known.attempt || (parsed.attempt === known.attempt && parsed.failed)) {
      byArtifact.set(parsed.artifact, parsed)
    }
  }
  const latest = [...byArtifact.values()].sort((a, b) =>
    a.artifact < b.artifact ? -1 : a.artifact > b.artifact ? 1 : 0,
  )
  return { latest, foreign }
}

/** `<leg artifact>.json` in a failed leg's artifact: the error its controller met, for decide to name. */
export const legErrorFileSchema = z.strictObject({
  version: z.literal(1),
  loopId: z.string(),
  leg: z.string(),
  error: z.string().max(4000),
})
export type LegErrorFile = z.infer<typeof legErrorFileSchema>

/** Why a leg whose controller failed has no verdict: its own error when it handed one on. */
export function failedLegReason(error: LegErrorFile | null): string {
  return error
    ? `its verify job failed: ${error.error}`
    : 'its verify job failed and handed on no error (its verdict, if any, is not taken)'
}
