/**
 * Running one git command: non-interactive, in stable English (so the message signs in `git-cli.ts`
 * match), with a cap on output so a runaway command fails instead of exhausting memory.
 */
import { spawn } from 'node:child_process'
import type { GitResult } from '../ports/git.js'
import { controllerGitEnv, NEUTRALISED_CONFIG } from './git-env.js'
import { settleLock } from './git-locks.js'
import { GitConfigSeal } from './git-seal.js'

/** A command's exit code, raw stdout (file contents may be binary) and stderr text. */
export interface RawResult {
  exitCode: number
  stdout: Buffer
  stderr: string
}

export interface RawOptions {
  env?: Record<string, string>
  input?: Buffer
  /** Takes the output as it comes (none is collected); returning true stops git. */
  onStdout?: (chunk: Buffer) => boolean
}

/** A git command that failed; the message quotes the command, its exit code and git's own words. */
export class GitCommandError extends Error {
  override name = 'GitCommandError'
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    super(
      `git ${args.join(' ')} failed with exit code ${result.exitCode}: ${result.stderr.trim() || result.stdout.trim()}`,
    )
  }
}

/** git's refusal when a lock file it needs exists. */
const LOCK_EXISTS = /Unable to create '([^']+\.lock)': File exists/
/** Runs of one command while locks are settled. */
const LOCK_ATTEMPTS = 4
/** Commands of several steps: a lock refused in a later step leaves the first done, so none runs again. */
const MULTI_STEP = new Set(['stash', 'rebase', 'merge', 'cherry-pick', 'revert', 'am', 'pull'])

/** Output beyond this from one git command is an error rather than a memory blow-up. */
const MAX_GIT_OUTPUT_BYTES = 256 * 1024 * 1024

/** Runs git commands in one folder with one git executable. */
export class GitProcess {
  private readonly seal: GitConfigSeal

  constructor(
    readonly cwd: string,
    private readonly gitPath: string,
    /** How long a lock another live git holds is waited for before git's refusal stands. */
    private readonly lockWaitMs = 10_000,
  ) {
    // Made before the work command runs: what is in .git/config now is what the controller trusts.
    this.seal = new GitConfigSeal(cwd, gitPath)
  }

  /**
   * Runs git and returns whatever it said; throws only when git could not be started or said too much.
   * A command refused because a lock file exists runs again once the lock is settled (released by the
   * live git that holds it, or removed when no git works in the repository: `git-locks.ts`), unless it
   * runs in several steps that a refusal could leave half done. With `onStdout`, the output is handed to
   * it as it comes instead of collected; when it returns true, git is stopped (its exit code is then 128).
   */
  async raw(args: readonly string[], options: RawOptions = {}): Promise<RawResult> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.rawOnce(args, options)
      const lock = result.exitCode === 0 ? undefined : LOCK_EXISTS.exec(result.stderr)?.[1]
      if (!lock || attempt >= LOCK_ATTEMPTS || MULTI_STEP.has(args[0] ?? '')) return result
      await settleLock(lock, [this.cwd], this.lockWaitMs)
    }
  }

  private rawOnce(args: readonly string[], options: RawOptions): Promise<RawResult> {
    return new Promise<RawResult>((resolve, reject) => {
      this.seal.before()
      const child = spawn(this.gitPath, [...NEUTRALISED_CONFIG, ...args], {
        cwd: this.cwd,
        env: {
          ...controllerGitEnv(this.seal.globalConfig),
          ...options.env,
          GIT_TERMINAL_PROMPT: '0',
          GCM_INTERACTIVE: 'never',
          // Stable English messages, so the benign and conflict signs match.
          LC_ALL: 'C',
        },
        stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      })
      const out: Buffer[] = []
      let outBytes = 0
      const err: Buffer[] = []
      let stopped = false
      child.stdout?.on('data', (chunk: Buffer) => {
        if (stopped) return
        if (options.onStdout) {
          stopped = options.onStdout(chunk)
          if (stopped) child.kill('SIGKILL')
          return
        }
        outBytes += chunk.length
        if (outBytes > MAX_GIT_OUTPUT_BYTES) {
          child.kill('SIGKILL')
          return
        }
        out.push(chunk)
      })
      child.stderr?.on('data', (chunk: Buffer) => err.push(chunk))
      child.once('error', reject)
      child.once('close', (code, signal) => {
        this.seal.after()
        const stderr = Buffer.concat(err).toString('utf8')
        if (outBytes > MAX_GIT_OUTPUT_BYTES) {
          reject(new Error(`git ${args.join(' ')} printed more than ${MAX_GIT_OUTPUT_BYTES} bytes; stopped`))
          return
        }
        resolve({ exitCode: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out), stderr })
      })
      if (options.input) {
        child.stdin?.on('error', () => {})
        child.stdin?.end(options.input)
      }
    })
  }

  /** Runs git with text output; a failure throws `GitCommandError` unless `allowFailure`. */
  async exec(
    args: readonly string[],
    options: { allowFailure?: boolean; env?: Record<string, string> } = {},
  ): Promise<GitResult> {
    const raw = await this.raw(args, options.env ? { env: options.env } : {})
    const result = { exitCode: raw.exitCode, stdout: raw.stdout.toString('utf8'), stderr: raw.stderr }
    if (result.exitCode !== 0 && !options.allowFailure) throw new GitCommandError(args, result)
    return result
  }

  /** Throws `GitCommandError` (quoting `args`) when a raw run failed. */
  check(args: readonly string[], result: RawResult): void {
    if (result.exitCode !== 0) {
      throw new GitCommandError(args, { exitCode: result.exitCode, stdout: '', stderr: result.stderr })
    }
  }
}

/** The parts of git's NUL-separated output (`-z`). */
export function splitZ(buffer: Buffer): string[] {
  return buffer
    .toString('utf8')
    .split('\0')
    .filter((part) => part.length > 0)
}
