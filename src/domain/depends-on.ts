/**
 * `depends-on`: the issues whose loops must be COMPLETE before a loop starts, from the loop config
 * (`depends-on: [12, 15]`) or from a `depends-on: #12, #15` line in the body of the issue the loop
 * starts from. Anyone who can open an issue wrote that body, so the line is read as untrusted text:
 * issue numbers of this repository only, at most ten; anything else is refused with a message that
 * quotes what was found, never ignored. Also: the cycle a loop would close by waiting. Pure.
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

const MAX_SHOWN = 80
/** A Markdown list item's marker (`-`, `*`, `+`, `1.`, `1)`), and a task list's box after it. */
const LIST_MARKER = /^[ \t]{0,3}(?:[-*+]|[0-9]{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/
/** The key, in any case, bold or italic around it or around its colon: `**depends-on:**`, `_Depends-On_:`. */
const KEY = /^[ \t]*[*_]{0,3}depends-on[*_]{0,3}[ \t]*:[*_]{0,3}(.*)$/i
/** The key misspelt as two words or with an underscore: read as an attempt, refused with the spelling. */
const NEAR_KEY = /^[ \t]*[*_]{0,3}depends[ _]on[*_]{0,3}[ \t]*:/i
/** The key as a word of its own: not part of a link's anchor (`…-and-depends-on`) or a longer name. */
const MENTION = /(?<![\w/#.-])depends-on(?![\w-])/i
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/
const ISSUE = /^#?([1-9][0-9]{0,9})$/
const OWNER_REPO = '(?<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?<repo>[A-Za-z0-9._-]{1,100})'
const ISSUE_OF_REPOSITORY = new RegExp(`^${OWNER_REPO}#(?<number>[1-9][0-9]{0,9})$`)
/** An issue's (or pull request's) address on any GitHub server, a comment's anchor after it allowed. */
const ISSUE_URL = new RegExp(
  `^https?://[^/\\s]+/${OWNER_REPO}/(?<kind>issues|pull)/(?<number>[1-9][0-9]{0,9})/?(?:#[\\w-]*)?$`,
)

/**
 * The `depends-on:` line of an issue body. A body without one, or with the line left empty (an issue
 * template's `depends-on:`), depends on nothing; a body with two, a
 * line holding anything but issue numbers of `repository` (`#12`, `12`, `owner/repo#12` or the issue's
 * address, separated by commas or spaces, in brackets or not), or a line that mentions `depends-on` but is no such line, is
 * refused. The key may be a list item, bold or italic, in any case; fenced code blocks and code spans
 * and HTML comments are not read (they quote, they do not ask).
 */
export function parseDependsOnLine(body: string, issue: number, repository: string | null = null): DependsOnLine {
  const where = `the body of issue #${issue}`
  const found = keyLinesOf(body)
  if ('mention' in found) {
    return {
      kind: 'refused',
      message: `${where} has a line that mentions depends-on but is no 'depends-on:' line: ${quote(found.mention.trim())}; write it on a line of its own as 'depends-on: #12, #15' (a list item or bold key is fine), or put the word in backticks if it asks for nothing`,
    }
  }
  const { keyLines } = found
  if (keyLines.length === 0) return { kind: 'none' }
  if (keyLines.length > 1) {
    return { kind: 'refused', message: `${where} has ${keyLines.length} 'depends-on:' lines; expected one` }
  }
  // `**depends-on: #12**`: the emphasis closes after the value.
  const value = (keyLines[0] ?? '').trim().replace(/[*_]+$/, '')
  const listed = /^\[(.*)\]$/.exec(value)?.[1] ?? value
  const parts = listed.split(/[\s,]+/).filter(Boolean)
  const issues: number[] = []
  for (const part of parts) {
    const read = readIssue(part, repository)
    if (typeof read === 'string') {
      return {
        kind: 'refused',
        message: `the 'depends-on:' line in ${where} must list issue numbers such as '#12, #15'; got ${quote(value)} (${read})`,
      }
    }
    issues.push(read)
  }
  // An empty line (`depends-on:`, or `[]`) is what an issue template leaves: it names no dependency.
  if (issues.length === 0) return { kind: 'none' }
  return checkDependencies(issues, issue, `the 'depends-on:' line in ${where}`)
}

/**
 * The values of the body's `depends-on:` lines, outside fenced code and HTML comments; or the first line
 * that mentions the key but is no such line (misspelt, in prose), which is refused rather than ignored.
 */
function keyLinesOf(body: string): { keyLines: string[] } | { mention: string } {
  const keyLines: string[] = []
  let fence: string | null = null
  // HTML comments are not shown (an issue template's hint): like code, they quote and do not ask.
  const shown = withoutHtmlComments(body.replace(/\r\n?/g, '\n'))
  for (const line of shown.split('\n')) {
    const fenceMark = FENCE.exec(line)?.[1]
    if (fenceMark !== undefined && (fence === null || fenceMark.startsWith(fence))) {
      fence = fence === null ? fenceMark : null
      continue
    }
    if (fence !== null) continue
    const item = line.replace(LIST_MARKER, '')
    const key = KEY.exec(item)
    if (key) keyLines.push(key[1] ?? '')
    else if (NEAR_KEY.test(item) || MENTION.test(line.replace(/`[^`\n]*`/g, ''))) return { mention: line }
  }
  return { keyLines }
}

/** `text` without its `<!-- … -->` comments (an unclosed one runs to the end), in one pass. */
function withoutHtmlComments(text: string): string {
  let out = ''
  let at = 0
  for (let open = text.indexOf('<!--'); open !== -1; open = text.indexOf('<!--', at)) {
    out += text.slice(at, open)
    const close = text.indexOf('-->', open + 4)
    if (close === -1) return out
    at = close + 3
  }
  return out + text.slice(at)
}

/** One listed issue: its number, or why it is none (another repository's issue is never waited for). */
function readIssue(part: string, repository: string | null): number | string {
  const plain = ISSUE.exec(part)
  if (plain) return Number(plain[1])
  const named = ISSUE_OF_REPOSITORY.exec(part) ?? ISSUE_URL.exec(part)
  if (!named?.groups) return `${quote(part.slice(0, 20))} is no issue number`
  const { owner, repo, kind, number } = named.groups
  const ofRepository = `${owner}/${repo}`
  if (repository === null || ofRepository.toLowerCase() !== repository.toLowerCase()) {
    return `${quote(part.slice(0, 150))} is an issue of ${repository === null ? 'a named repository' : 'another repository'}; a loop waits only for loops of ${repository ?? 'its own repository'}, named '#12'`
  }
  if (kind === 'pull')
    return `${quote(part.slice(0, 150))} is a pull request; a loop waits only for the loops of issues`
  return Number(number)
}

function quote(text: string): string {
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text)
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

/** The issue whose loop `loopId` is (`issue-12`: 12), or null for any other loop id. */
export function issueOfLoop(loopId: string): number | null {
  const issue = /^issue-([1-9][0-9]{0,9})$/.exec(loopId)?.[1]
  return issue === undefined ? null : Number(issue)
}

/** How a loop is named to people: `#12` for the loop of issue 12, else its id in backticks. */
export function nameOfLoop(loopId: string): string {
  const issue = issueOfLoop(loopId)
  return issue !== null ? `#${issue}` : `\`${loopId}\``
}

/** A loop in line and the loops it waits for. */
export interface Waiting {
  loopId: string
  dependsOn: readonly string[]
}

/**
 * The cycle `loopId` would close by waiting for `dependsOn` (with what its own place in line, if any,
 * already waits for), through the loops in line that wait in turn: the loop ids from `loopId` round to
 * `loopId` again, the shortest such, or null. A loop that ended (`ended`) waits for nothing: a cycle
 * through it is no cycle. A loop in a cycle would wait forever, so it is refused instead.
 */
export function dependencyCycle(
  inLine: readonly Waiting[],
  request: Waiting,
  ended: (loopId: string) => boolean = () => false,
): string[] | null {
  const waits = new Map<string, readonly string[]>()
  for (const entry of inLine) if (!ended(entry.loopId)) waits.set(entry.loopId, entry.dependsOn)
  waits.set(request.loopId, [...new Set([...(waits.get(request.loopId) ?? []), ...request.dependsOn])])
  // Breadth first from the loop, so the cycle named is a shortest one.
  const cameFrom = new Map<string, string>()
  let frontier = [request.loopId]
  while (frontier.length > 0) {
    const next: string[] = []
    for (const loopId of frontier) {
      for (const dependency of waits.get(loopId) ?? []) {
        if (dependency === request.loopId) return [...pathTo(loopId, cameFrom, request.loopId), request.loopId]
        if (cameFrom.has(dependency) || ended(dependency)) continue
        cameFrom.set(dependency, loopId)
        next.push(dependency)
      }
    }
    frontier = next
  }
  return null
}

function pathTo(loopId: string, cameFrom: ReadonlyMap<string, string>, start: string): string[] {
  const path = [loopId]
  for (let at = loopId; at !== start; ) {
    at = cameFrom.get(at) ?? start
    path.unshift(at)
  }
  return path
}

/** A cycle as people read it: `#1 → #2 → #1`. */
export function nameOfCycle(cycle: readonly string[]): string {
  return cycle.map(nameOfLoop).join(' → ')
}
