/**
 * How every git command of the controller runs, whatever repository it is in (the work tree, the `git`
 * store's private repository): settings over anything a repository's config says, and an environment
 * without the controller's secrets, without git's own variables, and without the system config.
 */
import { isSecretName } from '../domain/secret-names.js'

/**
 * Settings every git command runs with, over anything in the repository's own config: the work command
 * (the agent) can write `.git/`, so a hook, an fsmonitor, a credential helper or an ssh command planted
 * there must never run inside the controller's git, which holds the job's tokens.
 */
export const NEUTRALISED_CONFIG: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'credential.helper=',
  '-c',
  'core.sshCommand=ssh',
]

/** The controller's environment without its secrets: git gets credentials only as a command passes them. */
export function scrubbedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretName(name)) kept[name] = value
  }
  return kept
}

/** The environment without git's own variables (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_DIR, ...). */
export function withoutGitVariables(env: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GIT_') && name !== 'SSH_ASKPASS') kept[name] = value
  }
  return kept
}

/**
 * The environment of a controller git command: this process's, scrubbed of secrets and git variables,
 * reading no system config and `globalConfig` as the global one (none by default). A command's own
 * variables (the push token's header, an index file) are added over it by the caller.
 */
export function controllerGitEnv(globalConfig = '/dev/null'): Record<string, string> {
  return {
    ...withoutGitVariables(scrubbedEnv(process.env)),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: globalConfig,
  }
}
