/** What the CLI talks to, passed in so tests run it in-process, and its logger on top of that. */
import type { Logger } from '../ports/logger.js'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  stdin: NodeJS.ReadableStream
  isTTY: boolean
  cwd: string
  env: NodeJS.ProcessEnv
}

/** The iteration's log lines go to stderr, so stdout stays the progress and the result. */
export function cliLogger(io: CliIo): Logger {
  return {
    info: (m) => io.stderr(`${m}\n`),
    warning: (m) => io.stderr(`warning: ${m}\n`),
    error: (m) => io.stderr(`error: ${m}\n`),
    debug: (m) => {
      if (io.env.LOOP_DEBUG) io.stderr(`debug: ${m}\n`)
    },
    group: async (_name, body) => body(),
  }
}
