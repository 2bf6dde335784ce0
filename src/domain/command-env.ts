/**
 * The environment handed to work commands and checks: the controller's own environment minus its
 * secrets (see `secret-names.ts`), unless the config passes them by name. Pure.
 */
import { isSecretName } from './secret-names.js'

export interface CommandEnvOptions {
  /** Names from `base` the config explicitly hands to commands (secret-looking or not). */
  passEnv: readonly string[]
  /** Set on top (the loop's own variables such as LOOP_ITERATION, a check's `env`). */
  extra: Readonly<Record<string, string>>
}

/**
 * Builds the environment for a command: everything in `base` that is not a secret, plus the names in
 * `passEnv`, then `extra` on top. Undefined values are dropped.
 */
export function buildCommandEnv(
  base: Readonly<Record<string, string | undefined>>,
  options: CommandEnvOptions,
): Record<string, string> {
  const passed = new Set(options.passEnv)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    if (passed.has(name) || !isSecretName(name)) env[name] = value
  }
  return { ...env, ...options.extra }
}
