/**
 * The process runner: every command is a real child process in its own process group, so that a timeout
 * (or an abort) stops the whole tree, grandchildren included. Output is captured bounded: head and tail in
 * memory, the full stream on disk up to a cap.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { ProcessRunner, RunRequest, RunResult } from '../ports/process.js'
import { RedactingLines } from './redacting-lines.js'

/** Bytes of head and of tail kept in memory by default. */
export const DEFAULT_KEEP_BYTES = 64 * 1024
/** The log file stops growing here; a check that prints gigabytes must not fill the disk. */
export const DEFAULT_MAX_LOG_BYTES = 256 * 1024 * 1024
/** Time between SIGTERM and SIGKILL for a process group that overran its time. */
export const DEFAULT_KILL_GRACE_MS = 3000
/**
 * After the main child exits, how long its pipes may stay open (a grandchild still holding them) before
 * the group is killed and the run resolves.
 */
export const DEFAULT_PIPE_GRACE_MS = 500

const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Node hands a child's stdout and stderr over as sockets, and opening `/dev/stdout` or `/dev/stderr` on a
 * socket fails with ENXIO ("No such device or address"), so a CI idiom such as `gofmt -l . | tee
 * /dev/stderr` would break only inside the loop. The shell therefore first points both at one real pipe
 * (read by a `cat` in the same process group). Kept on the command's first line so bash's own messages
 * ("line 1: ...") keep their line numbers.
 */
export const REAL_PIPE_PREFIX = 'exec > >(exec cat) 2>&1; '

export interface ProcessRunnerOptions {
  killGraceMs?: number
  pipeGraceMs?: number
  maxLogBytes?: number
  /**
   * Masks secrets in everything a command prints before it is kept, logged or streamed (a key the
   * agent echoes must not land in its log file).
   */
  redact?: (text: string) => string
  /** Put in front of every command (see `isolation.ts`): its own PID namespace, no capabilities. */
  isolationPrefix?: readonly string[]
}

/**
 * Keeps the first `keep` bytes and the last `keep` bytes of a stream; memory stays under about
 * `2 * keep` plus one chunk whatever the stream's size.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  total = 0

  constructor(private readonly keep: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length
    let rest = chunk
    if (this.headBytes < this.keep) {
      const take = Math.min(this.keep - this.headBytes, rest.length)
      this.head.push(rest.subarray(0, take))
      this.headBytes += take
      rest = rest.subarray(take)
    }
    if (rest.length === 0) return
    // Copy: the tail may outlive the chunk's backing buffer, and a subarray would pin all of it.
    this.tail.push(Buffer.from(rest))
    this.tailBytes += rest.length
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= this.keep) {
      this.tailBytes -= this.tail.shift()?.length ?? 0
    }
  }

  get truncated(): boolean {
    return this.total > this.headBytes + Math.min(this.tailBytes, this.keep)
  }

  /** Head and tail as UTF-8 (invalid bytes replaced), with a marker where the middle was dropped. */
  text(): string {
    const head = Buffer.concat(this.head)
    let tail = Buffer.concat(this.tail)
    if (tail.length > this.keep) tail = tail.subarray(tail.length - this.keep)
    const omitted = this.total - head.length - tail.length
    if (omitted <= 0) return Buffer.concat([head, tail]).toString('utf8')
    return (
      head.subarray(0, utf8End(head)).toString('utf8') +
      `\n… [${omitted} bytes omitted] …\n` +
      tail.subarray(utf8Start(tail)).toString('utf8')
    )
  }
}

/** Index after the last complete UTF-8 sequence (drops a character cut in half at the end). */
function utf8End(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(3, buffer.length); back++) {
    const byte = buffer[buffer.length - back] ?? 0
    if ((byte & 0xc0) === 0x80) continue
    if (byte < 0x80) return buffer.length
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    return length > back ? buffer.length - back : buffer.length
  }
  return buffer.length
}

/** Index of the first byte that starts a UTF-8 sequence (skips a character cut in half at the start). */
function utf8Start(buffer: Buffer): number {
  let index = 0
  while (index < 3 && index < buffer.length && ((buffer[index] ?? 0) & 0xc0) === 0x80) index++
  return index
}

/** A log file that stops at `maxBytes` with a note, and pauses the producer while the disk catches up. */
class CappedLog {
  private written = 0
  private capped = false
  private readonly stream: WriteStream
  private failed: string | undefined

