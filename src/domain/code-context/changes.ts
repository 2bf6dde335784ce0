/**
 * Where "what changed since the check last passed" starts: the newest checkpoint whose commit message
 * records the check passing, else the loop's start (the parent of its first checkpoint, or HEAD when
 * nothing was committed yet). Pure; the app reads the commit messages.
 */
import { isIndexable } from './symbols.js'

export interface CheckpointMessage {
  iteration: number
  commit: string
  /** The checkpoint commit's full message (its verdict line: `build pass, test fail`). */
  body: string
}

export interface ChangesBase {
  /** The ref to diff from; null: HEAD (only the uncommitted changes). */
  ref: string | null
  since: string
}

/** Whether a checkpoint's verdict line says `check` passed. */
export function passedIn(body: string, check: string): boolean {
  const name = check.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?:^|, )${name} pass(?:,|$)`, 'm').test(body)
}

/**
 * The base of the diff for `check`: `newestFirst` are the loop's checkpoints, newest first;
 * `firstCheckpoint` is the loop's oldest one still recorded; `passedAtBaseline` says how the check
 * stood before the loop's first work.
 */
export function changesBase(
  check: string,
  newestFirst: readonly CheckpointMessage[],
  firstCheckpoint: string | null,
  passedAtBaseline: boolean | null,
): ChangesBase {
  const green = newestFirst.find((checkpoint) => passedIn(checkpoint.body, check))
  if (green) {
    return {
      ref: green.commit,
      since: `since iteration ${green.iteration} (checkpoint ${green.commit.slice(0, 12)}), when \`${check}\` last passed`,
    }
  }
  const state =
    passedAtBaseline === true
      ? `when \`${check}\` passed`
      : passedAtBaseline === false
        ? `\`${check}\` was failing then too`
        : 'before its first work'
  return {
    ref: firstCheckpoint ? `${firstCheckpoint}~1` : null,
    since: `since the loop started (${state})`,
  }
}

/** The changed paths worth diffing: source files, not the loop's own folder; at most `max`. */
export function diffablePaths(paths: readonly string[], excluded: readonly string[], max = 20): string[] {
  return paths
    .filter((path) => isIndexable(path) && !excluded.some((folder) => path === folder || path.startsWith(`${folder}/`)))
    .slice(0, max)
}
