/**
 * Simple mode's inputs (`work`, `verify`) against the loop config (`config`): one precedence for the
 * action and the CLI. Simple mode wins over the default file (and the job says the file was not read);
 * simple mode with a named config file is refused, as is half of simple mode.
 */
import { posix } from 'node:path'
import { InputDefaults } from '../constants.js'

/**
 * Whether the `config` input names the default file. GitHub fills in action.yml's default (and the
 * reusable workflow passes its own, the same path), so the default path counts as not named.
 */
export function isDefaultConfigInput(value: string): boolean {
  const trimmed = value.trim()
  return trimmed === '' || posix.normalize(trimmed) === InputDefaults.config
}

/** What is wrong with the simple-mode inputs as given, or null. */
export function simpleModeInputsProblem(given: {
  work: string | undefined
  verify: readonly string[]
  /** An agent preset (not `command`) builds the work command, so it stands in for `work`. */
  presetAgent: boolean
  config: string
  configIsDefault: boolean
}): string | null {
  const { work, verify, presetAgent, config, configIsDefault } = given
  if (work === undefined && verify.length === 0) return null
  if (!configIsDefault) {
    return `Inputs 'work' and 'verify' (simple mode) and input 'config' ('${config}') each name the loop's work and checks; use one. Leave 'work' and 'verify' empty to run ${config}, or leave 'config' at its default to run simple mode.`
  }
  if (verify.length === 0) {
    return `Input 'work' is simple mode, which needs 'verify' (the check commands, one per line); got none. Give 'verify', or leave 'work' empty to run the loop config.`
  }
  if (work === undefined && !presetAgent) {
    return `Input 'verify' is simple mode, which needs 'work' (the work command) or an agent preset in 'agent' (claude, codex, gemini, aider); got neither. Give one, or leave 'verify' empty to run the loop config.`
  }
  return null
}

/** Said in the log and the job summary when simple mode passed over a default config file that exists. */
export function shadowedConfigNotice(file: string, simpleSettings: string): string {
  return `Simple mode: ${simpleSettings} set this loop's work and checks, so ${file} was not read (its checks do not run). To run ${file} instead, drop ${simpleSettings}.`
}
