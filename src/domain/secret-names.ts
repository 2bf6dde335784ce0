/**
 * Which environment variables hold the controller's secrets, judged by name alone. One rule for both
 * front doors: such variables are left out of every command's environment (unless the config passes
 * them by name), and the CLI masks their values in everything it writes. Pure.
 */

/** The runner's own credentials and endpoints, by exact name (compared in upper case). */
export const SECRET_NAMES: readonly string[] = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
]

/** Names that look like a secret by their shape, whatever their case. */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  // The action's inputs (`INPUT_GITHUB-TOKEN` and friends): the token arrives this way.
  /^INPUT_/i,
  // The OIDC request pair lets a job mint cloud credentials.
  /^ACTIONS_ID_TOKEN_REQUEST_/i,
  /TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|PRIVATE/i,
]

/** True when the variable `name` holds a secret (see the module comment). */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.includes(name.toUpperCase()) || SECRET_NAME_PATTERNS.some((pattern) => pattern.test(name))
}

/** The non-empty values of the secret-named variables in `env`: what a redactor should mask. */
export function secretValuesInEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && isSecretName(name))
    .map(([, value]) => value as string)
}
