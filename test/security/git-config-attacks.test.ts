/**
 * Issue 15, point 1: whatever config the agent writes (the repository's `.git/config`, a file it
 * includes, `$HOME/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, `.gitattributes`, a new `.git`) never
 * makes the controller's git start a program or send the push token anywhere but the remote the trusted
 * checkout fetched from. Each test plants one attack in a real repository after the controller's git
 * adapter was made (as the action makes it, before the work command runs), then runs the controller's
 * operation that would trigger it, and asserts that the planted program never ran and no token left.
 */
import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { GitCli } from '../../src/adapters/git-cli.js'
import { pushAuthEnv, pushLoopBranch } from '../../src/app/loop-branch.js'
import { GitServer } from '../sandbox/git-server.js'

const TOKEN = 'ghs_plantedConfigAttack0123456789abcdefABCD'
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')
const identity = { name: 'loop-controller', email: 'loop@example.invalid' }
const auth = ['-c', `http.extraheader=AUTHORIZATION: basic ${BASIC}`]
let server: GitServer
let remote: string

/** The agent's own server: answers 401 to everything and records who asked with which credentials. */
interface Listener {
  url: string
  seen: string[]
  server: Server
}
let agentServer: Listener

/** Plain git, as the test (or the agent's own git) runs it. */
const sh = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** Git that talks to the loopback server: asynchronous, since the server answers from this very process. */
const netGit = async (cwd: string, ...args: string[]) => {
  await promisify(execFile)('git', args, { cwd, encoding: 'utf8' })
}

