/**
 * Dead letters read back: the machine-readable record written beside each dead letter's markdown
 * (`dead-letters/<signature>.json`), and the rule that hands an earlier loop's lesson (its suggestions
 * and what was tried) to a failure like the one it recorded. Pure.
 *
 * Similar means: the same error signature (same pattern, file extension and normalised text), or the
 * same known pattern at the same file (the first location, paths compared without `./` and with `/`).
 * An unclassified failure matches only by signature: "no pattern" says nothing about two failures.
 */
import { z } from 'zod'
import { STRATEGIES, type Strategy } from '../stages.js'
import type { DeadLetter, DeadLetterInput } from './dead-letter.js'

/** Bounds of what a prompt carries from dead letters: letters, tried entries, characters per text. */
export const LESSON_LIMITS = { letters: 2, tried: 5, textChars: 400 } as const

const text = z.string().max(2000)

export const deadLetterRecordSchema = z.strictObject({
  version: z.literal(1),
  loopId: z.string().min(1).max(200),
  signature: z.string().min(1).max(300),
  check: text,
  pattern: z.string().max(200).nullable(),
  /** The file of the failure's first location, when it had one. */
  file: z.string().max(1000).nullable(),
  at: z.string().max(40),
  suggestions: z.strictObject({ rootCause: text, whereToLook: text, alternative: text }),
  tried: z.array(z.strictObject({ iteration: z.number().int(), strategy: z.enum(STRATEGIES), outcome: text })).max(50),
  /** The id of the candidate pattern written beside it (`<signature>.pattern.yml`), if any. */
  candidatePattern: z.string().max(200).optional(),
})
export type DeadLetterRecord = z.infer<typeof deadLetterRecordSchema>

/** The record to write beside a dead letter's markdown. */
export function deadLetterRecord(input: DeadLetterInput, letter: DeadLetter, file: string | null): DeadLetterRecord {
  return {
    version: 1,
    loopId: input.loopId,
    signature: letter.signature,
    check: input.failure.check.slice(0, 2000),
    pattern: input.failure.pattern,
    file,
    at: input.failure.at,
    suggestions: letter.suggestions,
    tried: input.tried.slice(-50).map((t) => ({ ...t, outcome: t.outcome.slice(0, 2000) })),
    ...(letter.candidatePattern ? { candidatePattern: letter.candidatePattern.id } : {}),
  }
}

/** A record read from disk, or null when it is not one (torn, hand-edited, another version). */
export function parseDeadLetterRecord(json: string): DeadLetterRecord | null {
  try {
    const parsed = deadLetterRecordSchema.safeParse(JSON.parse(json))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** What a failure is known by when it is compared with dead letters. */
export interface FailureKey {
  pattern: string | null
  signature?: string | undefined
  file?: string | undefined
}

function samePath(a: string, b: string): boolean {
  const normal = (path: string) => path.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
  return normal(a) === normal(b)
}

/** Whether a dead letter recorded a failure like this one (the rule in this file's comment). */
export function isSimilarToDeadLetter(failure: FailureKey, letter: DeadLetterRecord): boolean {
  if (failure.signature && failure.signature === letter.signature) return true
  if (failure.pattern === null || failure.pattern !== letter.pattern) return false
  return failure.file !== undefined && letter.file !== null && samePath(failure.file, letter.file)
}

/** An earlier loop's lesson, as the agent is told it. */
export interface DeadLetterLesson {
  loopId: string
  signature: string
  check: string
  suggestions: DeadLetterRecord['suggestions']
  tried: { strategy: Strategy; outcome: string }[]
}

/**
 * The lessons for a failure: the similar dead letters, those with the same signature first, then the
 * newest, at most `LESSON_LIMITS.letters`, each trimmed to the limits.
 */
export function lessonsFor(failure: FailureKey, records: readonly DeadLetterRecord[]): DeadLetterLesson[] {
  const clip = (value: string) =>
    value.length > LESSON_LIMITS.textChars ? `${value.slice(0, LESSON_LIMITS.textChars)}…` : value
  const exact = (r: DeadLetterRecord) => (r.signature === failure.signature ? 1 : 0)
  return records
    .filter((record) => isSimilarToDeadLetter(failure, record))
    .sort((a, b) => exact(b) - exact(a) || b.at.localeCompare(a.at))
    .slice(0, LESSON_LIMITS.letters)
    .map((record) => ({
      loopId: record.loopId,
      signature: record.signature,
      check: clip(record.check),
      suggestions: {
        rootCause: clip(record.suggestions.rootCause),
        whereToLook: clip(record.suggestions.whereToLook),
        alternative: clip(record.suggestions.alternative),
      },
      tried: record.tried.slice(-LESSON_LIMITS.tried).map((t) => ({ strategy: t.strategy, outcome: clip(t.outcome) })),
    }))
}

/** The prompt's section for the lessons (none: no lines). */
export function renderLessons(lessons: readonly DeadLetterLesson[]): string[] {
  if (lessons.length === 0) return []
  const lines = [
    '## A loop was stopped by a failure like this one before',
    '',
    'Its dead letter says what a person was told and what did not work there; do not repeat what failed.',
    '',
  ]
  for (const lesson of lessons) {
    lines.push(`From loop \`${lesson.loopId}\` (\`${lesson.signature}\`, check \`${lesson.check}\`):`, '')
    lines.push(`- Likely root cause: ${lesson.suggestions.rootCause}`)
    lines.push(`- Where to look: ${lesson.suggestions.whereToLook}`)
    lines.push(`- Alternative: ${lesson.suggestions.alternative}`)
    if (lesson.tried.length > 0) {
      lines.push(
        `- Tried there without success: ${lesson.tried.map((t) => `\`${t.strategy}\` (${t.outcome})`).join('; ')}`,
      )
    }
    lines.push('')
  }
  return lines
}
