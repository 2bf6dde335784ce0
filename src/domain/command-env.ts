/**
 * The environment handed to work commands and checks: the controller's own environment minus its
 * secrets (see `secret-names.ts`), unless the config passes them by name, and never the runner's
 * file commands (see `runner-file-commands.ts`), whatever the config says. Pure.
 */
import { withoutRunnerFileCommands } from './runner-file-commands.js'
import { isSecretName } from './secret-names.js'

export interface CommandEnvOptions {
  /** Names from `base` the config explicitly hands to commands (secret-looking or not). */
  passEnv: readonly string[]
  /** Set on top (the loop's own variables such as LOOP_ITERATION, a check's `env`). */
  extra: Readonly<Record<string, string>>
  /**
   * Folders put first on PATH, in this order (the repository's `node_modules/.bin`, as `npm run` does),
   * joined with `delimiter` (`:` on POSIX, `;` on Windows).
   */
  pathFirst?: { dirs: readonly string[]; delimiter: string }
}

/**
 * Builds the environment for a command: everything in `base` that is not a secret, plus the names in
 * `passEnv`, then `extra` on top, then `pathFirst` in front of PATH. Undefined values are dropped, and so
 * are the runner's file commands (GITHUB_ENV, GITHUB_PATH, ...), even when passed or set in `extra`.
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
  const merged = withoutRunnerFileCommands({ ...env, ...options.extra })
  return options.pathFirst ? withPathFirst(merged, options.pathFirst.dirs, options.pathFirst.delimiter) : merged
}

/**
 * `env` with `dirs` in front of its PATH (whatever the name's case: Windows spells it `Path`), each
 * folder once: a folder already on PATH moves to the front rather than appearing twice.
 */
export function withPathFirst(
  env: Readonly<Record<string, string>>,
  dirs: readonly string[],
  delimiter: string,
): Record<string, string> {
  const name = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH'
  const first = dirs.filter((dir, index) => dir !== '' && dirs.indexOf(dir) === index)
  const rest = (env[name] ?? '').split(delimiter).filter((dir) => dir !== '' && !first.includes(dir))
  return { ...env, [name]: [...first, ...rest].join(delimiter) }
}
