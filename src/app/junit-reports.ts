/**
 * A check's JUnit report is its own run's only when nothing else was at its path before: a report left
 * in the candidate (stale from an earlier run, or written by the agent) would otherwise be read as the
 * result of a run that died before writing one. Each report path is removed before its run, but only a
 * file (or a symlink, not what it names) whose real folder lies inside the work tree: a `junit:` naming
 * a folder, or a path through a symlink out of the work tree, is left as it is.
 *
 * A report git tracks is left too, with a warning: removing it would have the loop commit its deletion
 * whenever the check does not write it again, and since the check runs the candidate's own code, its
 * report is never more than the candidate's word anyway; what a stale committed report costs is said.
 */
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import type { CheckConfig } from '../domain/loop-config.js'
import { expandShards } from '../domain/shards.js'
import type { Logger } from '../ports/logger.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'

type ReportDeps = Pick<IterationDeps, 'workspace' | 'git' | 'logger'>

/** Removes the report of every leg of `checks` (only paths inside the work tree: the config could name others). */
export async function removeReports(
  input: Pick<IterationInput, 'cwd'>,
  deps: ReportDeps,
  checks: readonly CheckConfig[],
): Promise<void> {
  for (const check of checks) {
    if (check.junit === undefined) continue
    for (const leg of expandShards(check)) if (leg.junit !== undefined) await removeReport(input, deps, leg.junit)
  }
}

/** Removes one report path (a leg's, placeholders filled) when it is an untracked file inside the work tree. */
export async function removeReport(input: Pick<IterationInput, 'cwd'>, deps: ReportDeps, path: string): Promise<void> {
  const target = resolve(input.cwd, path)
  if (!inside(input.cwd, target)) return
  // The folder as the file system resolves it: a symlinked folder on the way could lead out of the work tree.
  const folder = await deps.workspace.realPath(dirname(target))
  const root = (await deps.workspace.realPath(input.cwd)) ?? input.cwd
  if (folder === null || (folder !== root && !inside(root, folder))) return
  const report = join(folder, basename(target))
  if (deps.git && (await tracked(deps.git, relative(root, report)))) {
    warnOnce(
      deps.logger,
      `junit:${path}:tracked`,
      `The JUnit report ${path} is tracked by git, so it is left in place before its check runs (removing it would commit its deletion): when the check does not write it, its verdicts are the committed file's.`,
    )
    return
  }
  const removed = await deps.workspace.removeFile(report)
  if (removed === 'not-a-file') {
    warnOnce(
      deps.logger,
      `junit:${path}:not-a-file`,
      `The JUnit report path ${path} is not a file (a folder?), so it is left as it is: \`junit\` must name the report file the check writes, e.g. reports/junit.xml.`,
    )
  }
}

function inside(root: string, path: string): boolean {
  const within = relative(root, path)
  return within !== '' && !within.startsWith('..') && !isAbsolute(within)
}

async function tracked(git: NonNullable<IterationDeps['git']>, path: string): Promise<boolean> {
  const listed = await git.exec(['ls-files', '--', `:(literal)${path}`], { allowFailure: true })
  return listed.exitCode === 0 && listed.stdout.trim() !== ''
}

/** Each warning once per logger (a check's report is removed before every run of it). */
const warned = new WeakMap<Logger, Set<string>>()
function warnOnce(logger: Logger, key: string, message: string): void {
  const keys = warned.get(logger) ?? new Set<string>()
  warned.set(logger, keys)
  if (keys.has(key)) return
  keys.add(key)
  logger.warning(message)
}