beforeAll(async () => {
  server = await GitServer.start({ token: TOKEN })
  remote = await server.createRepository('octo/app.git')
  const seed = mkdtempSync(join(tmpdir(), 'loop-seed-'))
  sh(seed, 'init', '-q', '-b', 'main')
  writeFileSync(join(seed, 'a.txt'), 'one\ntwo\nthree\n')
  sh(seed, 'add', '-A')
  sh(seed, 'commit', '-qm', 'seed')
  await netGit(seed, ...auth, 'push', '-q', remote, 'HEAD:refs/heads/main')
  agentServer = await new Promise<Listener>((resolve) => {
    const seen: string[] = []
    const http = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? req.headers['proxy-authorization'] ?? ''}`)
      res.writeHead(401, { 'www-authenticate': 'Basic realm="agent"' })
      res.end()
    })
    http.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen, server: http }),
    )
  })
})
afterAll(async () => {
  agentServer.server.closeAllConnections()
  await new Promise((resolve) => agentServer.server.close(resolve))
  await server.close()
})

const savedEnv = { ...process.env }
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name]
  Object.assign(process.env, savedEnv)
  agentServer.seen.length = 0
})

interface Scene {
  /** The work tree: a clone of the loopback remote, checked out without persisted credentials. */
  dir: string
  /** The controller's git adapter, made before the agent ran, with the push token for the trusted host. */
  git: GitCli
  /** The agent's program: writes its environment into `ran-*` files beside the work tree, then copies stdin. */
  evil: string
  base: string
}

async function scene(): Promise<Scene> {
  const base = mkdtempSync(join(tmpdir(), 'loop-attack-'))
  const dir = join(base, 'work')
  await netGit(base, ...auth, 'clone', '-q', remote, dir)
  const git = new GitCli(dir, { networkEnv: pushAuthEnv(server.url, TOKEN) })
  const evil = join(base, 'evil')
  writeFileSync(evil, `#!/bin/sh\nenv > "${base}/ran-$$"\ncat\n`)
  chmodSync(evil, 0o755)
  return { dir, git, evil, base }
}

/** The agent's hand: `git config` in the work tree, as a work command would run it. */
const plantConfig = (dir: string, ...pairs: [string, string][]) => {
  for (const [key, value] of pairs) sh(dir, 'config', '--add', key, value)
}

/** Runs a controller operation; after the fix some are refused, and that is fine, they must just not leak. */
async function attempt(operation: () => Promise<unknown>): Promise<void> {
  await operation().catch(() => undefined)
}

/** Nothing of the agent's ran, and no request the agent could see carried the token. */
function expectNothingRan(s: Scene): void {
  const ran = readdirSync(s.base).filter((name) => name.startsWith('ran-'))
  const leaked = ran.map((name) => readFileSync(join(s.base, name), 'utf8')).join('\n')
  expect(leaked).not.toContain(BASIC)
  expect(ran, `the planted program ran ${ran.length} time(s)`).toEqual([])
  expect(agentServer.seen.join('\n')).not.toContain(BASIC)
}

/** A commit of the remote's `main` that the work tree does not have yet (each one new: tests share the remote). */
let moves = 0
async function moveRemote(file: string, content: string): Promise<void> {
  const other = mkdtempSync(join(tmpdir(), 'loop-other-'))
  await netGit(other, ...auth, 'clone', '-q', remote, other)
  writeFileSync(join(other, file), `${content}move ${++moves}\n`)
  sh(other, 'add', '-A')
  sh(other, 'commit', '-qm', `other: ${file}`)
  await netGit(other, ...auth, 'push', '-q', 'origin', 'HEAD:refs/heads/main')
}

describe('config the agent writes never runs a program in the controller’s git', () => {
  it('a clean filter named in .gitattributes does not run on the checkpoint commit', async () => {
    const s = await scene()
    writeFileSync(join(s.dir, '.gitattributes'), '* filter=x\n')
    plantConfig(s.dir, ['filter.x.clean', s.evil], ['filter.x.required', 'true'])
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })

  it('a long-running filter process named in .git/info/attributes does not start', async () => {
    const s = await scene()
    writeFileSync(join(s.dir, '.git', 'info', 'attributes'), '* filter=x\n')
    plantConfig(s.dir, ['filter.x.process', s.evil])
    writeFileSync(join(s.dir, 'b.txt'), 'new\n')
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    await attempt(() => s.git.changedPaths(null))
    expectNothingRan(s)
  })

  it('a smudge filter does not run when the controller checks out', async () => {
    const s = await scene()
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await s.git.commitAll('loop: checkpoint', identity)
    writeFileSync(join(s.dir, '.git', 'info', 'attributes'), '* filter=x\n')
    plantConfig(s.dir, ['filter.x.smudge', s.evil])
    await attempt(() => s.git.checkoutBranch('back', 'HEAD~1'))
    expectNothingRan(s)
  })

  it('a textconv driver does not run when the controller reads the diff', async () => {
    const s = await scene()
    writeFileSync(join(s.dir, '.gitattributes'), '* diff=x\n')
    plantConfig(s.dir, ['diff.x.textconv', s.evil])
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.diff(null))
    expectNothingRan(s)
  })

  it('diff.external does not run when the controller reads the diff', async () => {
    const s = await scene()
    plantConfig(s.dir, ['diff.external', s.evil])
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.diff(null))
    expectNothingRan(s)
  })

  it('GIT_EXTERNAL_DIFF inherited by the controller does not run either', async () => {
    const s = await scene()
    process.env.GIT_EXTERNAL_DIFF = s.evil
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.diff(null))
    expectNothingRan(s)
  })

  it('a pager or an editor is never started (guard: the controller never asks git for one)', async () => {
    const s = await scene()
    plantConfig(s.dir, ['core.pager', s.evil], ['pager.diff', s.evil], ['core.editor', s.evil])
    plantConfig(s.dir, ['sequence.editor', s.evil], ['rebase.autoSquash', 'true'])
    await moveRemote('c.txt', 'theirs\n')
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.commitAll('fixup! seed', identity))
    await attempt(() => s.git.diff(null))
    await attempt(() => pushLoopBranch(s.git, { branch: 'main', identity }))
    expectNothingRan(s)
  })

  it('a merge driver does not run when the controller rebases onto a moved remote', async () => {
    const s = await scene()
    await moveRemote('a.txt', 'one\ntwo\nthree\ntheirs\n')
    writeFileSync(join(s.dir, '.git', 'info', 'attributes'), '* merge=x\n')
    plantConfig(s.dir, ['merge.x.driver', `${s.evil} %O %A %B`])
    writeFileSync(join(s.dir, 'a.txt'), 'ours\none\ntwo\nthree\n')
    await s.git.commitAll('loop: checkpoint', identity)
    await attempt(() => pushLoopBranch(s.git, { branch: 'main', identity }))
    expectNothingRan(s)
  })

  it('core.askPass does not run when a remote asks for credentials', async () => {
    const s = await scene()
    plantConfig(s.dir, ['core.askPass', s.evil], ['remote.origin.url', `${agentServer.url}/octo/app.git`])
    await attempt(() => s.git.fetch('origin', 'main'))
    expectNothingRan(s)
  })

  it('a signing program does not run when the controller rebases or reads the log', async () => {
    const s = await scene()
    await moveRemote('c.txt', 'theirs\n')
    plantConfig(s.dir, ['commit.gpgSign', 'true'], ['gpg.program', s.evil], ['log.showSignature', 'true'])
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    await attempt(() => pushLoopBranch(s.git, { branch: 'main', identity }))
    await attempt(() => s.git.exec(['log', '-1']))
    expectNothingRan(s)
  })

  it('core.alternateRefsCommand does not run when the controller fetches', async () => {
    const s = await scene()
    await moveRemote('c.txt', 'theirs\n')
    writeFileSync(
      join(s.dir, '.git', 'objects', 'info', 'alternates'),
      `${server.repositoryPath('octo/app.git')}/objects\n`,
    )
    plantConfig(s.dir, ['core.alternateRefsCommand', s.evil])
    await attempt(() => s.git.fetch('origin', 'main'))
    expectNothingRan(s)
  })

  it('uploadpack.packObjectsHook in a $HOME/.gitconfig does not run on a fetch from a local remote', async () => {
    const s = await scene()
    const home = join(s.base, 'home')
    mkdirSync(home)
    writeFileSync(join(home, '.gitconfig'), `[uploadpack]\n\tpackObjectsHook = ${s.evil}\n`)
    Object.assign(process.env, { HOME: home })
    delete process.env.GIT_CONFIG_GLOBAL
    await attempt(() => s.git.fetch(server.repositoryPath('octo/app.git'), 'main'))
    expectNothingRan(s)
  })

  it('an ext:: remote URL, with protocol.ext.allow, does not run its command (nor see the token)', async () => {
    const s = await scene()
    plantConfig(s.dir, ['protocol.ext.allow', 'always'], ['remote.origin.url', `ext::${s.evil}`])
    await attempt(() => s.git.fetch('origin', 'main'))
    await attempt(() => pushLoopBranch(s.git, { branch: 'loop/ext', identity }))
    expectNothingRan(s)
  })

  it('include.path pulling in another config file brings no filter with it', async () => {
    const s = await scene()
    const included = join(s.base, 'included.config')
    writeFileSync(included, `[filter "x"]\n\tclean = ${s.evil}\n`)
    writeFileSync(join(s.dir, '.gitattributes'), '* filter=x\n')
    plantConfig(s.dir, ['include.path', included])
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })

  it('includeIf pulling in another config file brings no filter with it', async () => {
    const s = await scene()
    const included = join(s.base, 'included.config')
    writeFileSync(included, `[filter "x"]\n\tclean = ${s.evil}\n`)
    writeFileSync(join(s.dir, '.gitattributes'), '* filter=x\n')
    plantConfig(s.dir, [`includeIf.gitdir:${s.dir}/.git.path`, included])
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })

  it('a $HOME/.gitconfig written by the agent is not read', async () => {
    const s = await scene()
    const home = join(s.base, 'home')
    mkdirSync(home)
    writeFileSync(join(home, '.gitconfig'), `[filter "x"]\n\tclean = ${s.evil}\n[core]\n\tfsmonitor = ${s.evil}\n`)
    writeFileSync(join(s.dir, '.gitattributes'), '* filter=x\n')
    Object.assign(process.env, { HOME: home })
    delete process.env.GIT_CONFIG_GLOBAL
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })

  it('a $XDG_CONFIG_HOME/git/config written by the agent is not read', async () => {
    const s = await scene()
    const xdg = join(s.base, 'xdg')
    mkdirSync(join(xdg, 'git'), { recursive: true })
    writeFileSync(join(xdg, 'git', 'config'), `[filter "x"]\n\tclean = ${s.evil}\n`)
    writeFileSync(join(xdg, 'git', 'attributes'), '* filter=x\n')
    Object.assign(process.env, { XDG_CONFIG_HOME: xdg, HOME: join(s.base, 'nohome') })
    delete process.env.GIT_CONFIG_GLOBAL
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })

  it('a .git replaced by a pointer to the agent’s own repository is refused', async () => {
    const s = await scene()
    const theirs = join(s.base, 'theirs.git')
    sh(s.base, 'clone', '-q', '--bare', s.dir, theirs)
    plantConfig(theirs, ['filter.x.clean', s.evil], ['core.bare', 'false'])
    renameSync(join(s.dir, '.git'), join(s.base, 'moved.git'))
    writeFileSync(join(s.dir, '.git'), `gitdir: ${theirs}\n`)
    writeFileSync(join(s.dir, '.gitattributes'), '* filter=x\n')
    await attempt(() => s.git.commitAll('loop: checkpoint', identity))
    expectNothingRan(s)
  })
})

