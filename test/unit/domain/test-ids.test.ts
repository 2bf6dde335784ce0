// A JUnit verdict's key: short keys as they are; a long one (a parametrised test) keeps its start and ends
// in a hash of the whole key, the same wherever it is computed.
import { describe, expect, it } from 'vitest'
import { boundedTestKey, MAX_TEST_KEY_CHARS, testKey } from '../../../src/domain/test-ids.js'

const LONG = `renders the table with ${'[row, column] '.repeat(20)}`

describe('testKey', () => {
  it.each([
    { title: 'a short key as it is', check: 'unit', id: 'math.adds', key: 'unit:math.adds' },
    {
      title: 'a key of exactly the limit as it is',
      check: 'u',
      id: 'x'.repeat(MAX_TEST_KEY_CHARS - 2),
      key: `u:${'x'.repeat(MAX_TEST_KEY_CHARS - 2)}`,
    },
  ])('$title', ({ check, id, key }) => {
    expect(testKey(check, id)).toBe(key)
  })

  it.each([
    { title: 'one character over the limit', id: 'y'.repeat(MAX_TEST_KEY_CHARS - 4) },
    { title: 'a long parametrised test', id: LONG },
  ])('$title: its start, then # and 16 hex digits, the limit long', ({ id }) => {
    const key = testKey('unit', id)
    expect(key).toHaveLength(MAX_TEST_KEY_CHARS)
    expect(key).toMatch(/^unit:.+#[0-9a-f]{16}$/)
    expect(key.startsWith(`unit:${id}`.slice(0, MAX_TEST_KEY_CHARS - 17))).toBe(true)
  })

  it('gives one test the same key each time, and two long tests that share their start different keys', () => {
    expect(testKey('unit', LONG)).toBe(testKey('unit', LONG))
    expect(testKey('unit', `${LONG} a`)).not.toBe(testKey('unit', `${LONG} b`))
    // Bounding a bounded key changes nothing: a verify leg may bound what junitResults bounded.
    expect(boundedTestKey(testKey('unit', LONG))).toBe(testKey('unit', LONG))
  })
})