  constructor(
    path: string,
    private readonly maxBytes: number,
  ) {
    this.stream = createWriteStream(path)
    this.stream.on('drain', () => this.wake())
    this.stream.on('error', (error) => {
      this.failed = error.message
      // A failed log must not leave the producer paused for ever.
      this.wake()
    })
  }

  private waiters: Array<() => void> = []

  private wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }

  /** Returns false when the caller should wait for `drain`. */
  write(chunk: Buffer): boolean {
    if (this.capped || this.failed) return true
    const room = this.maxBytes - this.written
    if (chunk.length <= room) {
      this.written += chunk.length
      return this.stream.write(chunk)
    }
    this.capped = true
    this.written = this.maxBytes
    this.stream.write(chunk.subarray(0, room))
    return this.stream.write(`\n… [log truncated at ${this.maxBytes} bytes; later output was not written] …\n`)
  }

  onDrain(listener: () => void): void {
    if (this.failed) listener()
    else this.waiters.push(listener)
  }

  close(): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (this.failed) return resolve(this.failed)
      this.stream.end(() => resolve(this.failed))
    })
  }
}

/** Sends `signal` to every process in the group led by `pid`; a group that is gone already is fine. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Real child processes (see the module comment). */
export class ChildProcessRunner implements ProcessRunner {
  private readonly killGraceMs: number
  private readonly pipeGraceMs: number
  private readonly maxLogBytes: number
  private readonly redact: ((text: string) => string) | undefined
  private readonly isolationPrefix: readonly string[]

  constructor(options: ProcessRunnerOptions = {}) {
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
    this.pipeGraceMs = options.pipeGraceMs ?? DEFAULT_PIPE_GRACE_MS
    this.maxLogBytes = options.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES
    this.redact = options.redact
    this.isolationPrefix = options.isolationPrefix ?? []
  }