describe('the remote the controller fetches from and pushes to is the trusted checkout’s', () => {
  it('remote.origin.url rewritten to the agent’s server: fetch and push still go to the trusted remote', async () => {
    const s = await scene()
    plantConfig(s.dir, ['remote.origin.url', `${agentServer.url}/octo/app.git`])
    writeFileSync(join(s.dir, 'a.txt'), 'changed\n')
    await s.git.commitAll('loop: checkpoint', identity)
    const pushed = await pushLoopBranch(s.git, { branch: 'loop/rewritten', identity })
    expect(agentServer.seen).toEqual([])
    expect(pushed.kind).toBe('pushed')
    expectNothingRan(s)
  })

  it('url.<agent>.insteadOf for the trusted remote does not redirect the push', async () => {
    const s = await scene()
    plantConfig(s.dir, [`url.${agentServer.url}/.insteadOf`, `${server.url}/`])
    const pushed = await pushLoopBranch(s.git, { branch: 'loop/instead', identity })
    expect(agentServer.seen).toEqual([])
    expect(pushed.kind).toBe('pushed')
  })

  it('an http.proxy of the agent never sees the token', async () => {
    const s = await scene()
    plantConfig(s.dir, ['http.proxy', agentServer.url], [`http.${server.url}/.proxy`, agentServer.url])
    await attempt(() => pushLoopBranch(s.git, { branch: 'loop/proxied', identity }))
    expect(agentServer.seen).toEqual([])
  })

  it('an ssh remote is not a transport the controller uses', async () => {
    const s = await scene()
    plantConfig(s.dir, ['core.sshCommand', s.evil], ['remote.origin.pushurl', 'ssh://git@127.0.0.1/octo/app.git'])
    process.env.GIT_SSH_COMMAND = s.evil
    await attempt(() => pushLoopBranch(s.git, { branch: 'loop/ssh', identity }))
    expectNothingRan(s)
  })
})

