/**
 * The action's inputs that hold one item per line: verify commands and the secrets passed to commands.
 * A line that may hold a secret is never quoted back in a message.
 */

/** One command per line; blank lines and `#` comment lines are ignored. */
export function parseVerifyLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * `secrets` lines: `NAME=VALUE` passes VALUE as NAME; a bare `NAME` passes the variable of that name
 * from the controller's environment (e.g. set with `env:` from `${{ secrets.NAME }}`).
 */
export function parseSecretLines(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { secrets: Record<string, string>; missing: string[]; problems: string[] } {
  const secrets: Record<string, string> = {}
  const missing: string[] = []
  const problems: string[] = []
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) return
    const eq = trimmed.indexOf('=')
    const name = (eq === -1 ? trimmed : trimmed.slice(0, eq)).trim()
    if (!envName.test(name)) {
      // The line may hold a secret value: never quote it back.
      problems.push(
        `Input 'secrets' line ${index + 1} must be NAME or NAME=VALUE with NAME an environment variable name (letters, digits, underscore); the line is not shown because it may hold a secret.`,
      )
      return
    }
    if (eq !== -1) {
      secrets[name] = line.slice(line.indexOf('=') + 1)
      return
    }
    const value = env[name]
    if (value === undefined || value === '') missing.push(name)
    else secrets[name] = value
  })
  // A name another line gives a value (the reusable workflow's `secret-names` beside `LOOP_SECRETS`) has one.
  return { secrets, missing: missing.filter((name) => !Object.hasOwn(secrets, name)), problems }
}
