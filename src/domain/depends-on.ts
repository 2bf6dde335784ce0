/**
 * `depends-on`: the issues whose loops must be COMPLETE before a loop starts, from the loop config
 * (`depends-on: [12, 15]`) or from a `depends-on: #12, #15` line in the body of the issue the loop
 * starts from. Anyone who can open an issue wrote that body, so the line is read as untrusted text:
 * issue numbers only, at most ten; anything else is refused with a message that quotes what was
 * found. Pure.
 */

/** The most dependencies a loop may have. */
export const MAX_DEPENDENCIES = 10

/** The loop id of the loop an issue starts (the action's default for an `issues` event). */
export function loopOfIssue(issue: number): string {
  return `issue-${issue}`
}

export type DependsOnLine =
  | { kind: 'none' }
  | { kind: 'issues'; issues: number[] }
  | { kind: 'refused'; message: string }

const LINE = /^[ \t]*depends-on[ \t]*:(.*)$/gim
const MAX_SHOWN = 80

/**
 * The `depends-on:` line of an issue body. A body without one depends on nothing; a body with two, or
 * a line holding anything but issue numbers (`#12`, `12`, separated by commas or spaces), is refused.
 */
export function parseDependsOnLine(body: string, issue: number): DependsOnLine {
  const lines = [...body.replace(/\r\n?/g, '\n').matchAll(LINE)]
  if (lines.length === 0) return { kind: 'none' }
  if (lines.length > 1) {
    return {
      kind: 'refused',
      message: `the body of issue #${issue} has ${lines.length} 'depends-on:' lines; expected one`,
    }
  }
  const value = (lines[0]?.[1] ?? '').trim()
  const parts = value.split(/[\s,]+/).filter(Boolean)
  const bad = parts.find((part) => !/^#?[1-9][0-9]{0,9}$/.test(part))
  if (parts.length === 0 || bad !== undefined) {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value
    return {
      kind: 'refused',
      message: `the 'depends-on:' line in the body of issue #${issue} must list issue numbers such as '#12, #15'; got ${JSON.stringify(shown)}${bad !== undefined ? ` (${JSON.stringify(bad.slice(0, 20))} is no issue number)` : ''}`,
    }
  }
  const issues = [...new Set(parts.map((part) => Number(part.replace('#', ''))))]
  return checkDependencies(issues, issue, `the 'depends-on:' line in the body of issue #${issue}`)
}

/** The dependencies from the config and the issue body together, checked: ten at most, never the loop's own issue. */
export function checkDependencies(issues: readonly number[], ownIssue: number | null, where: string): DependsOnLine {
  const unique = [...new Set(issues)]
  if (unique.length > MAX_DEPENDENCIES) {
    return {
      kind: 'refused',
      message: `${where} names ${unique.length} issues; expected at most ${MAX_DEPENDENCIES}`,
    }
  }
  if (ownIssue !== null && unique.includes(ownIssue)) {
    return { kind: 'refused', message: `${where} names issue #${ownIssue} itself; a loop cannot wait for itself` }
  }
  return unique.length === 0 ? { kind: 'none' } : { kind: 'issues', issues: unique }
}

/** How a loop is named to people: `#12` for the loop of issue 12, else its id in backticks. */
export function nameOfLoop(loopId: string): string {
  const issue = /^issue-([1-9][0-9]*)$/.exec(loopId)?.[1]
  return issue ? `#${issue}` : `\`${loopId}\``
}
