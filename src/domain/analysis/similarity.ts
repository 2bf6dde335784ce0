/**
 * Normalisation and similarity of failure output, for the same-error rule (a repeated error gets a
 * smaller retry budget and a different strategy) and error signatures. Pure.
 */
import { createHash } from 'node:crypto'

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are control characters
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?\b/g
const CLOCK_TIME = /\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g
const DURATION = /\b\d+(\.\d+)?\s?(ms|s|sec|seconds|m|min)\b/g
const HASH = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/gi
const PATH = /(?:[A-Za-z]:)?(?:[\w.@~-]*[\\/])+[\w.@-]+/g
const NUMBER = /\b\d+(\.\d+)?\b/g
const MAX_TOKENS = 400

/** Text with times, hashes, paths and numbers replaced by placeholders, ANSI escapes removed. */
export function normaliseText(text: string): string {
  return text
    .replace(ANSI, '')
    .replace(ISO_TIME, ' <time> ')
    .replace(CLOCK_TIME, ' <time> ')
    .replace(DURATION, ' <duration> ')
    .replace(HASH, ' <hash> ')
    .replace(PATH, ' <path> ')
    .replace(NUMBER, ' <n> ')
    .toLowerCase()
}

/** The distinct normalised tokens of a failure's text, in first-seen order, at most 400. */
export function normaliseTokens(text: string): string[] {
  const seen = new Set<string>()
  for (const token of normaliseText(text).split(/[^a-z0-9<>_]+/)) {
    if (token.length < 2) continue
    seen.add(token)
    if (seen.size >= MAX_TOKENS) break
  }
  return [...seen]
}

/** Jaccard overlap of two token sets, in [0, 1]. Two empty sets overlap fully. */
export function tokenOverlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1
  const left = new Set(a)
  const right = new Set(b)
  let shared = 0
  for (const token of left) if (right.has(token)) shared++
  return shared / (left.size + right.size - shared)
}

/** Two failures are the same error above this share of common normalised tokens (more than 80%). */
export const SAME_ERROR_OVERLAP = 0.8

export function isSameError(a: readonly string[], b: readonly string[]): boolean {
  return tokenOverlap(a, b) > SAME_ERROR_OVERLAP
}

/**
 * Error signature `{pattern}:{ext}:{hash}`: the pattern id (or `unknown`), the extension of the first
 * file the failure points at (or `none`), and 8 hex digits of a hash of the normalised tokens.
 */
export function errorSignature(
  pattern: string | null,
  firstFile: string | undefined,
  tokens: readonly string[],
): string {
  const ext = firstFile ? (/\.([A-Za-z0-9]+)$/.exec(firstFile)?.[1]?.toLowerCase() ?? 'none') : 'none'
  const hash = createHash('sha256').update(tokens.join(' ')).digest('hex').slice(0, 8)
  return `${pattern ?? 'unknown'}:${ext}:${hash}`
}
