/**
 * What the real-agent loops share: the real CLI installed on demand (scripts/install-agents.mjs), a
 * copy of examples/demo as a git repository, and the loop run by the built CLI (`dist/cli/index.js`)
 * as a user runs it, with the CLI on PATH and its API pointed at the scripted model server.
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
// @ts-expect-error: a plain ES module script, without types.
import { installAgent } from '../../scripts/install-agents.mjs'
import { type LoopState, loopStateSchema } from '../../src/domain/state.js'

export const projectRoot = resolve(import.meta.dirname, '..', '..')

/** The CLI's binary, or the reason it could not be installed (the suite then skips, saying why). */
export function agentBinary(name: 'claude' | 'codex'): { path: string } | { skip: string } {
  try {
    return { path: installAgent(name) as string }
  } catch (error) {
    return { skip: (error as Error).message }
  }
}

/** A copy of the demo project as a git repository, with `config` as its loop config. */
export function demoRepo(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-agent-'))
  cpSync(join(projectRoot, 'examples', 'demo'), dir, { recursive: true })
  writeFileSync(join(dir, '.github', 'loop.yml'), config)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'the demo, with its defects')
  return dir
}

/** The demo's checks, as examples/demo/.github/loop.yml has them. */
export const DEMO_CHECKS = readFileSync(join(projectRoot, 'examples', 'demo', '.github', 'loop.yml'), 'utf8').slice(
  readFileSync(join(projectRoot, 'examples', 'demo', '.github', 'loop.yml'), 'utf8').indexOf('checks:'),
)

export interface LoopRun {
  code: number | null
  stdout: string
  state: LoopState
  journey: string
  workLog: (iteration: number) => string
}

/** Runs `loop-controller run` from the built bundle with the CLI on PATH as `name`. */
export async function runLoop(
  repo: string,
  agent: { name: string; binary: string },
  env: Record<string, string>,
): Promise<LoopRun> {
  const bin = mkdtempSync(join(tmpdir(), 'loop-agent-bin-'))
  symlinkSync(agent.binary, join(bin, agent.name))
  const home = join(repo, '..', `${agent.name}-home`)
  mkdirSync(home, { recursive: true })
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli', 'index.js'), 'run', '--loop-id', 'agent'], {
    cwd: repo,
    env: {
      PATH: `${bin}${delimiter}${join(projectRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
      HOME: home,
      LANG: 'C.UTF-8',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  const code = await new Promise<number | null>((done) => child.on('close', done))
  const loopDir = join(repo, '.loop', 'agent')
  return {
    code,
    stdout,
    state: loopStateSchema.parse(JSON.parse(readFileSync(join(loopDir, 'loop-state.json'), 'utf8'))),
    journey: readFileSync(join(loopDir, 'journey-log.jsonl'), 'utf8'),
    workLog: (iteration) => readFileSync(join(loopDir, 'runs', String(iteration), 'work.log'), 'utf8'),
  }
}
