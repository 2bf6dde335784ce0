/**
 * Users' failure patterns: the `patterns` key of the loop config is a YAML file path (a list, or
 * `{patterns: [...]}`) or an inline list. Validated with the same zod schema as the defaults.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parse } from 'yaml'
import { z } from 'zod'
import { ConfigError } from './errors.js'
import { type PatternConfig, patternSchema } from './loop-config.js'

const patternFileSchema = z.union([z.array(patternSchema), z.strictObject({ patterns: z.array(patternSchema) })])

/** Parses a patterns file's text; throws ConfigError naming the file, the key and the problem. */
export function parsePatternFile(text: string, fileName: string): PatternConfig[] {
  let raw: unknown
  try {
    raw = parse(text)
  } catch (error) {
    throw new ConfigError(`${fileName}: invalid YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  const result = patternFileSchema.safeParse(raw)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
    throw new ConfigError(`${fileName}: not a valid pattern list (a list of patterns, or {patterns: [...]}):\n  - ${problems.join('\n  - ')}`)
  }
  return Array.isArray(result.data) ? result.data : result.data.patterns
}

/** The user's patterns named by the config (file path relative to `root`), or none. */
export async function loadUserPatterns(patterns: string | PatternConfig[] | undefined, root: string): Promise<PatternConfig[]> {
  if (patterns === undefined) return []
  if (Array.isArray(patterns)) return patterns
  const path = resolve(root, patterns)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new ConfigError(`patterns: the file '${patterns}' named in the loop config cannot be read (looked at ${path}).`)
  }
  return parsePatternFile(text, patterns)
}
