/**
 * What a queued loop tells people (its sticky comment and the job summary): why it waits, its place in
 * line, and what happens next. Rendered from the slots record's view of the loop (`QueueWait`). Pure.
 */

import { Labels } from '../loop-names.js'
import type { QueueWait } from '../slots.js'
import { code, link, markdownText } from './escape.js'
import type { Refusal } from './refusal.js'
import { formatTime } from './view.js'

/**
 * How many of the loops in line a release tells their new place (each costs a state read and a comment
 * update); one further back is told once a release finds it among them (the dashboard always shows it).
 */
export const TOLD_IN_LINE = 10

/** The one line that says why the loop waits, kept as the state's `statusReason`. */
export function queuedReason(wait: QueueWait, issueOf: (loopId: string) => string = (id) => id): string {
  const { dependencies } = wait
  const parts: string[] = []
  if (dependencies.endedShort.length > 0) {
    const ended = dependencies.endedShort.map((dep) => `${issueOf(dep.loopId)} ended ${dep.status.toUpperCase()}`)
    parts.push(`a dependency ended short of COMPLETE (${ended.join(', ')})`)
  }
  if (dependencies.pending.length > 0) {
    const noLoop = dependencies.noLoop ?? []
    // Said in the past: a dependency's start does not rewrite it (only its end does).
    const none = noLoop.length > 0 ? ` (${listed(noLoop, issueOf)} had no loop when this was written)` : ''
    parts.push(`it waits for ${dependencies.pending.map(issueOf).join(', ')} to be COMPLETE${none}`)
  }
  if (wait.slotOnly && wait.limit === null) {
    // No limit holds it and nothing it depends on is pending: only the queue's next change is awaited.
    parts.push('its dependencies are COMPLETE; it starts at the next change of the queue')
  } else if (wait.slotOnly) {
    const inUse = wait.limit === 1 ? 'its one slot is in use' : `all ${wait.limit} slots are in use`
    parts.push(`${inUse} (max-loops: ${wait.limit})`)
  }
  return parts.join('; ')
}

/** What happens next for the queued loop, said plainly: a wait that cannot end by itself says what it needs. */
export function queuedNext(wait: QueueWait, issueOf: (loopId: string) => string = (id) => id): string {
  const { dependencies } = wait
  const aborted = dependencies.endedShort.filter((dep) => dep.status === 'aborted').map((dep) => dep.loopId)
  if (aborted.length > 0) {
    const names = listed(aborted, issueOf)
    return `It cannot start: ${names} ${aborted.length === 1 ? 'was' : 'were'} ABORTED and will never be COMPLETE. Drop this loop with \`/loop abort\`, and open a new issue whose \`depends-on:\` line leaves ${names} out.`
  }
  if (dependencies.endedShort.length > 0) {
    const names = listed(
      dependencies.endedShort.map((dep) => dep.loopId),
      issueOf,
    )
    return `It stays queued: ${names} must be resumed and reach COMPLETE (comment \`/loop resume\` there once fixed), then this loop starts by itself; or drop this loop with \`/loop abort\`.`
  }
  const noLoop = dependencies.noLoop ?? []
  if (noLoop.length > 0) {
    const names = listed(noLoop, issueOf)
    // No state may also be a loop whose first iteration runs now (its state is saved when it ends).
    // Its start is not told here (only a dependency's end rewrites this), so the step says how to tell.
    const [still, after] = noLoop.length === 1 ? ['it still has none', 'it is'] : ['one still has none', 'all are']
    return `${names} had no loop when this was written: if ${still} (no status comment of loop-controller on its issue), label it \`${Labels.Start}\` (or start it); this loop starts by itself after ${after} COMPLETE. Only an issue's loop counts, not a pull request's. To drop this loop, comment \`/loop abort\`.`
  }
  if (dependencies.pending.length > 0) {
    return 'It starts by itself once every dependency is COMPLETE and a slot is free; nothing to do. To drop it, comment `/loop abort`.'
  }
  const waitingAhead = waitingOnDependenciesAhead(wait)
  if (waitingAhead > 0 && wait.ahead !== undefined) {
    const first =
      wait.ahead === 0
        ? 'no loop ahead of it can start first'
        : wait.ahead === 1
          ? 'the one ahead of it that can start has started'
          : `the ${wait.ahead} ahead of it that can start have started`
    return `It starts by itself when a running loop ends and ${first} (${waitingAhead} ahead ${waitingAhead === 1 ? 'waits' : 'wait'} for ${waitingAhead === 1 ? 'its' : 'their'} dependencies and ${waitingAhead === 1 ? 'is' : 'are'} passed over); nothing to do. To drop it, comment \`/loop abort\`.`
  }
  return 'It starts by itself when a running loop ends and it is first in line; nothing to do. To drop it, comment `/loop abort`.'
}

