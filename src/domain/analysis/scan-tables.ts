/**
 * The tables the streaming analyzer runs on, built once per pattern library: one Aho-Corasick automaton
 * over every literal signal and a few trigger words, and the location regexes without duplicates.
 */
import { LiteralScanner } from './aho-corasick.js'
import type { CompiledLocation, CompiledSignal, PatternLibrary } from './library.js'

/**
 * Words that make a line worth decoding even when no pattern's literal is on it: error words, and
 * line endings of a path alone on its line (eslint's stylish format names the file on its own line).
 */
const TRIGGERS = [
  'error',
  'Error',
  'ERROR',
  'FAIL',
  'fail',
  'Fail',
  'fatal',
  'warning',
  'panicked',
  '-->',
  ' line ',
  '    at ',
  '\u276f ',
  '\u2715',
  '\u2716',
  '\u00d7',
  ...[
    'js',
    'ts',
    'jsx',
    'tsx',
    'mjs',
    'cjs',
    'mts',
    'cts',
    'py',
    'rs',
    'go',
    'java',
    'c',
    'h',
    'cc',
    'cpp',
    'sh',
    'env',
    'json',
    'yml',
    'yaml',
    'vue',
    'svelte',
    'css',
  ].flatMap((ext) => [`.${ext}\n`, `.${ext}:`, `.${ext}(`]),
]

/** A signal, anchor or excerpt line of one pattern, as the scanner and the line pass see it. */
export interface Matcher {
  pattern: number
  anchor: boolean
  /** False for an excerpt line: it picks lines for the excerpt and never counts towards the score. */
  scored: boolean
  signal: CompiledSignal
}

/** The per-library tables, built once and shared by every analyzer over that library. */
export interface ScanTables {
  scanner: LiteralScanner
  /** literal id -> matcher indexes (trigger literals map to none). */
  literalMatchers: number[][]
  matchers: Matcher[]
  regexMatchers: number[]
  literalOnly: number[]
  locations: CompiledLocation[]
  /** pattern index -> indexes into `locations`. */
  patternLocations: number[][]
}

const tables = new WeakMap<PatternLibrary, ScanTables>()
const encoder = new TextEncoder()

/** The scan tables of a library: every literal in one Aho-Corasick automaton, locations deduplicated. */
export function scanTablesFor(library: PatternLibrary): ScanTables {
  const cached = tables.get(library)
  if (cached) return cached
  const matchers: Matcher[] = []
  library.patterns.forEach((pattern, index) => {
    for (const signal of pattern.signals) matchers.push({ pattern: index, anchor: false, scored: true, signal })
    for (const signal of pattern.anchors) matchers.push({ pattern: index, anchor: true, scored: true, signal })
    for (const signal of pattern.excerpt) matchers.push({ pattern: index, anchor: false, scored: false, signal })
  })
  const literalIds = new Map<string, number>()
  const literalMatchers: number[][] = []
  const idOf = (literal: string): number => {
    let id = literalIds.get(literal)
    if (id === undefined) {
      id = literalMatchers.length
      literalIds.set(literal, id)
      literalMatchers.push([])
    }
    return id
  }
  matchers.forEach((matcher, index) => {
    const { literal, prefilter, prefilterLowerCase } = matcher.signal
    if (literal !== undefined) literalMatchers[idOf(literal)]?.push(index)
    else if (prefilter !== undefined) {
      // A regex's required literal makes its lines candidates; for /i try the usual spellings.
      const spellings = prefilterLowerCase
        ? [prefilter, prefilter.toUpperCase(), prefilter[0]?.toUpperCase() + prefilter.slice(1)]
        : [prefilter]
      for (const spelling of spellings) idOf(spelling)
    }
  })
  for (const trigger of TRIGGERS) idOf(trigger)
  const locations: CompiledLocation[] = []
  const locationIndex = new Map<string, number>()
  const patternLocations = library.patterns.map((pattern) =>
    pattern.locations.map((location) => {
      let index = locationIndex.get(location.source)
      if (index === undefined) {
        index = locations.length
        locationIndex.set(location.source, index)
        locations.push(location)
      }
      return index
    }),
  )
  const table: ScanTables = {
    scanner: new LiteralScanner([...literalIds.keys()].map((literal) => encoder.encode(literal))),
    literalMatchers,
    matchers,
    regexMatchers: matchers.flatMap((m, i) => (m.signal.regex ? [i] : [])),
    literalOnly: matchers.flatMap((m, i) => (m.signal.literal !== undefined ? [i] : [])),
    locations,
    patternLocations,
  }
  tables.set(library, table)
  return table
}
