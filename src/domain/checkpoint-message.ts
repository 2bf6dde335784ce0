/**
 * The messages of the loop's checkpoint commits: the iteration's (the agent's work) and each fix the
 * controller ran, apart, so a reviewer reads the agent's work alone. Every one carries the loop's
 * trailers, which is how a rerun after a crash finds the commits of an iteration it must fold back. Pure.
 */

export interface CommitTrailers {
  prefix: string
  loopId: string
  iteration: number
}

/** Longest subject line before the command is cut (git's one-line views stay readable). */
export const MAX_SUBJECT_CHARS = 100

/** The iteration's checkpoint: `loop(<id>): iteration <n> <stage> [<strategy>]`, the verdicts, the trailers. */
export function iterationCommitMessage(
  trailers: CommitTrailers,
  stage: string,
  strategy: string | null,
  verdicts: string,
): string {
  const subject = `${trailers.prefix}(${trailers.loopId}): iteration ${trailers.iteration} ${stage}${strategy ? ` [${strategy}]` : ''}`
  return `${subject}\n\n${verdicts}\n\n${trailerLines(trailers)}`
}

/**
 * A fix the controller ran: `loop(<id>): <check>: <fix command>`, the command on one line and cut at
 * `MAX_SUBJECT_CHARS` (the body keeps it whole).
 */
export function fixCommitMessage(trailers: CommitTrailers, check: string, command: string | readonly string[]): string {
  const whole = (typeof command === 'string' ? command : command.join(' ')).trim()
  const oneLine = whole.replace(/\s+/g, ' ')
  const head = `${trailers.prefix}(${trailers.loopId}): ${check}: `
  const room = Math.max(12, MAX_SUBJECT_CHARS - head.length)
  const subject = head + (oneLine.length > room ? `${oneLine.slice(0, room - 1).trimEnd()}…` : oneLine)
  const body = `The check \`${check}\` failed; the controller ran its fix command (no agent call):\n\n    ${whole.split('\n').join('\n    ')}`
  return `${subject}\n\n${body}\n\n${trailerLines(trailers)}\nLoop-Fix: ${check}`
}

function trailerLines(trailers: CommitTrailers): string {
  return `Loop-Id: ${trailers.loopId}\nLoop-Iteration: ${trailers.iteration}`
}
