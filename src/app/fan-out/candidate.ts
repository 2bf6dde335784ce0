/**
 * The candidate travels from plan to verify and decide as a git bundle of the commits the plan made on
 * the loop's branch (base..candidate), never as a push: the plan's token cannot push, and the receiving
 * jobs take exactly the commits they check. Every git here runs with hooks off (the `Git` adapter's
 * neutralised config), so nothing the work planted in a repository runs.
 */
import { FanOutError } from '../../domain/fan-out.js'
import type { Git } from '../../ports/git.js'

/** The ref the candidate is fetched into from its bundle. */
export const CANDIDATE_REF = 'refs/loop-fan-out/candidate'

/** Writes `file`: a bundle of `branch`'s commits since `base`. Nothing to bundle when the work changed nothing. */
export async function bundleCandidate(git: Git, file: string, branch: string, base: string): Promise<boolean> {
  const head = (await git.exec(['rev-parse', '--verify', '-q', `refs/heads/${branch}`])).stdout.trim()
  if (head === base) return false
  await git.exec(['bundle', 'create', file, `refs/heads/${branch}`, `^${base}`])
  return true
}

/**
 * Fetches the candidate from `file` into `CANDIDATE_REF` after checking the bundle holds what the plan
 * says: exactly one head, at `candidate`, whose commits since `base` are a straight line of commits
 * (one parent each) on `base`. Throws `FanOutError` naming what is wrong.
 */
export async function receiveCandidate(git: Git, file: string, base: string, candidate: string): Promise<void> {
  const heads = await git.exec(['bundle', 'list-heads', file], { allowFailure: true })
  if (heads.exitCode !== 0) throw new FanOutError(`The candidate bundle cannot be read: ${firstLine(heads.stderr)}`)
  const lines = heads.stdout.split('\n').filter((line) => line.trim() !== '')
  if (lines.length !== 1) {
    throw new FanOutError(`The candidate bundle must hold exactly one head; it holds ${lines.length}.`)
  }
  const [sha, ref] = (lines[0] ?? '').split(' ')
  if (sha !== candidate) {
    throw new FanOutError(`The candidate bundle's head is ${sha}, not the plan's candidate ${candidate}.`)
  }
  const verified = await git.exec(['bundle', 'verify', '-q', file], { allowFailure: true })
  if (verified.exitCode !== 0) {
    throw new FanOutError(
      `The candidate bundle does not apply to this repository (it needs the plan's base ${base}): ${firstLine(verified.stderr)}`,
    )
  }
  const fetched = await git.exec(['fetch', '--no-tags', '--no-write-fetch-head', file, `+${ref}:${CANDIDATE_REF}`], {
    allowFailure: true,
  })
  if (fetched.exitCode !== 0)
    throw new FanOutError(`The candidate bundle cannot be fetched: ${firstLine(fetched.stderr)}`)
  const onBase = await git.exec(['merge-base', '--is-ancestor', base, candidate], { allowFailure: true })
  if (onBase.exitCode !== 0)
    throw new FanOutError(`The candidate ${candidate} is not built on the plan's base ${base}.`)
  const parents = await git.exec(['rev-list', '--parents', `${base}..${candidate}`])
  const merges = parents.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => line.trim().split(' ').length !== 2)
  if (merges.length > 0) {
    throw new FanOutError(
      `The candidate's commits must be a straight line on the base; ${merges.length} of them ${merges.length === 1 ? 'has' : 'have'} other than one parent (${(merges[0] ?? '').slice(0, 12)}).`,
    )
  }
}

/** The commits base..candidate, oldest first, with their subject lines. */
export async function candidateCommits(
  git: Git,
  base: string,
  candidate: string,
): Promise<{ commit: string; message: string }[]> {
  const log = await git.exec(['log', '--reverse', '--format=%H %s', `${base}..${candidate}`])
  return log.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => ({ commit: line.slice(0, line.indexOf(' ')), message: line.slice(line.indexOf(' ') + 1) }))
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}
