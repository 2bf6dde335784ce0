/**
 * Shared pieces of the reliability suite: a small, fast loop in a temporary git repository (a scripted
 * agent repairs one seeded defect per iteration; two checks judge it) and a way to run the bundled CLI
 * (`dist/cli/index.js`) against it, as a user would.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const CLI = join(ROOT, 'dist', 'cli', 'index.js')

/** Builds `dist/cli/index.js` when it is missing (it is not committed). */
export function ensureCliBundle(): string {
  if (!existsSync(CLI)) {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'ncc'), ['build', 'src/cli-entry.ts', '-o', 'dist/cli', '-t'], {
      cwd: ROOT,
      stdio: 'pipe',
    })
  }
  return CLI
}

export interface QuickLoopOptions {
  /** How many seeded defects (one iteration each). Default 3. */
  defects?: number
  /** How long each check sleeps before judging, so a kill can land during a check. Default 120 ms. */
  checkMs?: number
  /** Replaces the work command. */
  work?: string
  /** Extra config lines appended to `.github/loop.yml`. */
  extraConfig?: string
  /** Replaces the checks section of the config. */
  checks?: string
  maxIterations?: number
}

const AGENT = `// Scripted agent: repairs the first part that is still broken, records what it was handed.
import { readdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs'
const dir = 'src/parts'
for (const name of readdirSync(dir).sort()) {
  const file = dir + '/' + name
  if (readFileSync(file, 'utf8').includes('broken')) {
    writeFileSync(file, 'fixed\\n')
    console.log('agent: repaired ' + file + ' in iteration ' + process.env.LOOP_ITERATION)
    break
  }
}
if (process.env.LOOP_OUTPUT_FILE) writeFileSync(process.env.LOOP_OUTPUT_FILE, JSON.stringify({ usage: { tokens: 100 } }))
`

const CHECK = `// The unit check: fails on the first part that is still broken, with an assertion failure.
import { readdirSync, readFileSync } from 'node:fs'
await new Promise((r) => setTimeout(r, Number(process.env.QUICK_CHECK_MS ?? 120)))
for (const name of readdirSync('src/parts').sort()) {
  if (readFileSync('src/parts/' + name, 'utf8').includes('broken')) {
    console.log('not ok 1 - part ' + name)
    console.log('AssertionError [ERR_ASSERTION]: expected src/parts/' + name + ' to be fixed')
    console.log('    at test/' + name.replace('.txt', '') + '.test.js:3:5')
    process.exit(1)
  }
}
console.log('ok 1 - all parts fixed')
`

const LINT = `await new Promise((r) => setTimeout(r, Number(process.env.QUICK_CHECK_MS ?? 120)))
console.log('lint: 0 problems')
`

/** Writes the quick loop into a fresh temporary git repository and returns its path. */
export function createQuickLoop(options: QuickLoopOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-reliability-'))
  const defects = options.defects ?? 3
  mkdirSync(join(dir, 'src', 'parts'), { recursive: true })
  mkdirSync(join(dir, '.github'), { recursive: true })
  // Letters, not digits: failure signatures normalise numbers, and each part must fail differently.
  const names = [
    'alpha',
    'bravo',
    'charlie',
    'delta',
    'echo',
    'foxtrot',
    'golf',
    'hotel',
    'india',
    'juliet',
    'kilo',
    'lima',
  ]
  for (let i = 0; i < defects; i++) writeFileSync(join(dir, 'src', 'parts', `${names[i]}.txt`), 'broken\n')
  writeFileSync(join(dir, 'agent.mjs'), AGENT)
  writeFileSync(join(dir, 'check.mjs'), CHECK)
  writeFileSync(join(dir, 'lint.mjs'), LINT)
  const checks =
    options.checks ??
    `checks:
  - name: unit
    kind: test
    run: node check.mjs
  - name: lint
    kind: lint
    run: node lint.mjs
`
  writeFileSync(
    join(dir, '.github', 'loop.yml'),
    `goal: Repair every part.
pipeline: iterate
max-iterations: ${options.maxIterations ?? 8}
work:
  run: ${JSON.stringify(options.work ?? 'node agent.mjs')}
  timeout: 1m
${checks}${options.extraConfig ?? ''}`,
  )
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'add', '-A')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'seed')
  return dir
}

/** The environment the CLI runs with: hermetic git, the package's tools on PATH, check speed set. */
export function cliEnv(extra: Record<string, string> = {}, checkMs = 120): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra }
  delete env.GITHUB_ACTIONS
  env.PATH = `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`
  env.QUICK_CHECK_MS = String(checkMs)
  env.GIT_TERMINAL_PROMPT = '0'
  return env
}

export interface CliRun {
  status: number | null
  stdout: string
  stderr: string
}

/** Runs the bundled CLI to the end in `cwd`. */
export function runCliSync(cwd: string, args: string[], env: NodeJS.ProcessEnv = cliEnv()): CliRun {
  const result = spawnSync(process.execPath, [ensureCliBundle(), ...args], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Runs the bundled CLI in the background; resolves with its result. */
export function runCliAsync(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = cliEnv(),
): { pid: number; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [ensureCliBundle(), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c
  })
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c
  })
  const done = new Promise<CliRun>((resolveRun) => {
    child.on('close', (status) => resolveRun({ status, stdout, stderr }))
  })
  return { pid: child.pid ?? -1, done }
}

/** Processes (other than this one) whose working directory is `dir` or inside it. Linux only (/proc). */
export function processesIn(dir: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid) continue
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`)
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(pid)
    } catch {
      // Gone, or not ours to look at.
    }
  }
  return found
}

/** Whether a process is alive (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/**
 * Git's checkpoint commits of a loop's work, as `Loop-Iteration` numbers, oldest first: one per iteration.
 * A controller fix's own commit (`Loop-Fix:` trailer) shares its iteration's number and is not counted.
 */
export function checkpointIterations(dir: string): number[] {
  const log = execFileSync('git', ['log', '--reverse', '--format=%B%x00'], { cwd: dir, encoding: 'utf8' })
  return log
    .split('\0')
    .filter((body) => !/^Loop-Fix: /m.test(body))
    .map((body) => /Loop-Iteration: (\d+)/.exec(body)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
}