describe('normal operation under the sealed config', () => {
  it('commits, fetches and pushes to the trusted remote; the controller’s own config writes stay', async () => {
    const s = await scene()
    const before = readFileSync(join(s.dir, '.git', 'config'), 'utf8')
    // The agent's harmless edit (its own identity) is undone too: the controller's git reads only its config.
    plantConfig(s.dir, ['user.name', 'agent'])
    // Other tests push to the same remote's main: a content of this test's own.
    writeFileSync(join(s.dir, 'a.txt'), `sealed ${s.base}\n`)
    const commit = await s.git.commitAll('loop: checkpoint', identity)
    expect(commit).toMatch(/^[0-9a-f]{40}$/)
    expect(readFileSync(join(s.dir, '.git', 'config'), 'utf8')).toBe(before)
    expect((await s.git.fetch('origin', 'main')).ok).toBe(true)
    await moveRemote('c.txt', 'theirs\n')
    const pushed = await pushLoopBranch(s.git, { branch: 'main', identity })
    expect(pushed).toMatchObject({ kind: 'pushed', attempts: 2 })
    expect(
      execFileSync('git', ['--git-dir', server.repositoryPath('octo/app.git'), 'log', '-1', '--format=%s', 'main'])
        .toString()
        .trim(),
    ).toBe('loop: checkpoint')
    await s.git.checkoutBranch('loop/own', 'HEAD')
    await s.git.exec(['config', 'loop.mine', 'kept'])
    expect(await s.git.tryGetConfig('loop.mine')).toBe('kept')
    expectNothingRan(s)
  })
})
