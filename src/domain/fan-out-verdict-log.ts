/**
 * A verify leg's verdict, bound to the leg's own job through its log. Any job of the run that can reach
 * the runner's runtime token (a check reads it from its controller's /proc where there is no isolation,
 * or rewrites the upload step's files on disk) can delete another leg's verdict artifact and upload one
 * of its own under that name. It cannot write into another job's log, which GitHub keeps per job: so the
 * leg's controller prints the sha256 of the verdict file it hands on in its own log, after its check's
 * processes have ended, and decide takes a verdict only when the file's sha256 is the last one that log
 * names for that leg. A check can still print such a line in its own leg's log: that lets a leg lie only
 * about itself, which it can already do by gaming its own check.
 */

/** A leg's name may hold spaces (`test shard 1/4`): it is all between `verdict ` and the last ` sha256:`. */
const LINE = /^loop-controller: verdict (.+) sha256:([0-9a-f]{64})$/
/** GitHub's job logs begin each line with its time (`2026-11-27T11:38:10.1234567Z `); a file may start with a BOM. */
const TIMESTAMP = /^\uFEFF?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z /

/** The line a leg's controller prints for the verdict file it hands on (its sha256, hex). */
export function verdictDigestLine(leg: string, sha256: string): string {
  return `loop-controller: verdict ${leg} sha256:${sha256}`
}

/** The sha256 of the last verdict line for `leg` in a job's log, or null when the log names none. */
export function lastVerdictDigest(log: string, leg: string): string | null {
  let digest: string | null = null
  for (const raw of log.split('\n')) {
    const match = LINE.exec(raw.replace(/\r$/, '').replace(TIMESTAMP, ''))
    if (match && match[1] === leg) digest = match[2] ?? null
  }
  return digest
}
