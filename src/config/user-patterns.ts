/**
 * Users' failure patterns: the `patterns` key of the loop config is a YAML file path (a list, or
 * `{patterns: [...]}`) or an inline list, validated with the same zod schema as the defaults.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { ConfigError } from './errors.js'
import type { PatternConfig } from './loop-config.js'
import { parsePatternFile } from './pattern-library.js'

/** The user's patterns named by the config (file path relative to `root`), or none. */
export async function loadUserPatterns(
  patterns: string | PatternConfig[] | undefined,
  root: string,
): Promise<PatternConfig[]> {
  if (patterns === undefined) return []
  if (Array.isArray(patterns)) return patterns
  const path = resolve(root, patterns)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new ConfigError(
      `patterns: the file '${patterns}' named in the loop config cannot be read (looked at ${path}).`,
    )
  }
  return parsePatternFile(text, patterns)
}
