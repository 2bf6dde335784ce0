/**
 * The Actions runner's file commands: files whose paths the runner hands a step in these variables and
 * reads back when the step ends. What a step appends there acts beyond the step: GITHUB_ENV and
 * GITHUB_PATH change every later step's environment (an `LD_PRELOAD`, a fake `git` first on PATH, in the
 * step that uploads the verdict or in checkout's post step, which holds its token), GITHUB_OUTPUT sets the
 * step's outputs, GITHUB_STATE feeds its post step, GITHUB_STEP_SUMMARY is the job's summary. They are the
 * controller's alone: no project command gets these names, and what one writes there anyway (the folder
 * can be listed) is put back and said (`adapters/runner-file-guard.ts`). Pure.
 */

export const RUNNER_FILE_COMMANDS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
] as const
export type RunnerFileCommand = (typeof RUNNER_FILE_COMMANDS)[number]

/** True when `name` is one of the runner's file-command variables (the runner spells them in upper case). */
export function isRunnerFileCommand(name: string): boolean {
  return (RUNNER_FILE_COMMANDS as readonly string[]).includes(name.toUpperCase())
}

/** `env` without the runner's file-command variables. */
export function withoutRunnerFileCommands<T extends string | undefined>(
  env: Readonly<Record<string, T>>,
): Record<string, T> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isRunnerFileCommand(name)))
}

/** Characters of a command line a warning quotes. */
const LABEL_CHARS = 120
/** Characters of what was planted a warning quotes. */
const EXCERPT_CHARS = 300

/** A command as a warning names it: its first line, shortened. */
export function commandLabel(command: string | readonly string[]): string {
  const text = typeof command === 'string' ? command : command.join(' ')
  const lines = text.trim().split('\n')
  const first = lines[0] ?? ''
  const shortened = first.length > LABEL_CHARS ? `${first.slice(0, LABEL_CHARS)}…` : first
  return lines.length > 1 && shortened === first ? `${shortened} …` : shortened
}

/** What a file held that the controller had not written. */
export type Tampering =
  /** The controller's text is still there, with more after it. */
  | { kind: 'appended'; text: string }
  /** The file holds other text than the controller's (cut, rewritten). */
  | { kind: 'rewritten'; text: string }
  /** The path is no regular file any more (removed, a symlink, a pipe). */
  | { kind: 'replaced'; what: string }

/**
 * How `found` differs from `expected`, the controller's own bytes; null when it does not. Compared as
 * bytes (two texts that are not UTF-8 may decode alike), quoted as UTF-8.
 */
export function tamperingOf(expected: Uint8Array, found: Uint8Array): Tampering | null {
  const startsWithExpected = found.length >= expected.length && expected.every((byte, index) => found[index] === byte)
  if (startsWithExpected && found.length === expected.length) return null
  const decoder = new TextDecoder()
  if (startsWithExpected) return { kind: 'appended', text: decoder.decode(found.subarray(expected.length)) }
  return { kind: 'rewritten', text: decoder.decode(found) }
}

/** Who may have written: the commands that ran while it happened, or none (between or after them). */
export type Writers = { commands: readonly string[] } | { after: 'commands' | 'the last command' }

function writersText(writers: Writers): string {
  if ('after' in writers) {
    return writers.after === 'commands'
      ? 'a process still running between the project commands (one a command left behind)'
      : 'a process still running after the last project command (one a command left behind)'
  }
  const [first, ...others] = writers.commands
  if (others.length === 0) return `the command '${first}'`
  return `one of the commands that ran side by side: ${writers.commands.map((label) => `'${label}'`).join(', ')}`
}

function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text
  return JSON.stringify(cut)
}

/** The warning for a file command a project command wrote to, which the controller put back. */
export function tamperingWarning(file: RunnerFileCommand, writers: Writers, tampering: Tampering): string {
  const what =
    tampering.kind === 'appended'
      ? `appended ${excerpt(tampering.text)}`
      : tampering.kind === 'rewritten'
        ? `rewrote it as ${excerpt(tampering.text)}`
        : `replaced it (${tampering.what})`
  return (
    `${writersText(writers)} wrote to the runner's ${file} file, which is the controller's alone: ${what}. ` +
    `The controller put back its own text, so none of it reaches the job's later steps. ` +
    `A project command must not write the runner's file commands; hand results on as files in the work tree.`
  )
}
