/**
 * A check's JUnit report is its own run's only when nothing else was at its path before: a report left
 * in the candidate (committed, stale from an earlier run, or written by the agent) would otherwise be
 * read as the result of a run that died before writing one. Each report path is removed before its run.
 */
import { isAbsolute, relative, resolve } from 'node:path'
import type { CheckConfig } from '../domain/loop-config.js'
import { expandShards } from '../domain/shards.js'
import type { IterationDeps, IterationInput } from './iteration/types.js'

/** Removes the report of every leg of `checks` (only paths inside the work tree: the config could name others). */
export async function removeReports(
  input: Pick<IterationInput, 'cwd'>,
  deps: Pick<IterationDeps, 'workspace'>,
  checks: readonly CheckConfig[],
): Promise<void> {
  for (const check of checks) {
    if (check.junit === undefined) continue
    for (const leg of expandShards(check)) if (leg.junit !== undefined) await removeReport(input, deps, leg.junit)
  }
}

/** Removes one report path (a leg's, placeholders filled) when it lies inside the work tree. */
export async function removeReport(
  input: Pick<IterationInput, 'cwd'>,
  deps: Pick<IterationDeps, 'workspace'>,
  path: string,
): Promise<void> {
  const target = resolve(input.cwd, path)
  const inside = relative(input.cwd, target)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return
  await deps.workspace.remove(target)
}
