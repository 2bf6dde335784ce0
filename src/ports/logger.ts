/** Logging for both front doors: `@actions/core` on GitHub, the terminal for the CLI. */
export interface Logger {
  info(message: string): void
  warning(message: string, location?: { file?: string; line?: number; column?: number; title?: string }): void
  error(message: string, location?: { file?: string; line?: number; column?: number; title?: string }): void
  debug(message: string): void
  group<T>(name: string, body: () => Promise<T>): Promise<T>
}