/** Loops ahead in line still waiting for their dependencies (a freed slot passes them over); 0 when unknown. */
function waitingOnDependenciesAhead(wait: QueueWait): number {
  return wait.ahead === undefined ? 0 : Math.max(0, wait.position - 1 - wait.ahead)
}

/** The place in line, said among the loops that can start where some ahead wait for their dependencies. */
export function placeInLine(wait: QueueWait): string {
  // No count of the whole line, nor of slots in use: loops join behind and take free slots without
  // rewriting this comment, and a count would go stale (the dashboard says them as they are).
  const place = ordinal(wait.position)
  const waitingAhead = waitingOnDependenciesAhead(wait)
  if (waitingAhead === 0 || wait.ahead === undefined) return place
  const passed = `${waitingAhead} ahead ${waitingAhead === 1 ? 'waits' : 'wait'} for ${waitingAhead === 1 ? 'its' : 'their'} dependencies`
  return wait.ahead === 0
    ? `${place}, first of the loops that can start (${passed})`
    : `${place}, ${ordinal(wait.ahead + 1)} of the loops that can start (${passed})`
}

function ordinal(n: number): string {
  if (n % 100 >= 11 && n % 100 <= 13) return `${n}th`
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`
}

function listed(loopIds: readonly string[], issueOf: (loopId: string) => string): string {
  const names = loopIds.map(issueOf)
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/**
 * The run that writes a queued loop's comment, and when (its words may be stale by the time they are read:
 * a dependency may have started since). `releasedBy`: the loop whose job it is, when that is not the
 * queued loop's own (it ended, and told the line their new places).
 */
export interface QueuedWriter {
  runId: string
  runUrl: string
  /** ISO time. */
  at: string
  releasedBy?: string
}

/** The status comment and job summary of a queued loop. */
export function renderQueued(
  input: { loopId: string; wait: QueueWait; writer?: QueuedWriter; dashboard?: { number: number; url: string } },
  issueOf: (loopId: string) => string = (id) => id,
): string {
  const { loopId, wait, writer, dashboard } = input
  const lines = [
    `## ⏳ loop-controller: ${code(loopId)} is queued`,
    '',
    // Built from issue numbers and sanitised loop ids only: no untrusted text to escape, and `#12` stays a link.
    `**Why:** ${queuedReason(wait, issueOf)}.`,
    '',
    `**Place in line:** ${placeInLine(wait)}.${
      wait.position > TOLD_IN_LINE
        ? ` This comment is updated once it is among the first ${TOLD_IN_LINE} in line; the loops ahead leave the line as they start.`
        : ''
    }${dashboard ? ` The line as it is now, with the slots in use: ${link(`dashboard #${dashboard.number}`, dashboard.url)}.` : ''}`,
    '',
    `**Next:** ${queuedNext(wait, issueOf)}`,
  ]
  if (writer) lines.push('', writtenBy(writer))
  return `${lines.join('\n')}\n`
}

function writtenBy(writer: QueuedWriter): string {
  const asOf = `As of ${formatTime(writer.at)}`
  if (writer.releasedBy === undefined) return `${asOf} · [this job](${writer.runUrl})`
  return `${asOf} · updated by [run ${writer.runId}](${writer.runUrl}), when ${code(writer.releasedBy)} ended`
}

/**
 * A new loop saved `queued` whose job could not take its place in line (queue.json was not changed):
 * no loop ending would start it, so the person who started it is told, with the error.
 */
export function notInLineRefusal(loopId: string, error: string, asked: 'start' | 'resume' = 'start'): Refusal {
  const again =
    asked === 'start'
      ? `Start it again once the cause is fixed (remove the \`${Labels.Start}\` label and add it back): it takes its place in line then.`
      : 'It was resumed and is saved queued, asking for a slot. Resume it again once the cause is fixed (`/loop resume`): it asks for its slot then.'
  return {
    loopId,
    title: `loop-controller could not put the loop ${code(loopId)} in line: queue.json was not changed.`,
    reason: markdownText(error, 600),
    whatToDo: `${again} Otherwise a scheduled sweeper (\`command: sweep\`) marks it BLOCKED after \`stale-after-minutes\`, and \`/loop resume\` queues it.`,
  }
}
