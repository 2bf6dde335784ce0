/**
 * The real-project harness (issue 17, "How it is proven"): installs each project's toolchain on demand,
 * unpacks its pinned upstream tarball into a temporary git repository, applies its defect patch, runs
 * `loop-controller run` with the strict oracle agent, and reads the outcome from the loop's state, its
 * usage log and the oracle's log. The same loop runs under the controller in the tree and under the
 * bundle committed at BEFORE_COMMIT (the controller before issue 17), for the ratio the issue asks for.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { RealProject } from './projects.js'

export const HERE = resolve(import.meta.dirname)
export const ROOT = resolve(HERE, '..', '..')
/** The last bundle built before issue 17's changes ("the same loop with today's context"). */
export const BEFORE_COMMIT = '289a243'

export interface Controller {
  name: string
  /** argv that runs the CLI (the loop's arguments follow). */
  argv: string[]
}

export interface LoopOutcome {
  project: string
  controller: string
  exitCode: number | null
  status: string
  statusReason: string
  iterations: number
  maxIterations: number
  agentCalls: number
  autoFixes: number
  wallMs: number
  checksMs: number
  workMs: number
  controllerMs: number
  /** Per defect: fixed by a fix command (no agent call), by the agent (the oracle restored it), or not. */
  defects: { kind: string; file: string; fixedBy: 'fix command' | 'agent' | 'not fixed' }[]
  lintFixedWithoutAgent: boolean
  oracle: { iteration: number; strategy: string | null; failing: string[]; actions: OracleAction[] }[]
  repo: string
}

interface OracleAction {
  file: string
  restored: string
  why: string[]
  note?: string
}

/** Whether a command is on the PATH. */
function has(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { env, stdio: 'ignore' }).status === 0
}

let aptUpdated = false

/**
 * Makes the project's tools available, installing them from Debian's packages or the npm registry when
 * allowed (REAL_PROJECTS_INSTALL=0 forbids it; REAL_PROJECTS_APT=0 forbids Debian's alone). Returns the environment for the loop, or the reason the
 * project must be skipped.
 */
export function prepareToolchain(project: RealProject): { env: NodeJS.ProcessEnv; nodeModules?: string } | string {
  const install = process.env.REAL_PROJECTS_INSTALL !== '0'
  const extraPath: string[] = []
  const missing = () => project.commands.filter((command) => !has(command))
  const pythonOk = (python: string) =>
    !project.pythonModules ||
    spawnSync(python, ['-c', `import ${project.pythonModules.join(', ')}`], { stdio: 'ignore' }).status === 0
  const needsApt =
    project.apt.length > 0 && (missing().length > 0 || !(pythonOk('python3') || pythonOk('/usr/bin/python3')))
  if (needsApt) {
    if (!install) return `missing ${missing().join(', ') || 'python modules'}; REAL_PROJECTS_INSTALL=0`
    // CI keeps its time: Debian's toolchains are used where the machine has them, not installed.
    if (process.env.REAL_PROJECTS_APT === '0')
      return `missing ${missing().join(', ') || 'python modules'}; REAL_PROJECTS_APT=0 (no Debian installs)`
    if (!has('apt-get') || process.getuid?.() !== 0) return `missing ${missing().join(', ')} and no apt-get as root`
    if (!aptUpdated) {
      spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore' })
      aptUpdated = true
    }
    const result = spawnSync('apt-get', ['install', '-y', '-q', ...project.apt], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      encoding: 'utf8',
    })
    if (result.status !== 0) return `apt-get install ${project.apt.join(' ')} failed: ${result.stderr.slice(-300)}`
  }
  const stillMissing = missing()
  if (stillMissing.length > 0) return `missing ${stillMissing.join(', ')}`
  if (project.pythonModules && !pythonOk('python3')) {
    if (!pythonOk('/usr/bin/python3')) return `python3 cannot import ${project.pythonModules.join(', ')}`
    // Debian's packages serve Debian's python: put it first, as a CI job with `apt-get install` would have it.
    const shims = join(tmpdir(), 'loop-real-projects-python')
    mkdirSync(shims, { recursive: true })
    for (const name of ['python3', 'python']) {
      if (!existsSync(join(shims, name))) symlinkSync('/usr/bin/python3', join(shims, name))
    }
    extraPath.push(shims)
  }
  let nodeModules: string | undefined
  if (project.npm) {
    nodeModules = npmTools(project.name, project.npm)
    if (!nodeModules.startsWith('/')) return nodeModules
  }
  const env = loopEnv(extraPath)
  return nodeModules ? { env, nodeModules } : { env }
}

/**
 * npm packages (pinned in `devDependencies`) installed into `~/.cache/loop-real-projects/<name>` (or
 * `$REAL_PROJECTS_CACHE`), never into the project's own node_modules: the path of their node_modules,
 * or the reason they cannot be had (REAL_PROJECTS_INSTALL=0, npm failing).
 */
