// actions/checkout as the engine plays it: init, fetch the ref (depth per the step), check out,
// persist the token: up to v5 as an extraheader in .git/config, from v6 in a file under RUNNER_TEMP
// that .git/config includes for this repository's gitdir.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The `with:` keys of actions/checkout the engine honours. */
export const CHECKOUT_INPUTS = new Set(['fetch-depth', 'persist-credentials'])

export interface CheckoutRequest {
  /** What `git clone` takes: an http(s) URL (token checked) or a local path. */
  remote: string
  workspace: string
  runnerTemp: string
  token: string
  ref: string
  sha: string
  /** 0 = full history. */
  fetchDepth: number
  persistCredentials: boolean
  /** actions/checkout's major version. */
  major: number
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } })
  return stdout.trim()
}

/** GITHUB_REF_NAME: the branch or tag name, or `N/merge` for a pull request's merge ref. */
export function refNameOf(ref: string): string {
  return ref.replace(/^refs\/(heads|tags|pull)\//, '')
}

export async function checkout(request: CheckoutRequest): Promise<void> {
  const { remote, workspace, runnerTemp, token } = request
  mkdirSync(workspace, { recursive: true })
  await git(workspace, ['init', '--quiet'])
  await git(workspace, ['remote', 'add', 'origin', remote])
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64')
  const auth = `http.${/^https?:/.test(remote) ? new URL(remote).origin : remote}/.extraheader`
  // The checkout's own fetch carries the token; it stays in .git/config unless `persist-credentials: false`.
  const fetchAuth = /^https?:/.test(remote) ? ['-c', `${auth}=AUTHORIZATION: basic ${basic}`] : []
  if (fetchAuth.length > 0 && request.persistCredentials) {
    if (request.major >= 6) {
      const file = join(runnerTemp, `git-credentials-${randomUUID()}.config`)
      const origin = new URL(remote).origin
      writeFileSync(file, `[http "${origin}/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`)
      await git(workspace, ['config', '--local', `includeIf.gitdir:${join(workspace, '.git')}.path`, file])
    } else await git(workspace, ['config', '--local', auth, `AUTHORIZATION: basic ${basic}`])
  }
  const isTag = request.ref.startsWith('refs/tags/')
  // A pull request's merge ref is fetched as actions/checkout does (`refs/remotes/pull/N/merge`) and
  // checked out detached: no local branch.
  const isPull = request.ref.startsWith('refs/pull/')
  const name = refNameOf(request.ref)
  const target = isTag ? request.ref : isPull ? `refs/remotes/pull/${name}` : `refs/remotes/origin/${name}`
  await git(workspace, [
    ...fetchAuth,
    '-c',
    'protocol.version=2',
    'fetch',
    '--no-tags',
    '--prune',
    '--quiet',
    ...(request.fetchDepth > 0 ? [`--depth=${request.fetchDepth}`] : []),
    'origin',
    `+${request.sha || request.ref}:${target}`,
  ])
  if (isTag || isPull) await git(workspace, ['checkout', '--quiet', '--force', '--detach', target])
  else await git(workspace, ['checkout', '--quiet', '--force', '-B', name, target])
}
