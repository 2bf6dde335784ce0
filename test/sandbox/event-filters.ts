// `on.<event>.branches`, `branches-ignore`, `paths`, `paths-ignore`, `tags`, `tags-ignore` as GitHub
// reads and applies them ("Filter pattern cheat sheet"): checked when the file is read (which keys each
// event takes, one of `x` and `x-ignore`), then applied to the events the engine delivers. A pull
// request's event (`pull_request`, `pull_request_target`) filters on its base branch and on the files
// the pull request changes; `push` takes them too, though the sandbox delivers no push event.
import { execFileSync } from 'node:child_process'

/** The filters of one event, each a list of patterns in the file's order. */
export type EventFilters = Partial<Record<(typeof FILTERS)[number], string[]>>

const FILTERS = ['branches', 'branches-ignore', 'tags', 'tags-ignore', 'paths', 'paths-ignore'] as const

/** The keys GitHub takes under each event whose configuration the engine reads. */
const EVENT_KEYS: Readonly<Record<string, readonly string[]>> = {
  push: FILTERS,
  pull_request: ['types', 'branches', 'branches-ignore', 'paths', 'paths-ignore'],
  pull_request_target: ['types', 'branches', 'branches-ignore', 'paths', 'paths-ignore'],
  issues: ['types'],
  issue_comment: ['types'],
  pull_request_review: ['types'],
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * Refuses what GitHub refuses in `on.<event>`: a key the event does not take (`branches` under
 * `issues`, `tags` under `pull_request`), both a filter and its `-ignore`, a filter that is no list of
 * patterns.
 */
export function checkEventFilters(where: string, event: string, config: unknown): void {
  const known = EVENT_KEYS[event]
  if (!known || !isRecord(config)) return
  for (const key of Object.keys(config)) {
    if (!known.includes(key))
      throw new Error(`${where} on.${event}: Unexpected value '${key}' (it takes ${known.join(', ')})`)
  }
  for (const name of ['branches', 'tags', 'paths']) {
    if (config[name] !== undefined && config[`${name}-ignore`] !== undefined) {
      throw new Error(
        `${where} on.${event}: you may only define one of \`${name}\` and \`${name}-ignore\` for a single event`,
      )
    }
  }
  for (const key of FILTERS) {
    const value = config[key]
    if (value === undefined) continue
    const patterns = typeof value === 'string' ? [value] : value
    if (!Array.isArray(patterns) || patterns.length === 0 || patterns.some((p) => typeof p !== 'string' || p === '')) {
      throw new Error(
        `${where} on.${event}.${key}: takes a pattern or a list of patterns; got ${JSON.stringify(value)}`,
      )
    }
  }
}

/** The filters of `on:` by event (after checkEventFilters), for the events that have any. */
export function eventFiltersOf(on: unknown): Record<string, EventFilters> | undefined {
  const found: Record<string, EventFilters> = {}
  for (const [event, config] of Object.entries(isRecord(on) ? on : {})) {
    if (!isRecord(config)) continue
    const filters: EventFilters = {}
    for (const key of FILTERS) {
      const value = config[key]
      if (value !== undefined) filters[key] = (typeof value === 'string' ? [value] : (value as unknown[])).map(String)
    }
    if (Object.keys(filters).length > 0) found[event] = filters
  }
  return Object.keys(found).length > 0 ? found : undefined
}

/**
 * A filter pattern as GitHub reads it: `*` any characters but `/`, `**` any characters, `?` zero or
 * one and `+` one or more of the character before, `[a-z0-9]` one character listed, `\` escapes.
 * `**\/` may match no folder at all (`docs/**\/*.md` matches `docs/README.md`).
 */
export function filterPattern(pattern: string): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string
    if (char === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (char === '*') source += '[^/]*'
    else if ((char === '?' || char === '+') && source !== '') source += char
    else if (char === '[' && pattern.indexOf(']', i) > i + 1) {
      const end = pattern.indexOf(']', i)
      source += `[${pattern.slice(i + 1, end).replace(/[\\\]^]/g, '\\$&')}]`
      i = end
    } else if (char === '\\' && i + 1 < pattern.length) {
      i++
      source += (pattern[i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    } else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/** Whether `name` is selected by `patterns` in order: the last pattern that matches decides (`!` deselects). */
function selected(name: string, patterns: readonly string[]): boolean {
  let chosen = false
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!')
    if (filterPattern(negated ? pattern.slice(1) : pattern).test(name)) chosen = !negated
  }
  return chosen
}

/** What an event is filtered on: its branch or tag, and the files it changed (read only when asked). */
export interface FilteredEvent {
  branch?: string
  tag?: string
  changedFiles: () => string[]
}

/**
 * Whether an event passes its workflow's filters, as GitHub applies them: `branches` (`tags`) when the
 * last pattern matching the ref's name is no `!` one, `branches-ignore` (`tags-ignore`) when no pattern
 * matches; `paths` when some changed file is selected, `paths-ignore` when some file matches none.
 */
export function passesFilters(filters: EventFilters | undefined, event: FilteredEvent): boolean {
  if (!filters) return true
  const refName = event.tag ?? event.branch
  const [refKey, ignoreKey] = event.tag !== undefined ? ['tags', 'tags-ignore'] : ['branches', 'branches-ignore']
  const refPatterns = filters[refKey as 'tags' | 'branches']
  const refIgnored = filters[ignoreKey as 'tags-ignore' | 'branches-ignore']
  // A push of a tag does not run a workflow that filters on branches only, nor a branch one on tags only.
  const otherOnly =
    event.tag !== undefined
      ? (filters.branches ?? filters['branches-ignore'])
      : (filters.tags ?? filters['tags-ignore'])
  if (otherOnly && !refPatterns && !refIgnored) return false
  if (refPatterns && !selected(refName ?? '', refPatterns)) return false
  if (refIgnored?.some((pattern) => filterPattern(pattern).test(refName ?? ''))) return false
  if (filters.paths) return event.changedFiles().some((file) => selected(file, filters.paths ?? []))
  const ignored = filters['paths-ignore']
  if (ignored) return event.changedFiles().some((file) => !ignored.some((p) => filterPattern(p).test(file)))
  return true
}

/** The files a pull request changes: its head against its merge base with the base (git's `base...head`). */
export function pullRequestFiles(bareDir: string, baseSha: string, headSha: string): string[] {
  const text = execFileSync('git', ['--git-dir', bareDir, 'diff', '--name-only', `${baseSha}...${headSha}`], {
    encoding: 'utf8',
  })
  return text.split('\n').filter(Boolean)
}
