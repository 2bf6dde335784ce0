/**
 * What a loop whose `depends-on` cannot be honoured tells the person who started it: a line that could
 * not be read, a loop config whose list names the loop's own issue, or a wait that would close a cycle
 * and so never end. Each says why and what to do, in the loop's refusal comment. Pure.
 */
import { nameOfCycle, nameOfLoop } from '../depends-on.js'
import { Labels } from '../loop-names.js'
import { markdownText } from './escape.js'
import type { Refusal } from './refusal.js'

const RESTART = `then start the loop again (remove the \`${Labels.Start}\` label and add it back)`

/**
 * Where a refused `depends-on` went wrong: the issue body's line could not be read (`issue`), the loop
 * config's list names the loop's own issue (`config`), or a number names no issue (`target`: none such,
 * or a pull request).
 */
export type DependsOnFault = 'issue' | 'config' | 'target'

/** The start is refused for its `depends-on` (`message` may quote the issue body, anyone's text). */
export function dependsOnRefusal(loopId: string, message: string, source: DependsOnFault): Refusal {
  if (source === 'target') {
    return {
      loopId,
      title: `loop-controller did not start the loop \`${loopId}\`: its \`depends-on\` names a number that is no issue to wait for.`,
      reason: `${markdownText(message, 600)}. No loop of such a number could ever be COMPLETE, so this loop would wait forever.`,
      whatToDo: `Correct the number in the issue's \`depends-on:\` line (or in the loop config's \`depends-on\`), or delete it, ${RESTART}.`,
    }
  }
  if (source === 'config') {
    return {
      loopId,
      title: `loop-controller did not start the loop \`${loopId}\`: the loop config's \`depends-on\` names this loop's own issue.`,
      reason: markdownText(message, 600),
      whatToDo: `The loop config's \`depends-on\` is for a config used by a single loop (a workflow whose \`config:\` input names that loop's own file). For loops started from issues, remove it from the config and write each issue's dependencies in its body, on a line such as \`depends-on: #12, #15\`; ${RESTART}.`,
    }
  }
  return {
    loopId,
    title: `loop-controller did not start the loop \`${loopId}\`: the issue's \`depends-on:\` line could not be read.`,
    // It quotes the issue body, anyone's text: escaped, so it can mention nobody and inject no HTML.
    reason: markdownText(message, 600),
    whatToDo: `Write the line with issue numbers of this repository only, e.g. \`depends-on: #12, #15\` or \`depends-on: [#12, #15]\` (at most ten), ${RESTART}.`,
  }
}

/** The loop would wait in a cycle (`cycle`: loop ids from this loop round to it again). */
export function cycleRefusal(loopId: string, cycle: readonly string[]): Refusal {
  const links = cycle
    .slice(0, -1)
    .map((from, index) =>
      from === cycle[index + 1]
        ? `${nameOfLoop(from)} waits for itself`
        : `${nameOfLoop(from)} waits for ${nameOfLoop(cycle[index + 1] ?? '')}`,
    )
  const next = cycle[1] ?? loopId
  const breakIt =
    next === loopId
      ? `remove ${nameOfLoop(loopId)} from its own \`depends-on\``
      : `remove ${nameOfLoop(next)} from this issue's \`depends-on:\` line (or from the loop config's \`depends-on\`)`
  return {
    loopId,
    title: `loop-controller did not queue the loop \`${loopId}\`: its \`depends-on\` would close a cycle, ${nameOfCycle(cycle)}.`,
    reason: `${links.join(', ')}: ${noneFirst(cycle.length - 1)}. This loop was not put in line (a place it had is given up); the loops in line keep theirs.`,
    whatToDo: `Break the cycle: ${breakIt}, ${RESTART}. Or drop another loop of the cycle with \`/loop abort\` on its issue.`,
  }
}

/** Why a cycle of `loops` loops never moves, said for one, two or more. */
function noneFirst(loops: number): string {
  if (loops === 1) return 'it could never be COMPLETE first, so it would never start'
  if (loops === 2) return 'neither could be COMPLETE first, so neither would ever start'
  return `none of these ${loops} loops could be COMPLETE first, so none would ever start`
}
