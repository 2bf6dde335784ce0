// Which dead letters a failure learns from: the same signature, or the same known pattern at the same
// file; never "no pattern" alone. What it is told is bounded.
import { describe, expect, it } from 'vitest'
import {
  type DeadLetterRecord,
  type FailureKey,
  isSimilarToDeadLetter,
  LESSON_LIMITS,
  lessonsFor,
  parseDeadLetterRecord,
  renderLessons,
} from '../../../src/domain/analysis/dead-letter-lessons.js'

const letter = (fields: Partial<DeadLetterRecord> = {}): DeadLetterRecord => ({
  version: 1,
  loopId: 'earlier',
  signature: 'type-error:ts:1a2b3c4d',
  check: 'types',
  pattern: 'type-error',
  file: 'src/money.ts',
  at: '2025-01-01T00:00:00.000Z',
  suggestions: { rootCause: 'A type mismatch.', whereToLook: 'The declarations.', alternative: 'Change the type.' },
  tried: [{ iteration: 2, strategy: 'context_expand', outcome: 'same error' }],
  ...fields,
})

describe('isSimilarToDeadLetter', () => {
  it.each<[string, FailureKey, Partial<DeadLetterRecord>, boolean]>([
    ['the same signature', { pattern: 'type-error', signature: 'type-error:ts:1a2b3c4d' }, {}, true],
    [
      'the same pattern at the same file',
      { pattern: 'type-error', signature: 'type-error:ts:ffff0000', file: 'src/money.ts' },
      {},
      true,
    ],
    ['the same file spelled ./src\\money.ts', { pattern: 'type-error', file: './src\\money.ts' }, {}, true],
    ['the same pattern at another file', { pattern: 'type-error', file: 'src/other.ts' }, {}, false],
    ['another pattern at the same file', { pattern: 'lint-error', file: 'src/money.ts' }, {}, false],
    ['the same pattern and no location', { pattern: 'type-error' }, {}, false],
    ['a letter without a location', { pattern: 'type-error', file: 'src/money.ts' }, { file: null }, false],
    ['unclassified at the same file', { pattern: null, file: 'src/money.ts' }, { pattern: null }, false],
    [
      'unclassified with the same signature',
      { pattern: null, signature: 'unknown:none:a08d7b97' },
      { pattern: null, signature: 'unknown:none:a08d7b97', file: null },
      true,
    ],
  ])('%s: %s', (_case, failure, fields, similar) => {
    expect(isSimilarToDeadLetter(failure, letter(fields))).toBe(similar)
  })
})

describe('lessonsFor', () => {
  const failure: FailureKey = { pattern: 'type-error', signature: 'type-error:ts:1a2b3c4d', file: 'src/money.ts' }

  it('puts the same signature first, then the newest, and keeps at most the bound', () => {
    const records = [
      letter({ loopId: 'old-file', signature: 'type-error:ts:00000001', at: '2025-01-01T00:00:00.000Z' }),
      letter({ loopId: 'new-file', signature: 'type-error:ts:00000002', at: '2025-03-01T00:00:00.000Z' }),
      letter({ loopId: 'exact', at: '2024-01-01T00:00:00.000Z' }),
      letter({ loopId: 'unrelated', pattern: 'lint-error', signature: 'lint-error:ts:9', file: 'x.ts' }),
    ]
    expect(lessonsFor(failure, records).map((l) => l.loopId)).toEqual(
      ['exact', 'new-file'].slice(0, LESSON_LIMITS.letters),
    )
  })

  it('clips long texts and keeps the last tried entries', () => {
    const long = 'x'.repeat(5000)
    const tried = Array.from({ length: 12 }, (_, i) => ({
      iteration: i + 1,
      strategy: 'context_expand' as const,
      outcome: long,
    }))
    const [lesson] = lessonsFor(failure, [
      letter({ suggestions: { rootCause: long, whereToLook: 'w', alternative: 'a' }, tried }),
    ])
    expect(lesson?.suggestions.rootCause.length).toBe(LESSON_LIMITS.textChars + 1)
    expect(lesson?.tried).toHaveLength(LESSON_LIMITS.tried)
    expect(lesson?.tried[0]?.outcome.length).toBe(LESSON_LIMITS.textChars + 1)
  })

  it('renders nothing for no lesson, and the suggestions and what was tried for one', () => {
    expect(renderLessons([])).toEqual([])
    const text = renderLessons(lessonsFor(failure, [letter()])).join('\n')
    expect(text).toContain('From loop `earlier`')
    expect(text).toContain('- Likely root cause: A type mismatch.')
    expect(text).toContain('- Tried there without success: `context_expand` (same error)')
  })
})

describe('parseDeadLetterRecord', () => {
  it.each([
    ['a record', JSON.stringify(letter()), true],
    ['torn JSON', '{"version": 1, "loopId"', false],
    ['another version', JSON.stringify({ ...letter(), version: 2 }), false],
    [
      'an unknown strategy',
      JSON.stringify(letter({ tried: [{ iteration: 1, strategy: 'pray' as never, outcome: '' }] })),
      false,
    ],
  ])('%s', (_case, json, valid) => {
    expect(parseDeadLetterRecord(json) !== null).toBe(valid)
  })
})
