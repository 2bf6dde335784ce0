/** Reading CLI output that holds JSON objects, one per line, among other lines. Pure. */

/** Every line of `text` that parses as a JSON object, in order; other lines are skipped. */
export function jsonObjectLines(text: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = []
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line.startsWith('{')) continue
    try {
      const value: unknown = JSON.parse(line)
      if (value && typeof value === 'object' && !Array.isArray(value)) objects.push(value as Record<string, unknown>)
    } catch {
      // A line that only looks like JSON (a log line, a cut-off write): not the CLI's report.
    }
  }
  return objects
}

/** A finite, non-negative number, or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** The sum of the finite, non-negative numbers among `values`, or undefined when there is none. */
export function sumCounts(...values: unknown[]): number | undefined {
  const numbers = values.map(count).filter((n): n is number => n !== undefined)
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0)
}

/** A non-empty string of at most `max` characters, or undefined. */
export function shortString(value: unknown, max = 200): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= max ? value : undefined
}

export function objectAt(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}