export function npmTools(name: string, devDependencies: Record<string, string>): string {
  const cache = join(process.env.REAL_PROJECTS_CACHE ?? join(homedir(), '.cache', 'loop-real-projects'), name)
  const manifest = JSON.stringify({ name: `${name}-deps`, private: true, devDependencies })
  const stamp = join(cache, 'package.json')
  if (!existsSync(join(cache, 'node_modules')) || readIf(stamp) !== manifest) {
    if (process.env.REAL_PROJECTS_INSTALL === '0') return 'npm dependencies not installed; REAL_PROJECTS_INSTALL=0'
    mkdirSync(cache, { recursive: true })
    writeFileSync(stamp, manifest)
    const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: cache,
      encoding: 'utf8',
    })
    if (result.status !== 0) return `npm install failed: ${result.stderr.slice(-300)}`
  }
  return join(cache, 'node_modules')
}

/** The environment the loops run in: plain output, no Go downloads, not marked as CI. */
export function loopEnv(extraPath: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [...extraPath, process.env.PATH].join(':'),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    GOPROXY: 'off',
    GOFLAGS: '-mod=mod',
  }
  delete env.CI
  return env
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): void {
  execFileSync('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'real-projects',
      GIT_AUTHOR_EMAIL: 'real-projects@example.invalid',
      GIT_COMMITTER_NAME: 'real-projects',
      GIT_COMMITTER_EMAIL: 'real-projects@example.invalid',
    },
  })
}

/**
 * The pristine copy (upstream, normalized) and a git repository with the defects applied and the loop
 * config committed. The pristine copy lives apart from the repository; the defect patch stays here.
 */
export function prepareRepo(
  project: RealProject,
  toolchain: { env: NodeJS.ProcessEnv; nodeModules?: string },
  workDir: string,
  /** Rewrites the project's loop.yml before it is committed (a bench compares two declarations). */
  config: (yaml: string) => string = (yaml) => yaml,
  /** Only the defects in these files (all of them when absent). */
  defectFiles?: readonly string[],
): { repo: string; pristine: string } {
  const pristine = join(workDir, 'pristine')
  const repo = join(workDir, 'repo')
  mkdirSync(pristine, { recursive: true })
  execFileSync('tar', ['-xzf', join(HERE, project.name, `${project.name}.tar.gz`), '-C', pristine])
  if (toolchain.nodeModules) symlinkSync(toolchain.nodeModules, join(pristine, 'node_modules'))
  const env = { ...toolchain.env, PATH: `${join(pristine, 'node_modules', '.bin')}:${toolchain.env.PATH}` }
  for (const command of project.normalize) sh(command, pristine, env)
  cpSync(pristine, repo, { recursive: true, verbatimSymlinks: true })
  git(repo, 'init', '-q', '-b', 'main')
  const only = (defectFiles ?? []).map((file) => `--include=${file}`)
  git(repo, 'apply', ...only, join(HERE, project.name, 'defects.patch'))
  mkdirSync(join(repo, '.github'), { recursive: true })
  writeFileSync(join(repo, '.github', 'loop.yml'), config(readFileSync(join(HERE, project.name, 'loop.yml'), 'utf8')))
  // The checks' JUnit reports (the shard recipes write reports/junit-<i>.xml) are never committed.
  writeFileSync(join(repo, '.gitignore'), `${readIf(join(repo, '.gitignore'))}\nnode_modules\nreports/\n`)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', `${project.name} at ${project.commit.slice(0, 7)} with four defects`)
  return { repo, pristine }
}

function readIf(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : ''
}

/** The controller in the tree (its TypeScript source, run by tsx, or `dist` when REAL_PROJECTS_CONTROLLER=dist). */
export function currentController(): Controller {
  if (process.env.REAL_PROJECTS_CONTROLLER === 'dist')
    return { name: 'tree dist', argv: [process.execPath, join(ROOT, 'dist', 'cli', 'index.js')] }
  return { name: 'tree src', argv: [join(ROOT, 'node_modules', '.bin', 'tsx'), join(ROOT, 'src', 'cli-entry.ts')] }
}

/** The CLI bundle committed at BEFORE_COMMIT, unpacked into a temporary directory; null if git lacks it. */
export function beforeController(): Controller | string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-before-'))
  try {
    const archive = execFileSync('git', ['archive', BEFORE_COMMIT, 'dist/cli'], { cwd: ROOT, maxBuffer: 1 << 28 })
    execFileSync('tar', ['-x', '-C', dir], { input: archive })
  } catch (error) {
    return `the bundle at ${BEFORE_COMMIT} is not in this clone's history (${String(error).split('\n')[0]})`
  }
  return { name: `bundle ${BEFORE_COMMIT}`, argv: [process.execPath, join(dir, 'dist', 'cli', 'index.js')] }
}