  async run(request: RunRequest): Promise<RunResult> {
    const started = performance.now()
    const capture = new HeadTailBuffer(request.keepBytes ?? DEFAULT_KEEP_BYTES)
    const stdoutCapture = request.captureStdout ? new HeadTailBuffer(request.keepBytes ?? DEFAULT_KEEP_BYTES) : null
    const failEarly = (spawnError: string): RunResult => ({
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs: performance.now() - started,
      output: '',
      totalBytes: 0,
      truncated: false,
      spawnError,
      ...(request.logFile ? { logFile: request.logFile } : {}),
    })

    const command =
      typeof request.command === 'string' ? ['bash', '-c', REAL_PIPE_PREFIX + request.command] : [...request.command]
    if (command.length === 0) return failEarly('the command is empty: expected a shell line or a non-empty argv array')
    // Through the isolation the command is found on its own PATH (sudo would reset PATH to its secure_path).
    const path = Object.entries(request.env).find(([name]) => name.toUpperCase() === 'PATH')?.[1]
    const argv =
      this.isolationPrefix.length === 0
        ? command
        : [...this.isolationPrefix, 'env', ...(path !== undefined ? [`PATH=${path}`] : []), ...command]
    const [file, ...args] = argv as [string, ...string[]]
    try {
      if (!statSync(request.cwd).isDirectory()) return failEarly(`working directory '${request.cwd}' is not a folder`)
    } catch {
      return failEarly(`working directory '${request.cwd}' does not exist`)
    }
    if (request.signal?.aborted) return failEarly('aborted before it started')

    let log: CappedLog | undefined
    if (request.logFile) {
      try {
        await mkdir(dirname(request.logFile), { recursive: true })
      } catch (error) {
        return failEarly(`could not create the folder of log file '${request.logFile}': ${(error as Error).message}`)
      }
      log = new CappedLog(request.logFile, request.maxLogBytes ?? this.maxLogBytes)
    }

    return new Promise<RunResult>((resolve) => {
      let child: ChildProcess
      try {
        child = spawn(file, args, {
          cwd: request.cwd,
          env: request.env,
          detached: true,
          stdio: [request.stdinFile ? 'pipe' : 'ignore', 'pipe', 'pipe'],
        })
      } catch (error) {
        void log?.close()
        resolve(failEarly(error instanceof Error ? error.message : String(error)))
        return
      }

      if (request.stdinFile && child.stdin) {
        // A command that exits without reading all of its input closes the pipe: not a failure.
        child.stdin.on('error', () => {})
        const input = createReadStream(request.stdinFile)
        input.on('error', () => child.stdin?.end())
        input.pipe(child.stdin)
      }

      let timedOut = false
      let settled = false
      let exitCode: number | null = null
      let exitSignal: string | null = null
      let exited = false
      let openPipes = 2
      let spawnError: string | undefined
      const timers: NodeJS.Timeout[] = []
      const pid = child.pid

      const stop = (): void => {
        if (pid === undefined) return
        killGroup(pid, 'SIGTERM')
        timers.push(setTimeout(() => killGroup(pid, 'SIGKILL'), this.killGraceMs))
      }

      const finish = async (): Promise<void> => {
        if (settled) return
        settled = true
        for (const timer of timers) clearTimeout(timer)
        request.signal?.removeEventListener('abort', onAbort)
        // Whatever is left of the tree (background jobs, a grandchild holding the pipes) goes with it.
        if (pid !== undefined) killGroup(pid, 'SIGKILL')
        child.stdout?.destroy()
        child.stderr?.destroy()
        for (const lines of redactors) lines.flush()
        const logError = await log?.close()
        let output = capture.text()
        if (logError) output += `\n… [could not write the log file: ${logError}] …\n`
        resolve({
          exitCode,
          signal: exitSignal,
          timedOut,
          durationMs: performance.now() - started,
          output,
          totalBytes: capture.total,
          truncated: capture.truncated,
          ...(request.logFile ? { logFile: request.logFile } : {}),
          ...(spawnError ? { spawnError } : {}),
          ...(stdoutCapture ? { stdout: stdoutCapture.text() } : {}),
        })
      }

      const onAbort = (): void => stop()
      request.signal?.addEventListener('abort', onAbort, { once: true })

      // setTimeout fires at once for delays past 2^31-1 ms; a longer limit is as good as none.
      if (Number.isFinite(request.timeoutMs) && request.timeoutMs <= MAX_TIMER_MS) {
        timers.push(
          setTimeout(
            () => {
              timedOut = true
              stop()
            },
            Math.max(0, request.timeoutMs),
          ),
        )
      }

      const onChunk = (chunk: Buffer, fromStdout: boolean): void => {
        capture.push(chunk)
        if (fromStdout) stdoutCapture?.push(chunk)
        request.onOutput?.(chunk)
        if (log && !log.write(chunk)) {
          // Back-pressure: stop reading until the disk catches up, so memory stays bounded.
          child.stdout?.pause()
          child.stderr?.pause()
          log.onDrain(() => {
            child.stdout?.resume()
            child.stderr?.resume()
          })
        }
      }
      const onPipeClosed = (): void => {
        openPipes--
        if (openPipes === 0 && exited) void finish()
      }
      const redact = this.redact
      const redactors: RedactingLines[] = []
      for (const [pipe, fromStdout] of [
        [child.stdout, true],
        [child.stderr, false],
      ] as const) {
        if (redact) {
          const lines = new RedactingLines(redact, (chunk) => onChunk(chunk, fromStdout))
          redactors.push(lines)
          pipe?.on('data', (chunk: Buffer) => lines.push(chunk))
        } else {
          pipe?.on('data', (chunk: Buffer) => onChunk(chunk, fromStdout))
        }
        pipe?.once('close', onPipeClosed)
        pipe?.once('error', onPipeClosed)
      }

      child.once('error', (error) => {
        // Only a failure to start lands here with no pid; a failed kill of a running child is not fatal.
        if (pid !== undefined) return
        spawnError = error.message
        exited = true
        void finish()
      })
      child.once('exit', (code, signal) => {
        exited = true
        exitCode = code
        exitSignal = signal
        if (openPipes === 0) {
          void finish()
          return
        }
        // A grandchild may hold the pipes open forever: give them a moment, then kill the group (which
        // closes them) and give the last bytes a moment to arrive; a process that left the group is cut off.
        timers.push(
          setTimeout(() => {
            if (pid !== undefined) killGroup(pid, 'SIGKILL')
            timers.push(setTimeout(() => void finish(), this.pipeGraceMs))
          }, this.pipeGraceMs),
        )
      })
    })
  }
}
