// The refs GitHub keeps for each pull request in the base repository: `refs/pull/N/head` (the head
// commit) and `refs/pull/N/merge` (a test merge of the head into the base, which `pull_request` and
// `pull_request_review` workflows run on), and the merge itself. Sync git on the bare repository: no
// server of this process is involved, so nothing can deadlock.
import { execFileSync } from 'node:child_process'

const IDENTITY = {
  GIT_AUTHOR_NAME: 'GitHub',
  GIT_AUTHOR_EMAIL: 'noreply@github.com',
  GIT_COMMITTER_NAME: 'GitHub',
  GIT_COMMITTER_EMAIL: 'noreply@github.com',
}

function git(bareDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', bareDir, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...IDENTITY, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim()
}

/** A merge commit of `headSha` into `baseSha`, or undefined when they conflict (GitHub then has no merge ref). */
function mergeCommit(bareDir: string, baseSha: string, headSha: string, message: string): string | undefined {
  let tree: string
  try {
    tree = git(bareDir, ['merge-tree', '--write-tree', baseSha, headSha]).split('\n')[0] ?? ''
  } catch {
    return undefined
  }
  return git(bareDir, ['commit-tree', tree, '-p', baseSha, '-p', headSha, '-m', message])
}

/**
 * Brings `refs/pull/N/head` and `refs/pull/N/merge` up to date, as GitHub does before it runs a pull
 * request's workflows. Returns the merge ref's name, or undefined when head and base conflict.
 */
export function updatePullRefs(
  bareDir: string,
  pull: { number: number; headSha: string; baseRef: string },
): string | undefined {
  git(bareDir, ['update-ref', `refs/pull/${pull.number}/head`, pull.headSha])
  const baseSha = git(bareDir, ['rev-parse', '--verify', `refs/heads/${pull.baseRef}^{commit}`])
  const merge = mergeCommit(bareDir, baseSha, pull.headSha, `Merge ${pull.headSha} into ${baseSha}`)
  if (merge === undefined) {
    git(bareDir, ['update-ref', '-d', `refs/pull/${pull.number}/merge`])
    return undefined
  }
  git(bareDir, ['update-ref', `refs/pull/${pull.number}/merge`, merge])
  return `refs/pull/${pull.number}/merge`
}

/** Merges the pull request's head into its base branch with a merge commit; returns that commit. */
export function mergePullIntoBase(
  bareDir: string,
  pull: { number: number; headRef: string; headSha: string; baseRef: string },
): string {
  const baseSha = git(bareDir, ['rev-parse', '--verify', `refs/heads/${pull.baseRef}^{commit}`])
  const merge = mergeCommit(bareDir, baseSha, pull.headSha, `Merge pull request #${pull.number} from ${pull.headRef}`)
  if (merge === undefined) throw new Error(`sandbox: #${pull.number} conflicts with ${pull.baseRef}`)
  git(bareDir, ['update-ref', `refs/heads/${pull.baseRef}`, merge, baseSha])
  return merge
}