/** Runs the loop to its end under one controller and reads what happened. */
export async function runLoop(
  project: RealProject,
  controller: Controller,
  toolchain: { env: NodeJS.ProcessEnv; nodeModules?: string },
  options: {
    log?: (line: string) => void
    timeoutMs?: number
    config?: (yaml: string) => string
    /** Only the defects in these files (all four when absent). */
    defectFiles?: readonly string[]
  } = {},
): Promise<LoopOutcome> {
  const workDir = mkdtempSync(join(tmpdir(), `loop-real-${project.name}-`))
  const { repo, pristine } = prepareRepo(project, toolchain, workDir, options.config, options.defectFiles)
  const oracleLog = join(workDir, 'oracle.jsonl')
  // As `npx loop-controller run` would: the project's node_modules/.bin first on the PATH.
  const env: NodeJS.ProcessEnv = {
    ...toolchain.env,
    PATH: `${join(repo, 'node_modules', '.bin')}:${toolchain.env.PATH}`,
    ORACLE_AGENT: join(HERE, 'oracle-agent.mjs'),
    ORACLE_PRISTINE: pristine,
    ORACLE_LOG: oracleLog,
  }
  const started = performance.now()
  const exitCode = await runController(controller, repo, env, options)
  const wallMs = performance.now() - started
  const state = readState(repo)
  const usage: { iteration: number; what: string; durationMs: number }[] = state?.usage?.log ?? []
  // The usage log may record one work call twice (the step and the outcome): count each iteration's once.
  const workByIteration = new Map<number, number>()
  for (const entry of usage.filter((u) => u.what === 'work' || u.what.startsWith('work ')))
    workByIteration.set(entry.iteration, Math.max(workByIteration.get(entry.iteration) ?? 0, entry.durationMs))
  const workMs = sum([...workByIteration.values()])
  // A verification's entry is the wall time of its matrix (the longest check).
  const checksMs = sum(usage.filter((u) => u.what === 'verify').map((u) => u.durationMs))
  const oracle = existsSync(oracleLog)
    ? readFileSync(oracleLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : []
  const touched = new Set<string>(
    oracle.flatMap((call: { actions: OracleAction[] }) =>
      call.actions.filter((a) => a.restored !== 'nothing').map((a) => a.file),
    ),
  )
  const defects = project.defects.map((defect) => {
    const fixed = sameAsPristineOrPasses(defect, repo, pristine, env)
    const fixedBy: 'fix command' | 'agent' | 'not fixed' = !fixed
      ? 'not fixed'
      : touched.has(defect.file)
        ? 'agent'
        : 'fix command'
    return { kind: defect.kind, file: defect.file, fixedBy }
  })
  return {
    project: project.name,
    controller: controller.name,
    exitCode,
    status: state?.status ?? 'no state',
    statusReason: state?.statusReason ?? '',
    iterations: state?.iteration ?? 0,
    maxIterations: state?.maxIterations ?? 0,
    agentCalls: state?.metrics?.workCalls ?? 0,
    autoFixes: state?.metrics?.autoFixes ?? 0,
    wallMs,
    checksMs,
    workMs,
    controllerMs: Math.max(0, wallMs - checksMs - workMs),
    defects,
    lintFixedWithoutAgent: defects.filter((d) => d.kind === 'lint').every((d) => d.fixedBy === 'fix command'),
    oracle,
    repo,
  }
}

/** Runs `loop-controller run` in `repo` to its end (SIGTERM after `timeoutMs`); its exit code. */
export function runController(
  controller: Controller,
  repo: string,
  env: NodeJS.ProcessEnv,
  options: { log?: (line: string) => void; timeoutMs?: number } = {},
): Promise<number | null> {
  const [command, ...args] = controller.argv as [string, ...string[]]
  return new Promise<number | null>((resolveExit) => {
    const child = spawn(command, [...args, 'run'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 15 * 60_000)
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) options.log?.(line)
    }
    child.stdout.on('data', forward)
    child.stderr.on('data', forward)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolveExit(code)
    })
  })
}

/**
 * A defect is fixed when its file is back to the pristine text or when the check that reports it passes
 * again (a formatter or `--fix` may write other, equally valid text). Logic and type defects count as fixed
 * only when the file is pristine again.
 */
function sameAsPristineOrPasses(
  defect: RealProject['defects'][number],
  repo: string,
  pristine: string,
  env: NodeJS.ProcessEnv,
): boolean {
  if (readIf(join(repo, defect.file)) === readIf(join(pristine, defect.file))) return true
  if (defect.kind !== 'lint') return false
  const config = readFileSync(join(repo, '.github', 'loop.yml'), 'utf8')
  const run = new RegExp(`- name: ${defect.check}\\n(?:\\s+\\w+:.*\\n)*?\\s+run: (.+)\\n`).exec(config)?.[1]
  if (!run) return false
  return spawnSync('sh', ['-c', run], { cwd: repo, env, stdio: 'ignore' }).status === 0
}

// biome-ignore lint/suspicious/noExplicitAny: the state file is read loosely, across controller versions.
export function readState(repo: string): any {
  const dir = join(repo, '.loop')
  if (!existsSync(dir)) return null
  for (const loop of readdirSync(dir)) {
    const path = join(dir, loop, 'loop-state.json')
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'))
  }
  return null
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0)
}
