/**
 * The action's one door to `@actions/core` for what is not logging (the Logger port has its own
 * adapter): inputs, secrets to mask, outputs, the job summary, error annotations, step groups and the
 * step's failure. The modules in this folder take an `ActionIO`, so tests hand them a fake.
 */
import * as core from '@actions/core'

export interface ErrorAnnotation {
  title: string
  file: string
  line?: number
  column?: number
}

export interface ActionIO {
  /** The raw input ('' when unset). */
  getInput(name: string): string
  /** Masks `value` in the job log. */
  setSecret(value: string): void
  /** Sets a step output and logs `name = value`, so the log shows every output. */
  setOutput(name: string, value: string | number): void
  /** A plain log line (the caller redacts when the text could carry a secret). */
  info(message: string): void
  /** A warning annotation (the caller redacts). */
  warning(message: string): void
  group<T>(name: string, body: () => Promise<T>): Promise<T>
  annotateError(message: string, where: ErrorAnnotation): void
  /** Appends markdown to the job summary (`GITHUB_STEP_SUMMARY`). */
  writeSummary(markdown: string): Promise<void>
  /** Fails the step with an error annotation: `title` names it (else GitHub shows the bare message). */
  setFailed(message: string, title?: string): void
}

export const actionsIO: ActionIO = {
  getInput: (name) => core.getInput(name),
  setSecret: (value) => core.setSecret(value),
  setOutput: (name, value) => {
    core.info(`${name} = ${value}`)
    core.setOutput(name, value)
  },
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
  group: (name, body) => core.group(name, body),
  annotateError: (message, where) =>
    core.error(message, {
      title: where.title,
      file: where.file,
      ...(where.line !== undefined ? { startLine: where.line } : {}),
      ...(where.column !== undefined ? { startColumn: where.column } : {}),
    }),
  writeSummary: async (markdown) => {
    await core.summary.addRaw(markdown).write()
  },
  setFailed: (message, title) => {
    if (title === undefined) return core.setFailed(message)
    process.exitCode = core.ExitCode.Failure
    core.error(message, { title })
  },
}
