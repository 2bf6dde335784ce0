/**
 * The runner's file commands (`domain/runner-file-commands.ts`) held for the controller. No project
 * command gets their variables, but their folder (`$RUNNER_TEMP/_runner_file_commands`) can be listed,
 * so the guard holds what the controller itself wrote to each file and puts that text back:
 *
 * - after each project command's process tree has ended (`runner()` wraps the process runner);
 * - before each command starts and before each write of the controller's own (`own`, `ownSync`), in
 *   case something written meanwhile (a process a command left behind) would be taken for the
 *   controller's;
 * - once more as the last thing before the step exits (`putBackAtExit`).
 *
 * What the controller writes between commands (an output, the summary) is held from then on. Whatever
 * else was there is said in a warning naming the file and the command that wrote it. A put-back never
 * writes through a planted symlink: the text goes to a new file that replaces the path.
 */
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
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

export class RunnerFileGuard {
  private readonly held: HeldFile[]
  private readonly running = new Map<number, string>()
  private nextCommand = 0
  private readonly putBacks: PutBack[] = []

  /**
   * Holds each file as it is now (what the controller wrote so far: the runner gives a step empty ones).
   * `warn` hears each put-back as a sentence (the caller's logger redacts it).
   */
  constructor(
    paths: Partial<Record<RunnerFileCommand, string>>,
    private readonly warn: (message: string) => void,
  ) {
    this.held = Object.entries(paths).map(([file, path]) => ({
      file: file as RunnerFileCommand,
      path,
      text: readWhole(path) ?? Buffer.alloc(0),
    }))
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

  /** A write of the controller's own (an output): anything foreign is put back first, then the write is held. */
  ownSync<T>(write: () => T): T {
    this.putBack(this.idleWriters())
    try {
      return write()
    } finally {
      this.hold()
    }
  }

  /** `ownSync` for a write that completes later (the summary). */
  async own<T>(write: () => Promise<T>): Promise<T> {
    this.putBack(this.idleWriters())
    try {
      return await write()
    } finally {
      this.hold()
    }
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
      replaceWith(held.path, held.text)
      const putBack = { file: held.file, path: held.path, writers, tampering }
      done.push(putBack)
      this.putBacks.push(putBack)
      this.warn(tamperingWarning(held.file, writers, tampering))
    }
    return done
  }

  /** After a write of the controller's: the file's text, its own write included, is the controller's. */
  private hold(): void {
    for (const held of this.held) held.text = readWhole(held.path) ?? held.text
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

/** Replaces `path` with a new file holding `text`; a symlink or pipe planted there is replaced, not followed. */
function replaceWith(path: string, text: Buffer): void {
  const temporary = `${path}.${randomUUID()}`
  // A command that removed the whole folder does not keep the controller's text from the runner.
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(temporary, text, { flag: 'wx', mode: 0o644 })
  try {
    renameSync(temporary, path)
  } catch (error) {
    unlinkSync(temporary)
    throw error
  }
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
