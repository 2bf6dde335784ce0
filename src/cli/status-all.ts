/**
 * `loop-controller status --all`: every loop kept in the state directory, one line each (stage,
 * status, iterations of the cap, what it spent, its last verdict, its issue, pull request and last run),
 * or `--json` (each loop's status with the table's facts: when it last saved, its last verdict and every
 * failing check, the issue it started from, its pull request and last run, as the table links them). The rows are the dashboard issue's (`domain/report/loops-table.ts`). With `--remote`, the loops
 * are those the action keeps on the `git` store's branch of that remote (`--state-branch`, default
 * `loop-state`), read without writing anything, with each queued loop's place in line as the dashboard
 * says it and, where the remote's URL names a GitHub repository, each last run's web address.
 */
import { relative } from 'node:path'
import { GitCli } from '../adapters/git-cli.js'
import { RemoteFetchError, UnknownRemoteError } from '../adapters/stores/remote-branch.js'
import { type BranchListing, readStateBranch } from '../adapters/stores/state-branch-reader.js'
import { repositoryWebUrl } from '../domain/remote-url.js'
import { compareLoopIds } from '../domain/report/loop-order.js'
import { type ListedLoop, loopsTableRows, type QueueView, renderLoopsText } from '../domain/report/loops-table.js'
import { EXIT, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import type { LoopPlace } from './loop-place.js'
import { parseMaxLoops, type Values, validStateBranch } from './options.js'
import { statusJson } from './render.js'

/**
 * Prints every loop; exit 0 (a listing, not one loop's state), also when a state cannot be read: that
 * loop is a row `unreadable` and the count is said on stderr.
 */
export async function showAllLoops(place: LoopPlace, values: Values, io: CliIo): Promise<number> {
  if (values['state-branch'] !== undefined && values.remote === undefined) {
    throw new UsageError(`--state-branch names the branch of a remote: give --remote too (e.g. --remote origin).`)
  }
  if (values.remote !== undefined) return showBranchLoops(place, values, io)
  // Read only: a listing never moves a bad state aside, so it is listed again the next time.
  const rows = await place.store.readLoops()
  if (rows.length === 0 && !values.json) {
    const remotes = await stateBranchRemotes(place.root)
    // A clone of a repository whose loops run on GitHub keeps them on a remote's branch, not here.
    const hint = remotes.length
      ? ` The loops the action runs are on ${remotes.map((r) => `${r}/loop-state`).join(', ')}: 'loop-controller status --all --remote ${remotes[0]}'.`
      : ''
    io.stdout(
      `No loops yet in ${relative(io.cwd, place.stateDir) || '.'}. Start one with 'loop-controller run'.${hint}\n`,
    )
    return EXIT.complete
  }
  printLoops(rows, null, undefined, values, io)
  return EXIT.complete
}

/** A remote this clone does not have, or one git cannot fetch from, said as the user's to fix (no stack trace). */
function explainedRemote(error: unknown, remote: string): unknown {
  if (error instanceof UnknownRemoteError) {
    return new UsageError(`no remote '${remote}' in this clone; \`git remote -v\` lists them, or give a URL.`)
  }
  if (error instanceof RemoteFetchError) {
    const which = error.url === remote ? `'${remote}'` : `'${remote}' (${error.url})`
    return new UsageError(
      `cannot read the remote ${which}: ${error.reason}. Check the name or URL; a private repository needs GH_TOKEN or GITHUB_TOKEN.`,
    )
  }
  return error
}

/** The loops on the `git` store's branch of `--remote` (a remote's name or a URL), read-only. */
async function showBranchLoops(place: LoopPlace, values: Values, io: CliIo): Promise<number> {
  const remote = values.remote ?? ''
  if (!remote.trim()) throw new UsageError(`--remote takes a remote's name or URL (e.g. origin); got '${remote}'.`)
  const branch = validStateBranch(values['state-branch'] ?? 'loop-state')
  const limit = values['max-loops'] === undefined ? null : parseMaxLoops(values['max-loops'])
  let listing: BranchListing
  try {
    listing = await readStateBranch({
      repoDir: place.root,
      remote,
      branch,
      // A private repository's branch needs a token, as \`gh\` takes one.
      token: io.env.GH_TOKEN || io.env.GITHUB_TOKEN || undefined,
    })
  } catch (error) {
    throw explainedRemote(error, remote)
  }
  if (listing.slotsProblem) io.stderr(`warning: ${listing.slotsProblem} (places in line are not shown)\n`)
  if (listing.loops.length === 0 && !values.json) {
    const why = listing.commit
      ? 'holds no loop yet'
      : 'does not exist yet: no loop has saved its state there (a workflow whose state-branch input names another branch: give --state-branch)'
    io.stdout(`The branch ${branch} of ${remote} ${why}.\n`)
    return EXIT.complete
  }
  // The limit is the workflow's input; each change of the queue records the one it was made under, so
  // without --max-loops the recorded one is shown (a queue older than that record: unknown).
  const recorded = listing.slots.limit
  const known = limit ?? (recorded === undefined ? 'unknown' : recorded)
  // A --max-loops other than the recorded one is the reader's supposition: what it frees is said as such.
  const supposed = limit !== null && limit !== (recorded ?? null)
  const queue: QueueView | null = listing.slotsProblem
    ? null
    : { record: listing.slots, limit: known, ...(supposed ? { supposed: true as const } : {}) }
  printLoops(listing.loops, queue, repositoryWebUrl(listing.url) ?? undefined, values, io)
  return EXIT.complete
}

/** The remotes this clone has fetched a `loop-state` branch from (`refs/remotes/<name>/loop-state`). */
async function stateBranchRemotes(root: string): Promise<string[]> {
  const listed = await new GitCli(root).exec(['for-each-ref', '--format=%(refname)', 'refs/remotes/*/loop-state'], {
    allowFailure: true,
  })
  if (listed.exitCode !== 0) return []
  return listed.stdout
    .split('\n')
    .map((ref) => /^refs\/remotes\/(.+)\/loop-state$/.exec(ref.trim())?.[1])
    .filter((remote): remote is string => Boolean(remote))
}

function printLoops(
  rows: readonly ListedLoop[],
  queue: QueueView | null,
  repositoryUrl: string | undefined,
  values: Values,
  io: CliIo,
): void {
  // Each loop's last save as an age: a running loop last saved days ago has plainly stopped.
  const table = loopsTableRows(rows, repositoryUrl, queue, rows, new Date())
  const unreadable = rows.filter((row) => !row.state).length
  // The table cuts each problem short; said once on stderr too, so a script reading stdout is not misled.
  if (unreadable > 0) {
    io.stderr(`warning: ${unreadable} loop(s) unreadable${values.json ? '' : ' (--json shows each problem in full)'}\n`)
  }
  if (values.json) {
    const byId = new Map(table.map((row) => [row.loopId, row]))
    // In the table's order (`compareLoopIds`), not the store's listing's.
    const json = [...rows]
      .sort((a, b) => compareLoopIds(a.loopId, b.loopId))
      .map((row) => {
        if (!row.state) return { loopId: row.loopId, problem: row.problem }
        const listed = byId.get(row.loopId)
        // The table's facts, each as a script reads it: the save as its time, the verdict with every failing check.
        return {
          ...statusJson(row.state),
          updatedAt: row.state.updatedAt,
          lastVerdict: listed && listed.lastVerdict !== '-' ? listed.lastVerdict : null,
          failingChecks: listed?.failingChecks ?? [],
          issue: listed?.issue?.number ?? null,
          pullRequest: listed?.pullRequest ?? null,
          lastRun: listed?.lastRun ?? null,
          ...(queue ? { queue: listed?.queue ?? '-' } : {}),
        }
      })
    io.stdout(`${JSON.stringify(json, null, 2)}\n`)
    return
  }
  io.stdout(renderLoopsText(table))
}
