/**
 * The environment handed to work commands and checks: the controller's own environment minus its
 * secrets (the action's inputs, the job's tokens, anything token-shaped), unless the config passes them
 * by name.
 */

/** Variables the controller holds for itself, by exact name. */
export const CONTROLLER_SECRET_NAMES: readonly string[] = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
]

/** Variables left out by the shape of their name. */
export const CONTROLLER_SECRET_PATTERNS: readonly RegExp[] = [
  // The action's inputs: `INPUT_GITHUB-TOKEN` and friends.
  /^INPUT_/i,
  /^ACTIONS_ID_TOKEN_REQUEST_/i,
  /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL/i,
]

export interface CommandEnvOptions {
  /** Names from `base` the config explicitly hands to commands (secret-looking or not). */
  passEnv: readonly string[]
  /** Set on top (the loop's own variables such as LOOP_ITERATION, a check's `env`). */
  extra: Readonly<Record<string, string>>
}

/** True when `name` is one of the controller's own secrets (see the module comment). */
export function isControllerSecret(name: string): boolean {
  return CONTROLLER_SECRET_NAMES.includes(name.toUpperCase()) || CONTROLLER_SECRET_PATTERNS.some((p) => p.test(name))
}

/**
 * Builds the environment for a command: everything in `base` that is not a controller secret, plus the
 * names in `passEnv`, then `extra` on top. Undefined values are dropped.
 */
export function buildCommandEnv(base: NodeJS.ProcessEnv, options: CommandEnvOptions): Record<string, string> {
  const passed = new Set(options.passEnv)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    if (passed.has(name) || !isControllerSecret(name)) env[name] = value
  }
  return { ...env, ...options.extra }
}
