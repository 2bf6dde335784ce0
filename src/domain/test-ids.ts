/**
 * A JUnit verdict's key, `<check>:<test id>`, as the state and the fan-out verdict files hold it. A key
 * longer than `MAX_TEST_KEY_CHARS` (a long parametrised test) keeps its start and ends in a hash of the
 * whole key: the same test gives the same key in the baseline and in every later run, in the single job
 * and in a verify leg, so its regression is still seen, and two long keys that share their start stay
 * apart.
 */
import { createHash } from 'node:crypto'

export const MAX_TEST_KEY_CHARS = 200
const HASH_CHARS = 16

/** `key` itself when short enough, else its start, `#`, and the first 16 hex digits of its SHA-256. */
export function boundedTestKey(key: string): string {
  if (key.length <= MAX_TEST_KEY_CHARS) return key
  const hash = createHash('sha256').update(key).digest('hex').slice(0, HASH_CHARS)
  return `${key.slice(0, MAX_TEST_KEY_CHARS - HASH_CHARS - 1)}#${hash}`
}

/** The key of `testId` of `check`, bounded. */
export function testKey(check: string, testId: string): string {
  return boundedTestKey(`${check}:${testId}`)
}
