/**
 * The push token never sits where the agent can read it: a checkout that persisted it in `.git/config`
 * is cleaned before the agent runs, and the controller hands the token to git for fetch and push
 * alone, from its own process, at that moment.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removePersistedCredentials } from '../../src/action/persisted-credentials.js'
import { GitCli } from '../../src/adapters/git-cli.js'
import { pushAuthEnv } from '../../src/app/loop-branch.js'
import { GitServer } from '../sandbox/git-server.js'

const TOKEN = 'ghs_plantedPushToken0123456789abcdefABCDEF'
let server: GitServer
let remote: string

beforeAll(async () => {
  server = await GitServer.start({ token: TOKEN })
  remote = await server.createRepository('octo/app.git')
})
afterAll(async () => {
  await server.close()
})

let credentialsFile = ''

function checkout(persisted: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-push-'))
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  git('add', '-A')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'a')
  git('remote', 'add', 'origin', remote)
  if (persisted) {
    // What actions/checkout writes unless told `persist-credentials: false`.
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')
    git('config', '--local', `http.${server.url}/.extraheader`, `AUTHORIZATION: basic ${basic}`)
    // actions/checkout v6 on: the header in a file under RUNNER_TEMP, included from .git/config.
    const credentials = join(mkdtempSync(join(tmpdir(), 'runner-temp-')), `git-credentials-${Date.now()}.config`)
    credentialsFile = credentials
    writeFileSync(credentials, `[http "${server.url}/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`)
    git('config', '--local', `includeIf.gitdir:${dir}/.git.path`, credentials)
  }
  return dir
}

const silent = {
  info() {},
  warning() {},
  error() {},
  debug() {},
  group: <T>(_name: string, fn: () => Promise<T>) => fn(),
}

describe('the push token and the agent', () => {
  it('a persisted token is taken out of .git/config before the agent could read it', async () => {
    const dir = checkout(true)
    const warnings: string[] = []
    const removed = await removePersistedCredentials(new GitCli(dir), {
      ...silent,
      warning: (t: string) => warnings.push(t),
    })
    expect(removed.length).toBe(2)
    // The agent reads the repository's config: no token, no pointer to a file that holds one.
    const config = readFileSync(join(dir, '.git', 'config'), 'utf8')
    expect(config).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'))
    expect(config).not.toMatch(/includeIf|extraheader/i)
    // Nor can it read the included file itself: that is gone too.
    expect(existsSync(credentialsFile)).toBe(false)
    expect(warnings.join('\n')).toMatch(/credentials file the agent could read/)
    expect(warnings.join('\n')).toMatch(/persist-credentials: false/)
  })

  it('the controller pushes with the token it holds, given to git at push time only', async () => {
    const dir = checkout(false)
    const withoutToken = await new GitCli(dir).exec(['push', 'origin', 'HEAD:refs/heads/loop/x'], {
      allowFailure: true,
    })
    expect(withoutToken.exitCode).not.toBe(0)
    const git = new GitCli(dir, { networkEnv: pushAuthEnv(server.url, TOKEN) })
    const pushed = await git.exec(['push', 'origin', 'HEAD:refs/heads/loop/x'], { allowFailure: true })
    expect(pushed.exitCode, pushed.stderr).toBe(0)
    const fetched = await git.fetch('origin', '+refs/heads/loop/x:refs/remotes/origin/loop/x')
    expect(fetched.ok).toBe(true)
    // Nothing of it was written to the repository's config along the way.
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).not.toMatch(/extraheader|x-access-token/i)
    // And a local command (what the agent's own git would run) gets no credentials from the adapter.
    const local = await git.exec(['config', '--list'])
    expect(local.stdout).not.toMatch(/extraheader/i)
  })
})
