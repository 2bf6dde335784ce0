/** Running commands as real child processes. Implemented by `adapters/process-runner.ts`. */

export interface RunRequest {
  /** A shell line from the trusted config (run with `bash -c`) or an argv array (no shell at all). */
  command: string | readonly string[]
  cwd: string
  /** The whole environment the command sees (already filtered: the controller's secrets left out). */
  env: Record<string, string>
  timeoutMs: number
  /** Full output is written here; only head and tail are kept in memory. */
  logFile?: string
  /** Bytes of head and of tail kept in memory (default 64 KiB each). */
  keepBytes?: number
  /** The log file stops growing at this size, with a note that it was truncated (default 256 MiB). */
  maxLogBytes?: number
  /** Called with each chunk of output as it arrives (for live progress and streaming analysis). */
  onOutput?: (chunk: Buffer) => void
  signal?: AbortSignal
  /** A file handed to the command on standard input (the agent's prompt); none: standard input is empty. */
  stdinFile?: string
  /** Keep standard output apart too (head and tail, as `output`), for a CLI that prints its report there. */
  captureStdout?: boolean
}

export interface RunResult {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  durationMs: number
  /** Head and tail of the combined stdout+stderr, with a marker where the middle was dropped. */
  output: string
  totalBytes: number
  truncated: boolean
  logFile?: string
  /** Set when the command could not be started at all (e.g. ENOENT). */
  spawnError?: string
  /** Standard output alone, head and tail, when `captureStdout` was asked for. */
  stdout?: string
}

export interface ProcessRunner {
  run(request: RunRequest): Promise<RunResult>
}
