/**
 * Loads failure patterns from YAML: users' pattern files and the loop config's inline list (and, at
 * build time, the default library). Pure (the caller reads files); every pattern is validated with the
 * loop config's `patternSchema`.
 */
import { parse } from 'yaml'
import { duplicatePatternError, type PatternConfig, PatternError } from '../domain/analysis/pattern-config.js'
import { patternSchema } from './loop-config.js'

/**
 * Parses a pattern file: a YAML list of patterns, or a mapping `{patterns: [...]}` (keys starting with
 * `x-` are ignored, so files can hold shared YAML anchors). `source` names the file in error messages.
 */
export function parsePatternFile(text: string, source: string): PatternConfig[] {
  let document: unknown
  try {
    document = parse(text, { maxAliasCount: 1000 })
  } catch (error) {
    throw new PatternError(`Pattern file ${source} is not valid YAML: ${(error as Error).message}`)
  }
  let list: unknown = document
  if (document !== null && typeof document === 'object' && !Array.isArray(document)) {
    const keys = Object.keys(document).filter((key) => !key.startsWith('x-'))
    const unknown = keys.filter((key) => key !== 'patterns')
    if (unknown.length > 0) {
      throw new PatternError(
        `Pattern file ${source} has unknown top-level key(s) ${unknown.map((k) => `'${k}'`).join(', ')}; expected a list of patterns or {patterns: [...]}.`,
      )
    }
    list = (document as { patterns?: unknown }).patterns
  }
  if (!Array.isArray(list)) {
    throw new PatternError(
      `Pattern file ${source} must be a list of patterns or {patterns: [...]}; got ${describe(list)}.`,
    )
  }
  return validatePatternList(list, source)
}

/** Validates an inline list of patterns (the `patterns` key of the loop config, or a parsed file). */
export function validatePatternList(list: readonly unknown[], source: string): PatternConfig[] {
  const seen = new Set<string>()
  return list.map((entry, index) => {
    const result = patternSchema.safeParse(entry)
    const id = entry !== null && typeof entry === 'object' && 'id' in entry ? String((entry as { id: unknown }).id) : ''
    if (!result.success) {
      const problems = result.error.issues
        .map(
          (issue) =>
            `${issue.path.length > 0 ? issue.path.join('.') : '(pattern)'}: ${issue.message}${gotAt(entry, issue.path)}`,
        )
        .join('; ')
      throw new PatternError(`Pattern #${index + 1}${id ? ` '${id}'` : ''} in ${source} is invalid: ${problems}.`)
    }
    if (seen.has(result.data.id)) throw duplicatePatternError(result.data.id, source)
    seen.add(result.data.id)
    return result.data
  })
}

/** `; got <value>` for the value at `path` in a pattern entry (`; got nothing` where there is none). */
function gotAt(entry: unknown, path: readonly PropertyKey[]): string {
  let value: unknown = entry
  for (const part of path)
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[part] : undefined
  return `; got ${value === undefined ? 'nothing' : JSON.stringify(value)}`
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`
}
