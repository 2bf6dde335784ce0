/**
 * Errors that are the user's to fix (a configuration or usage mistake), kept apart from internal
 * faults so that both front doors can say them plainly and exit 2 (CLI) or fail the step with the fix.
 */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** The message of anything thrown, including values that are not `Error`s. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error)
  } catch {
    return String(error)
  }
}
