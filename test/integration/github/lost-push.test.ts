// A job lost between its save and its push (issue 13, point 8): the state names a commit the loop's
// branch never received. The next job, on a fresh clone, fetches the branch and finds the checkpoint
// missing: the state forgets it, says so in the journey, and the next iteration redoes the work from
// the branch as it is. Real git (a bare remote and two clones), real commands, state in memory.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { nodeWorkspace } from '../../../src/adapters/node-workspace.js'
import { ChildProcessRunner } from '../../../src/adapters/process-runner.js'
import type { IterationDeps, IterationInput } from '../../../src/app/iteration.js'
import { runOneIteration } from '../../../src/app/iteration.js'
import { checkoutLoopBranch, pushLoopBranch } from '../../../src/app/loop-branch.js'
import { loopConfigSchema } from '../../../src/config/loop-config.js'
import { buildLibrary } from '../../../src/domain/analysis/index.js'
import { MemoryAudit, MemoryStore } from '../../unit/app/iteration-fakes.js'

const identity = { name: 'loop-controller', email: 'loop@example.invalid' }
let root = ''

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lost-push-'))
  git(root, 'init', '-q', '--bare', 'remote.git')
  git(root, 'clone', '-q', 'remote.git', 'seed')
  const seed = join(root, 'seed')
  writeFileSync(join(seed, 'README.md'), 'a project\n')
  git(seed, 'add', '-A')
  git(seed, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-q', '-m', 'initial')
  git(seed, 'push', '-q', 'origin', 'HEAD:refs/heads/main')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A job on a fresh runner: a new clone, the loop's branch fetched and checked out. */
async function job(name: string, store: MemoryStore, audit: MemoryAudit) {
  git(root, 'clone', '-q', '-b', 'main', 'remote.git', name)
  const cwd = join(root, name)
  const gitCli = new GitCli(cwd)
  await checkoutLoopBranch(gitCli, 'loop/lost')
  const input: IterationInput = {
    config: loopConfigSchema.parse({
      goal: 'Three lines.',
      'max-iterations': 5,
      'flake-check': { enabled: false },
      work: { run: 'echo line >> lines.txt' },
      checks: [{ name: 'lines', kind: 'test', run: 'test "$(wc -l < lines.txt)" -ge 3' }],
    }),
    library: buildLibrary(),
    loopId: 'lost',
    cwd,
    loopDir: join(root, `${name}-loopdir`),
    excludeFromCommits: [],
    commit: true,
    identity,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    maxParallel: 1,
    toolVersion: '0.0.0-test',
    branchFromRemote: 'loop/lost',
  }
  const warnings: string[] = []
  const deps: IterationDeps = {
    store,
    runner: new ChildProcessRunner({ redact: (text) => text }),
    git: gitCli,
    clock: { now: () => new Date(), sleep: async () => {} },
    logger: { info() {}, warning: (m) => warnings.push(m), error() {}, debug() {}, group: (_n, body) => body() },
    workspace: nodeWorkspace,
    audit,
    redact: (text) => text,
  }
  return { cwd, gitCli, warnings, run: () => runOneIteration(input, deps) }
}

describe('a job lost between its save and its push', () => {
  it('leaves a checkpoint the branch never got: the next job forgets it, says so, and redoes the work', async () => {
    const store = new MemoryStore()
    const audit = new MemoryAudit()

    const first = await job('runner-1', store, audit)
    const one = await first.run()
    expect(one.commit).not.toBeNull()
    await pushLoopBranch(first.gitCli, { branch: 'loop/lost', identity })
    const two = await first.run()
    expect(two.state.checkpoints.map((c) => c.iteration)).toEqual([1, 2])
    // The runner is lost here: iteration 2 is saved, its commit never pushed.

    const second = await job('runner-2', store, audit)
    expect(readFileSync(join(second.cwd, 'lines.txt'), 'utf8')).toBe('line\n')
    const three = await second.run()
    const lost = audit.journey.filter((e) => e.type === 'commit-lost')
    expect(lost.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^iteration 2's commit [0-9a-f]{12} never reached loop\/lost \(its job was lost before the push\)/,
      ),
    ])
    expect(second.warnings).toEqual([lost[0]?.message])
    // Iteration 3 ran on the branch as the remote has it (one line), and the state names only what exists.
    expect(three.state.iteration).toBe(3)
    expect(three.state.checkpoints.map((c) => c.iteration)).toEqual([1, 3])
    expect(readFileSync(join(second.cwd, 'lines.txt'), 'utf8')).toBe('line\nline\n')
  }, 60_000)

  it('keeps a checkpoint whose commit was rebased by the push (same subject, new commit)', async () => {
    const store = new MemoryStore()
    const audit = new MemoryAudit()
    const first = await job('runner-1', store, audit)
    await first.run()
    // Someone else pushed to the loop's branch first: the push rebases, the commit id changes.
    git(root, 'clone', '-q', 'remote.git', 'other')
    const other = join(root, 'other')
    git(other, 'checkout', '-q', '-b', 'loop/lost', 'origin/main')
    writeFileSync(join(other, 'NOTE.md'), 'a note\n')
    git(other, 'add', '-A')
    git(other, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-q', '-m', 'a note')
    git(other, 'push', '-q', 'origin', 'loop/lost')
    expect((await pushLoopBranch(first.gitCli, { branch: 'loop/lost', identity })).kind).toBe('pushed')

    const second = await job('runner-2', store, audit)
    await second.run()
    expect(audit.journey.filter((e) => e.type === 'commit-lost')).toEqual([])
  }, 60_000)
})
