/**
 * Locations (file, line, column, message) found in a check's output by the patterns' location regexes:
 * collected line by line in bounded memory, then deduplicated and ranked for the report (the project's
 * source first, library frames only when nothing else was found). Pure.
 */
import type { Location } from '../state.js'
import { isLibraryFile, rankLocations } from './frames.js'
import type { CompiledLocation } from './library.js'

/** Locations kept (the first ones in the output). */
export const MAX_LOCATIONS = 50
const MAX_HITS_PER_LOCATION = 50

interface LocationHit {
  order: number
  location: Location
}

/** Collects what each location regex finds, line by line, and picks the locations to report. */
export class LocationCollector {
  private readonly hits: LocationHit[][]
  /** Frames in code the project does not own, kept apart so that a deep trace cannot crowd out its own frames. */
  private readonly libraryHits: LocationHit[] = []
  private order = 0

  constructor(
    private readonly locations: readonly CompiledLocation[],
    /** pattern index -> indexes into `locations`. */
    private readonly patternLocations: readonly (readonly number[])[],
  ) {
    this.hits = locations.map(() => [])
  }

  /**
   * Runs the location regexes over a candidate line. `lastPathLine` and `lastErrorLine` stand in for a
   * regex's missing `file` or `message` group (eslint's stylish format, rustc's `-->` lines).
   */
  collect(text: string, trimmed: string, lastPathLine: string | undefined, lastErrorLine: string | undefined): void {
    if (
      !/[:([,] ?\d|line:? \d|^FAILED |^\[warn\]|^would reformat|^diff |^Diff in| format |Merge conflict in|\.go$/.test(
        text,
      )
    ) {
      return
    }
    const { locations } = this
    for (let index = 0; index < locations.length; index++) {
      const hits = this.hits[index] as LocationHit[]
      if (hits.length >= MAX_HITS_PER_LOCATION) continue
      const location = locations[index] as CompiledLocation
      if (location.prefilter !== undefined && !text.includes(location.prefilter)) continue
      const match = location.regex.exec(text)
      if (!match) continue
      const groups = (match as unknown as { groups?: Record<string, string | undefined> }).groups ?? {}
      const file = cleanFile(location.hasFile ? groups.file : lastPathLine)
      if (file === undefined) continue
      const found: Location = { file }
      const line = Number(groups.line)
      const column = Number(groups.column)
      if (groups.line !== undefined && Number.isSafeInteger(line)) found.line = line
      if (groups.column !== undefined && Number.isSafeInteger(column)) found.column = column
      const message = (location.hasMessage ? groups.message : lastErrorLine)?.trim()
      if (message) found.message = message.length > 500 ? `${message.slice(0, 500)}…` : message
      else if (location.hasMessage === false && trimmed !== lastErrorLine && lastErrorLine) {
        found.message = lastErrorLine
      }
      if (isLibraryFile(file)) {
        if (this.libraryHits.length < MAX_LOCATIONS) this.libraryHits.push({ order: this.order++, location: found })
      } else hits.push({ order: this.order++, location: found })
    }
  }

  /**
   * The locations to report: the winning pattern's own (any pattern's when it has none; library frames
   * when there is nothing else), deduplicated, the project's source before its tests.
   */
  pick(patternIndex: number): Location[] {
    const own = patternIndex >= 0 ? (this.patternLocations[patternIndex] ?? []) : []
    const pools = own.length > 0 ? own.map((i) => this.hits[i] ?? []) : []
    let hits = pools.flat()
    if (hits.length === 0) hits = this.hits.flat()
    if (hits.length === 0) hits = [...this.libraryHits]
    hits.sort((a, b) => a.order - b.order)
    const seen = new Set<string>()
    const result: Location[] = []
    for (const { location } of hits) {
      const key = `${location.file}:${location.line ?? ''}:${location.column ?? ''}`
      if (seen.has(key)) continue
      seen.add(key)
      result.push(location)
    }
    return withCodeUnderTest(rankLocations(result))
  }
}

/**
 * Adds, after the first location in each Go test file `x_test.go`, the `x.go` beside it (the code that
 * test exercises, where the bug usually is) unless the output already points into it. It has no line:
 * the output did not name one.
 */
export function withCodeUnderTest(locations: readonly Location[]): Location[] {
  const result: Location[] = []
  // Go prints test files relative (`price_test.go:7`) and stack frames absolute: compare by base name.
  const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1)
  const named = new Set(locations.map((l) => baseName(l.file)))
  for (const location of locations) {
    result.push(location)
    const subject = /^(.*)_test\.go$/.exec(location.file)?.[1]
    if (subject === undefined || named.has(baseName(`${subject}.go`))) continue
    named.add(baseName(`${subject}.go`))
    result.push({ file: `${subject}.go`, message: `the code under test of ${location.file}` })
  }
  return result.slice(0, MAX_LOCATIONS)
}

/**
 * Files of a language's runtime or package cache, never the project's: Go's GOROOT (`/usr/local/go/src/`,
 * `/usr/lib/go-1.22/src/`, the runner's `go/1.22.1/x64/src/`) and module cache (`/pkg/mod/`), Python's
 * standard library and site-packages (`/lib/python3.11/`). A standard package's path has no dot, unlike a
 * GOPATH project's (`go/src/github.com/...`), which is kept.
 */
const RUNTIME_PATH =
  /\/(?:go|go-?\d[\d.]*|go\/\d[\d.]*\/x64)\/src\/[a-z0-9_]+\/(?:[a-z0-9_]+\/)*[^/]+\.go$|\/pkg\/mod\/|\/lib\/python\d\.\d+\//

function cleanFile(file: string | undefined): string | undefined {
  if (file === undefined) return undefined
  let cleaned = file.trim().replace(/^file:\/\//, '')
  if (cleaned.startsWith('./')) cleaned = cleaned.slice(2)
  if (cleaned.length === 0 || cleaned.length > 1024) return undefined
  if (cleaned.startsWith('node:') || cleaned.includes('/node_modules/') || cleaned.startsWith('/rustc/'))
    return undefined
  if (RUNTIME_PATH.test(cleaned)) return undefined
  if (cleaned.includes('<') || cleaned === '[eval]') return undefined
  return cleaned
}
