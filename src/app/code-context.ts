/**
 * Gathers what the code-context selection needs, through the ports: the project's source files (by
 * `git ls-files`, bounded in count and bytes), the failure's files, and the diff since the check last
 * passed. The choice of what to show is the domain's (`domain/code-context/select.ts`).
 */
import { isAbsolute, relative, resolve } from 'node:path'
import { changesBase, diffablePaths } from '../domain/code-context/changes.js'
import { type ChangesSince, type ContextSelection, contextLevel, selectContext } from '../domain/code-context/select.js'
import type { Strategy } from '../domain/stages.js'
import type { Location, LoopState } from '../domain/state.js'
import type { FailureForAgent } from '../domain/work-context.js'
import type { Git } from '../ports/git.js'
import type { Workspace } from '../ports/workspace.js'

/** Bounds of the symbol index: files listed, files read, bytes read, bytes of one file. */
const MAX_LISTED = 5000
const MAX_READ = 400
const MAX_BYTES = 2 * 1024 * 1024
const MAX_FILE_BYTES = 256 * 1024
const MAX_DIFF = 100_000

export interface CodeContextDeps {
  workspace: Workspace
  git: Git | null
}

/** The code for this attempt on `failures`' primary failure, or null when nothing fails. */
export async function gatherCodeContext(
  cwd: string,
  deps: CodeContextDeps,
  state: LoopState,
  strategy: Strategy | null,
  failures: FailureForAgent[],
  excluded: readonly string[],
): Promise<ContextSelection | null> {
  const primary = failures.find((f) => f.strategy !== 'auto_fix') ?? failures[0]
  if (!primary) return null
  const locations = primary.locations.map((location) => inProject(cwd, location))
  const level = contextLevel(strategy, state.failures.consecutive)
  const listed = await listSource(deps.git, excluded)
  const locationFiles = [...new Set(locations.map((l) => l.file))].filter((file) => !file.startsWith('/'))
  const files = new Set([...locationFiles, ...listed])
  const texts = new Map<string, string>()
  let bytes = 0
  for (const file of [...locationFiles, ...listed]) {
    if (texts.has(file)) continue
    if (texts.size >= MAX_READ || bytes >= MAX_BYTES) break
    const text = await deps.workspace.readText(resolve(cwd, file), MAX_FILE_BYTES)
    if (text === null) continue
    texts.set(file, text)
    bytes += text.length
  }
  const current = state.failures.current
  const failingTests = current?.check === primary.check ? (current.failingTests ?? []) : []
  const changes = level >= 2 && deps.git ? await changesSince(deps.git, state, primary.check, excluded) : null
  return selectContext({
    failure: { check: primary.check, pattern: primary.pattern, locations, excerpt: primary.excerpt },
    failingTests,
    level,
    files,
    texts,
    changes,
  })
}

/** An absolute location inside the project, made relative to it (tools print absolute paths). */
function inProject(cwd: string, location: Location): Location {
  if (!isAbsolute(location.file)) return location
  const path = relative(cwd, location.file)
  return path.startsWith('..') || isAbsolute(path) ? location : { ...location, file: path }
}

async function listSource(git: Git | null, excluded: readonly string[]): Promise<string[]> {
  if (!git) return []
  const listed = await git.exec(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    allowFailure: true,
  })
  if (listed.exitCode !== 0) return []
  return diffablePaths(listed.stdout.split('\0'), excluded, MAX_LISTED)
}

async function changesSince(
  git: Git,
  state: LoopState,
  check: string,
  excluded: readonly string[],
): Promise<ChangesSince | null> {
  const newestFirst = []
  for (const checkpoint of [...state.checkpoints].reverse().slice(0, 10)) {
    const body = await git.exec(['log', '-1', '--format=%B', checkpoint.commit], { allowFailure: true })
    if (body.exitCode === 0)
      newestFirst.push({ iteration: checkpoint.iteration, commit: checkpoint.commit, body: body.stdout })
  }
  const baseline = state.baseline?.checks[check]
  const base = changesBase(
    check,
    newestFirst,
    state.checkpoints[0]?.commit ?? null,
    baseline === undefined ? null : baseline === 'pass',
  )
  try {
    const paths = diffablePaths(await git.changedPaths(base.ref), excluded)
    if (paths.length === 0) return { since: base.since, files: [], diff: '' }
    const diff = await git.diff(base.ref, paths)
    return { since: base.since, files: paths, diff: diff.length > MAX_DIFF ? diff.slice(0, MAX_DIFF) : diff }
  } catch {
    // A base the history no longer has (a rebase, a shallow clone): no diff rather than no prompt.
    return null
  }
}
