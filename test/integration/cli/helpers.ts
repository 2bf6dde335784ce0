import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { runCli } from '../../../src/cli/main.js'

export const projectRoot = resolve(import.meta.dirname, '..', '..', '..')

/** A git repository in a temp folder, optionally seeded with the demo project. */
export function tempRepo(options: { demo?: boolean; files?: Record<string, string> } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-cli-'))
  if (options.demo) cpSync(join(projectRoot, 'examples', 'demo'), dir, { recursive: true })
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '--allow-empty', '-m', 'start')
  return dir
}

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs the CLI in-process, the way the bin does, with the project's tools on PATH. */
export async function cli(cwd: string, ...argv: string[]): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text
    },
    stderr: (text) => {
      stderr += text
    },
    stdin: new PassThrough(),
    isTTY: false,
    cwd,
    env: {
      ...process.env,
      PATH: `${join(projectRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
      LOOP_DEMO_AGENT: join(projectRoot, 'examples', 'agent', 'agent.mjs'),
    },
  })
  return { code, stdout, stderr }
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' })
}
