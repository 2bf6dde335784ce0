/**
 * The runner's file commands (`domain/runner-file-commands.ts`) held for the controller. No project
 * command gets their variables, but their folder (`$RUNNER_TEMP/_runner_file_commands`) can be listed,
 * so the guard holds what the controller itself wrote to each file and puts that text back:
 *
 * - after each project command's process tree has ended (`runner()` wraps the process runner);
 * - before each command starts and before each write of the controller's own (`appendOwn`);
 * - once more as the last thing before the step exits (`putBackAtExit`).
 *
 * The controller's own writes (an output, the summary) are made by the guard: their bytes are added to
 * the held text and the file is replaced with it, so what the files hold is never read back as the
 * controller's (a process left behind that re-plants in a loop would have its line adopted). Whatever
 * else was there is said in a warning naming the file and the command that wrote it. A put-back never
 * writes through a planted symlink: the text goes to a new file that replaces the path (a planted
 * folder is removed first). Only paths that are regular files when the guard is made are held.
 */
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname } from 'node:path'
import {
  commandLabel,
  RUNNER_FILE_COMMANDS,
  type RunnerFileCommand,
  type Tampering,
  tamperingOf,
  tamperingWarning,
  type Writers,
  withoutRunnerFileCommands,
} from '../domain/runner-file-commands.js'
import type { ProcessRunner, RunRequest, RunResult } from '../ports/process.js'

/** Bytes read past the controller's own text to quote what was planted (the rest is put back unread). */
const READ_PAST_BYTES = 4096

/** One file put back: which, who may have written it, and what it held. */
export interface PutBack {
  file: RunnerFileCommand
  path: string
  writers: Writers
  tampering: Tampering
}

interface HeldFile {
  file: RunnerFileCommand
  path: string
  /** What the controller wrote, and nothing else. */
  text: Buffer
}

/** The file-command paths the runner gave this step, from its environment (unset ones are not held). */
export function runnerFileCommandPaths(
  env: Readonly<Record<string, string | undefined>>,
): Partial<Record<RunnerFileCommand, string>> {
  const paths: Partial<Record<RunnerFileCommand, string>> = {}
  for (const file of RUNNER_FILE_COMMANDS) {
    const path = env[file]
    if (path) paths[file] = path
  }
  return paths
}

/** What the guard says: each put-back as a warning, a path it does not hold as a plain line. */
export interface GuardReport {
  warn(message: string): void
  info(message: string): void
}

export class RunnerFileGuard {
  private readonly held: HeldFile[]
  private readonly running = new Map<number, string>()
  private nextCommand = 0
  private readonly putBacks: PutBack[] = []

  /**
   * Holds each file as it is now (what the controller wrote so far: the runner gives a step empty ones).
   * A path that is no regular file (missing, a symlink, a device such as `/dev/stdout`) is not the
   * runner's file command and is not held. `report` hears each put-back as a sentence (the caller's
   * logger redacts it).
   */
  constructor(
    paths: Partial<Record<RunnerFileCommand, string>>,
    private readonly report: GuardReport,
  ) {
    this.held = []
    for (const [file, path] of Object.entries(paths)) {
      const text = readWhole(path)
      if (text === null) {
        report.info(`${file} (${path}) ${whatIsAt(path)}, so it is not guarded: writes to it are not put back.`)
        continue
      }
      this.held.push({ file: file as RunnerFileCommand, path, text })
    }
  }

  /** True when `file` is held (the controller's writes to it go through `appendOwn`). */
  holds(file: RunnerFileCommand): boolean {
    return this.held.some((held) => held.file === file)
  }

  /** Every put-back so far, in order. */
  get found(): readonly PutBack[] {
    return this.putBacks
  }

  /** `inner`, with the guard around each command, which never gets the file commands' variables. */
  runner(inner: ProcessRunner): ProcessRunner {
    return {
      run: async (request: RunRequest): Promise<RunResult> => {
        this.putBack(this.idleWriters())
        const id = this.nextCommand++
        this.running.set(id, commandLabel(request.command))
        try {
          return await inner.run({ ...request, env: withoutRunnerFileCommands(request.env) })
        } finally {
          const writers: Writers = { commands: [this.running.get(id) ?? '', ...this.othersThan(id).commands] }
          this.running.delete(id)
          this.putBack(writers)
        }
      },
    }
  }

