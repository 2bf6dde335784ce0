// How many git processes one iteration starts, counted through a `git` on the PATH that logs each
// command and runs the real one. Git is almost all of an iteration's own time (docs/performance.md,
// figure 1), so a change that adds a git process to every iteration shows here as a number, not a time.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { GitCli } from '../../../src/adapters/git-cli.js'
import { nodeWorkspace } from '../../../src/adapters/node-workspace.js'
import { ChildProcessRunner } from '../../../src/adapters/process-runner.js'
import { type IterationDeps, type IterationInput, runOneIteration } from '../../../src/app/iteration.js'
import { loopConfigSchema } from '../../../src/config/loop-config.js'
import { buildLibrary } from '../../../src/domain/analysis/index.js'
import { MemoryAudit, MemoryStore } from '../../unit/app/iteration-fakes.js'
import { gitIn, tempDir } from './helpers.js'

const root = tempDir('loop-git-processes-')
const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
const originalPath = process.env.PATH ?? '/usr/bin:/bin'
const log = join(root, 'git-commands.log')
let counter = 0

beforeEach(() => {
  const shims = join(root, 'shims')
  mkdirSync(shims, { recursive: true })
  writeFileSync(join(shims, 'git'), `#!/bin/sh\nprintf '%s\\0' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`)
  chmodSync(join(shims, 'git'), 0o755)
  // The controller's git is `git` on the PATH (GitCli's default), so it finds the counting one.
  vi.stubEnv('PATH', `${shims}:${originalPath}`)
})
afterEach(() => {
  vi.unstubAllEnvs()
})

/** A project of a few files, committed, with the loop's folder kept out of git as the CLI keeps it. */
function project(): string {
  const dir = join(root, `project-${++counter}`)
  mkdirSync(join(dir, 'src'), { recursive: true })
  for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'src', `file-${i}.ts`), `export const value${i} = ${i}\n`)
  gitIn(dir, 'init', '-q', '-b', 'main')
  writeFileSync(join(dir, '.git', 'info', 'exclude'), '.loop\n')
  gitIn(dir, 'add', '-A')
  gitIn(dir, 'commit', '-q', '-m', 'project')
  return dir
}

/** The git commands logged since the log was last emptied, each its arguments after the controller's settings. */
function commandsRun(): string[] {
  const lines = readFileSync(log, 'utf8').split('\0').filter(Boolean)
  writeFileSync(log, '')
  // The controller's own `-c name=value` settings come first on every command: leave them out.
  return lines.map((line) => line.replace(/^(?:-c \S+ )+/, ''))
}

async function oneIteration(dir: string, checks: { name: string; kind: string; run: string }[]) {
  const input: IterationInput = {
    config: loopConfigSchema.parse({
      goal: 'Edit a file.',
      'max-iterations': 5,
      'flake-check': { enabled: false },
      work: { run: "printf '// edited\\n' >> src/file-3.ts && printf 'new\\n' > src/new.ts" },
      checks,
    }),
    library: buildLibrary(),
    loopId: 'count',
    cwd: dir,
    loopDir: join(dir, '.loop', 'count'),
    excludeFromCommits: ['.loop'],
    commit: true,
    identity: { name: 'loop-controller', email: 'loop@example.invalid' },
    // The user's commands find the real git: only the controller's own are counted.
    env: { PATH: originalPath },
    maxParallel: 1,
    toolVersion: '0.0.0-test',
  }
  const deps: IterationDeps = {
    store: new MemoryStore(),
    runner: new ChildProcessRunner({ redact: (text) => text }),
    git: new GitCli(dir),
    clock: { now: () => new Date(), sleep: async () => {} },
    logger: { info() {}, warning() {}, error() {}, debug() {}, group: (_name, body) => body() },
    workspace: nodeWorkspace,
    audit: new MemoryAudit(),
    redact: (text) => text,
  }
  writeFileSync(log, '')
  const result = await runOneIteration(input, deps)
  return { result, commands: commandsRun() }
}

/** Each command's git subcommand, in order: what the pinned lists below name. */
const subcommands = (commands: readonly string[]) =>
  commands.map((command) => command.split(' ').find((word) => !word.startsWith('-')) ?? command)

/** The git of one iteration whose work edits a file and adds one and whose checks pass. */
const ITERATION = [
  // The unsaved-checkpoint check, which reads HEAD before the work with the commit's message.
  'log',
  // The work tree before the work (the repository's paths are asked once, here), and its ignored files.
  'rev-parse',
  'add',
  'reset',
  'write-tree',
  'ls-files',
  // The guard: what the work changed, with the contents before, and the ignored files again.
  'add',
  'reset',
  'diff',
  'ls-tree',
  'cat-file',
  'ls-files',
  // The commit screen: HEAD and its tree, the work tree now staged in the real index (once: the commit is
  // made of that tree) against HEAD, the new paths' sizes and contents (one cat-file), the ignore rules
  // of HEAD and of the tree before the work (the same .gitignore files: one check-ignore).
  'rev-parse',
  'add',
  'reset',
  'write-tree',
  'diff-tree',
  'cat-file',
  'ls-tree',
  'check-ignore',
  'ls-tree',
  // The checkpoint commit: the screened tree committed on the screened HEAD, and the branch moved from it.
  'commit-tree',
  'update-ref',
  // The iteration record's diff stat, from the tree the commit screen staged.
  'diff',
]

it('one iteration with passing checks runs a known number of git processes, and commits the work', async () => {
  const dir = project()
  const { result, commands } = await oneIteration(dir, [{ name: 'unit', kind: 'test', run: 'true' }])
  expect(result.commit).not.toBeNull()
  expect(gitIn(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
    'src/file-3.ts',
    'src/new.ts',
  ])
  // Every command by name, so a regression says which one was added.
  expect(subcommands(commands)).toEqual(ITERATION)
  expect(commands).toHaveLength(24)
  // The real index holds the commit, as git's own commit leaves it: nothing staged, nothing left over.
  expect(gitIn(dir, 'status', '--porcelain')).toBe('')
})

it('a failing check adds one git process: the files its locations are looked for in', async () => {
  const dir = project()
  const failing = await oneIteration(dir, [{ name: 'unit', kind: 'test', run: 'echo "FAIL src/a.test.ts"; exit 1' }])
  expect(failing.result.commit).not.toBeNull()
  expect(failing.commands).toHaveLength(ITERATION.length + 1)
  expect(failing.commands).toContain('ls-files -z --cached --others --exclude-standard')
})
