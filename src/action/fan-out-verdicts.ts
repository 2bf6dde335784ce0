/**
 * Decide's reading of the verify legs' verdict artifacts, as download-artifact left them in the hand-off
 * folder: one folder per artifact, each leg's latest attempt, only the config's legs.
 */
import { createHash } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { nodeWorkspace } from '../adapters/node-workspace.js'
import { messageOf } from '../config/errors.js'
import { FanOutError, parseHandOff, type VerdictFile, verdictArtifact, verdictFileSchema } from '../domain/fan-out.js'
import {
  failedLegReason,
  type LegErrorFile,
  latestVerdictArtifacts,
  legErrorFileSchema,
} from '../domain/fan-out-attempts.js'

/** The most verdict files decide reads (GitHub's matrix limit; legsOf refuses more legs). */
const MAX_VERDICTS = 256

/**
 * Every leg's verdict, from its own artifact's folder (`<dir>/<name>/<artifact>.json`), validated, of the
 * leg's latest attempt, with the sha256 of its file (which the leg's own job log must name: see
 * `verdictsByLegJobs`). A verdict is taken only from the artifact of the leg it names; an artifact of no
 * leg of this config, whatever its number, is left unread (named in a warning), so junk uploads cannot
 * stall decide. A file that is not valid, or the artifact of a leg whose controller failed (`.failed`:
 * whatever it holds is never a pass), is its leg's `no verdict` with the reason (keyed by the leg's
 * artifact), not the end of the job: a broken upload must not stall the loop.
 */
export async function readVerdicts(
  dir: string,
  legs: {
    /** This job's run attempt: no leg's artifact can come from a later one. */
    attempt: number | undefined
    /** The artifact names of the config's legs: the only ones read. */
    artifacts: ReadonlySet<string>
  },
): Promise<{
  verdicts: VerdictFile[]
  unreadable: Map<string, string>
  foreign: string[]
  /** The run attempt each verdict taken came from, by the leg's artifact name. */
  attempts: Map<string, number>
  /** The sha256 (hex) of each verdict file taken, by the leg's artifact name. */
  digests: Map<string, string>
}> {
  const verdicts: VerdictFile[] = []
  const unreadable = new Map<string, string>()
  const attempts = new Map<string, number>()
  const digests = new Map<string, string>()
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.startsWith('loop-verdict-')).sort()
  } catch {
    return { verdicts, unreadable, foreign: [], attempts, digests }
  }
  const parsed = latestVerdictArtifacts(names, legs.attempt)
  const latest = parsed.latest.filter(({ artifact }) => legs.artifacts.has(artifact))
  const ofNoLeg = parsed.latest.filter(({ artifact }) => !legs.artifacts.has(artifact)).map(({ name }) => name)
  const foreign = [...parsed.foreign, ...ofNoLeg]
  for (const { name, artifact, failed, attempt: from } of latest.slice(0, MAX_VERDICTS)) {
    const file = `${name}/${artifact}.json`
    const text = (await nodeWorkspace.readText(join(dir, file), 4 * 1024 * 1024)) ?? ''
    if (failed) {
      unreadable.set(artifact, failedLegReason(legErrorOf(text, artifact)))
      continue
    }
    try {
      const verdict = parseHandOff(verdictFileSchema, text, `The verdict file ${file}`)
      if (verdictArtifact(verdict.leg) !== artifact) {
        throw new FanOutError(`The verdict file ${file} speaks for leg ${verdict.leg}, not for its own artifact's`)
      }
      verdicts.push(verdict)
      attempts.set(artifact, from)
      digests.set(artifact, createHash('sha256').update(text, 'utf8').digest('hex'))
    } catch (error) {
      unreadable.set(artifact, `its verdict file is not valid (${messageOf(error)})`)
    }
  }
  return { verdicts, unreadable, foreign, attempts, digests }
}

/** The error a failed leg handed on, when it is a valid error file of that very leg. */
function legErrorOf(text: string, artifact: string): LegErrorFile | null {
  try {
    const error = parseHandOff(legErrorFileSchema, text, 'The leg error file')
    return verdictArtifact(error.leg) === artifact ? error : null
  } catch {
    return null
  }
}
