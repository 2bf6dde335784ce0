/**
 * The loop's branch (`loop/<loop-id>`): checked out at the start of a job, pushed
 * at the end. A push the remote refuses as non-fast-forward is fetched, rebased and retried; a rebase
 * conflict is reported as `merge-conflict` for the loop to go BLOCKED. Never a force push.
 */
import { CONFLICT_SIGNS, NON_FAST_FORWARD_SIGNS } from '../domain/git-errors.js'
import type { Git, Identity } from '../ports/git.js'

export interface CheckoutResult {
  /** True when the branch did not exist on the remote and was started here. */
  created: boolean
  head: string | null
}

function remoteRef(remote: string, branch: string): string {
  return `refs/remotes/${remote}/${branch}`
}

/**
 * Checks out `branch`: at the remote's tip when it exists there (the loop's earlier work), else a new
 * branch at the current commit.
 */
export async function checkoutLoopBranch(git: Git, branch: string, remote = 'origin'): Promise<CheckoutResult> {
  const fetched = await git.fetch(remote, `+refs/heads/${branch}:${remoteRef(remote, branch)}`)
  if (fetched.ok) {
    await git.checkoutBranch(branch, remoteRef(remote, branch))
    return { created: false, head: await git.head() }
  }
  await git.checkoutBranch(branch, 'HEAD')
  return { created: true, head: await git.head() }
}

export type PushOutcome =
  | { kind: 'pushed'; attempts: number; head: string | null }
  | { kind: 'conflict'; attempts: number; paths: string[]; message: string }
  | { kind: 'failed'; attempts: number; message: string }

export interface PushOptions {
  branch: string
  identity: Identity
  remote?: string
  /** Pushes tried before giving up on a remote that keeps moving. Default 3. */
  attempts?: number
  /** Environment for the push alone (e.g. the push token's credentials, see `pushAuthEnv`). */
  env?: Record<string, string>
}

/**
 * Pushes HEAD to `branch`. On a non-fast-forward rejection: fetch, rebase onto the remote branch, push
 * again, up to `attempts` times. A rebase conflict is aborted (the branch stays as it was) and returned
 * as `conflict` with the conflicting paths and git's words (which the `merge-conflict` pattern knows).
 */
export async function pushLoopBranch(git: Git, options: PushOptions): Promise<PushOutcome> {
  const remote = options.remote ?? 'origin'
  const attempts = options.attempts ?? 3
  const refspec = `HEAD:refs/heads/${options.branch}`
  let lastMessage = ''
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const result = await git.exec(['push', '--porcelain', remote, refspec], {
      allowFailure: true,
      ...(options.env ? { env: options.env } : {}),
    })
    if (result.exitCode === 0) return { kind: 'pushed', attempts: attempt, head: await git.head() }
    const text = `${result.stdout}\n${result.stderr}`
    lastMessage = text.trim()
    if (!NON_FAST_FORWARD_SIGNS.some((sign) => sign.test(text))) {
      return { kind: 'failed', attempts: attempt, message: lastMessage }
    }
    const fetched = await git.fetch(remote, `+refs/heads/${options.branch}:${remoteRef(remote, options.branch)}`)
    if (!fetched.ok) return { kind: 'failed', attempts: attempt, message: fetched.stderr.trim() || lastMessage }
    const rebased = await git.rebase(remoteRef(remote, options.branch), options.identity)
    if (!rebased.ok) {
      if (rebased.conflict || CONFLICT_SIGNS.some((sign) => sign.test(rebased.stderr))) {
        const paths = rebased.conflictPaths
        const lines = paths.map((path) => `CONFLICT (content): Merge conflict in ${path}`)
        return {
          kind: 'conflict',
          attempts: attempt,
          paths,
          message: [...lines, `Automatic merge failed; ${options.branch} changed on the remote.`, rebased.stderr.trim()]
            .filter(Boolean)
            .join('\n'),
        }
      }
      return { kind: 'failed', attempts: attempt, message: rebased.stderr.trim() }
    }
  }
  return {
    kind: 'failed',
    attempts,
    message: `The remote branch ${options.branch} kept moving; gave up after ${attempts} pushes. ${lastMessage}`,
  }
}

/**
 * Git configuration, as environment variables, that makes a push use `token` on `serverUrl`
 * (`https://github.com`). The empty first value clears the header `actions/checkout` persisted, so
 * only this token is sent.
 */
export function pushAuthEnv(serverUrl: string, token: string): Record<string, string> {
  const key = `http.${serverUrl.replace(/\/+$/, '')}/.extraheader`
  const basic = Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64')
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: key,
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: key,
    GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${basic}`,
  }
}