  /**
   * A write of the controller's own (an output, the summary), made here: anything foreign is put back
   * first, then `bytes` are added to the held text and the file is replaced with it. What another
   * process writes in between is dropped, never taken for the controller's.
   */
  appendOwn(file: RunnerFileCommand, bytes: string | Uint8Array): void {
    const held = this.held.find((candidate) => candidate.file === file)
    if (!held) throw new Error(`${file} is not guarded: the controller cannot write to it through the guard.`)
    this.putBack(this.idleWriters())
    held.text = Buffer.concat([held.text, typeof bytes === 'string' ? Buffer.from(bytes) : bytes])
    replaceWith(held, held.text)
  }

  /** The last check, as the step ends: what a process left behind wrote since is put back too. */
  putBackAtExit(): readonly PutBack[] {
    return this.putBack(this.running.size > 0 ? this.othersThan(-1) : { after: 'the last command' })
  }

  /** Puts back every file that holds other than the controller's text, and says so. */
  private putBack(writers: Writers): PutBack[] {
    const done: PutBack[] = []
    for (const held of this.held) {
      const tampering = tamperingIn(held)
      if (!tampering) continue
      // Said before the put-back, so a put-back that fails still leaves the warning.
      this.report.warn(tamperingWarning(held.file, writers, tampering))
      replaceWith(held, held.text)
      const putBack = { file: held.file, path: held.path, writers, tampering }
      done.push(putBack)
      this.putBacks.push(putBack)
    }
    return done
  }

  private othersThan(id: number): { commands: string[] } {
    return { commands: [...this.running].filter(([other]) => other !== id).map(([, label]) => label) }
  }

  private idleWriters(): Writers {
    return this.running.size > 0 ? this.othersThan(-1) : { after: 'commands' }
  }
}

/** How the file at `held.path` differs from the controller's text, reading no more than needed. */
function tamperingIn(held: HeldFile): Tampering | null {
  const stats = lstatOrNull(held.path)
  if (!stats) return { kind: 'replaced', what: 'the file was removed' }
  if (!stats.isFile()) return { kind: 'replaced', what: stats.isSymbolicLink() ? 'a symlink' : 'no regular file' }
  if (stats.size === held.text.length && held.text.length === 0) return null
  const found = readHead(held.path, Math.min(stats.size, held.text.length + READ_PAST_BYTES))
  if (found === null) return { kind: 'replaced', what: 'the file cannot be read' }
  return tamperingOf(held.text, found)
}

/**
 * Replaces the held path with a new file holding `text`; a symlink or pipe planted there is replaced,
 * not followed, and a folder planted there is removed first (a rename cannot replace one).
 */
function replaceWith(held: HeldFile, text: Buffer): void {
  const { path } = held
  const temporary = `${path}.${randomUUID()}`
  // A command that removed the whole folder does not keep the controller's text from the runner.
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(temporary, text, { flag: 'wx', mode: 0o644 })
  try {
    if (lstatOrNull(path)?.isDirectory()) rmSync(path, { recursive: true, force: true })
    renameSync(temporary, path)
  } catch (error) {
    unlinkSync(temporary)
    throw new Error(
      `The controller's ${held.file} (${path}) could not be put back: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** What a path that is no regular file is, as the log says it. */
function whatIsAt(path: string): string {
  const stats = lstatOrNull(path)
  if (!stats) return 'does not exist'
  if (stats.isSymbolicLink()) return 'is a symlink'
  return stats.isFile() ? 'cannot be read' : 'is not a regular file'
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

/** The first `bytes` bytes of a regular file, or null when it cannot be opened. */
function readHead(path: string, bytes: number): Buffer | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return null
  }
  try {
    const buffer = Buffer.alloc(bytes)
    let filled = 0
    while (filled < bytes) {
      const read = readSync(fd, buffer, filled, bytes - filled, filled)
      if (read === 0) break
      filled += read
    }
    return buffer.subarray(0, filled)
  } finally {
    closeSync(fd)
  }
}

function readWhole(path: string): Buffer | null {
  const stats = lstatOrNull(path)
  if (!stats?.isFile()) return null
  return readHead(path, stats.size)
}
