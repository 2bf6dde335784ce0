/**
 * The streaming failure analyzer (DESIGN.md section 4): classifies one check's output, extracts
 * locations, and chooses a strategy, over a stream of chunks in bounded memory.
 *
 * How it stays fast and bounded: one Aho-Corasick pass over the raw bytes finds every literal signal and
 * a few trigger words; only the lines that contain a hit ("candidate lines", at most 20,000 of them)
 * are decoded and given to the regex signals and location regexes (re2js, linear time). Lines are
 * capped at 64 KiB; excerpts, locations and the tail of the output are capped too.
 */
import type { CheckKind, Strategy } from '../stages.js'
import type { Location } from '../state.js'
import { LiteralScanner } from './aho-corasick.js'
import type { CompiledLocation, CompiledPattern, CompiledSignal, PatternLibrary } from './library.js'
import { errorSignature, normaliseTokens } from './similarity.js'

/** The confidence tiers of DESIGN.md section 4. */
export type ConfidenceTier = 'confident' | 'review' | 'consider-escalation' | 'none'

/** What the analyzer concluded about one check's output. */
export interface Analysis {
  pattern: string | null
  confidence: number
  tier: ConfidenceTier
  strategy: Strategy
  alternates: Strategy[]
  retryable: boolean
  maxAutoRetries?: number
  locations: Location[]
  signature: string
  tokens: string[]
  excerpt: string
  hint?: string
}

/** Facts the controller knows besides the output. */
export interface AnalysisExtras {
  timedOut?: boolean
  exitCode?: number | null
  spawnError?: string
}

export interface AnalyzerOptions {
  kind?: CheckKind
}

/** Below this confidence there is no match and the strategy is `analyze_then_fix`. */
export const NO_MATCH_BELOW = 0.3
/** How much one matched signal adds to the evidence; an anchor weighs three signals. */
export const ANCHOR_WEIGHT = 3
/** confidence = 1 - EVIDENCE_BASE ^ evidence (one signal 0.4, two 0.64, an anchor 0.78). */
export const EVIDENCE_BASE = 0.6
/** Locations kept (the first ones in the output). */
export const MAX_LOCATIONS = 50

const MAX_LINE_BYTES = 64 * 1024
const LINE_DECODE_CHARS = 4096
const MAX_CANDIDATE_LINES = 20_000
const MAX_HITS_PER_LOCATION = 50
const EXCERPT_LINES = 12
const EXCERPT_LINE_CHARS = 300
const MAX_EXCERPT_CHARS = 4000
const TAIL_BYTES = 8 * 1024
const TOKEN_TEXT_CHARS = 8000
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are control characters
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[()][A-Z0-9]/g

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

interface Matcher {
  pattern: number
  anchor: boolean
  signal: CompiledSignal
}

/** The per-library tables, built once and shared by every analyzer over that library. */
interface Prepared {
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

const prepared = new WeakMap<PatternLibrary, Prepared>()
const encoder = new TextEncoder()

function prepare(library: PatternLibrary): Prepared {
  const cached = prepared.get(library)
  if (cached) return cached
  const matchers: Matcher[] = []
  library.patterns.forEach((pattern, index) => {
    for (const signal of pattern.signals) matchers.push({ pattern: index, anchor: false, signal })
    for (const signal of pattern.anchors) matchers.push({ pattern: index, anchor: true, signal })
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
  const table: Prepared = {
    scanner: new LiteralScanner([...literalIds.keys()].map((literal) => encoder.encode(literal))),
    literalMatchers,
    matchers,
    regexMatchers: matchers.flatMap((m, i) => (m.signal.regex ? [i] : [])),
    literalOnly: matchers.flatMap((m, i) => (m.signal.literal !== undefined ? [i] : [])),
    locations,
    patternLocations,
  }
  prepared.set(library, table)
  return table
}

interface LocationHit {
  order: number
  location: Location
}

/**
 * Analyzes a check's output as it streams: `push` chunks (any size, any bytes), then `finish` once.
 * Memory stays bounded whatever the output's size.
 */
export class StreamingAnalyzer {
  private readonly table: Prepared
  private readonly matched: Uint8Array
  private readonly excerptLines: string[][]
  private readonly genericLines: string[] = []
  private readonly locationHits: LocationHit[][]
  private scanState = 0
  private carry: Buffer = Buffer.alloc(0)
  private carryStates: number[] = []
  private carryCandidate = false
  private tail: Buffer = Buffer.alloc(0)
  private candidateLines = 0
  private hitOrder = 0
  private lastPathLine: string | undefined
  private lastErrorLine: string | undefined
  private finished = false
  /** Bytes seen so far. */
  bytes = 0

  constructor(
    private readonly library: PatternLibrary,
    private readonly options: AnalyzerOptions = {},
  ) {
    this.table = prepare(library)
    this.matched = new Uint8Array(this.table.matchers.length)
    this.excerptLines = library.patterns.map(() => [])
    this.locationHits = this.table.locations.map(() => [])
  }

  /** Feeds the next chunk of output. */
  push(chunk: Buffer | string): void {
    if (this.finished) throw new Error('StreamingAnalyzer.push after finish')
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    if (bytes.length === 0) return
    this.bytes += bytes.length
    this.keepTail(bytes)
    const positions: number[] = []
    const states: number[] = []
    this.scanState = this.table.scanner.scan(bytes, this.scanState, positions, states)
    for (const state of states) this.markLiterals(state)
    this.collectLines(bytes, positions, states)
  }

  /** Concludes the analysis. `extra` carries what the controller knows (timeout, exit code, spawn error). */
  finish(extra: AnalysisExtras = {}): Analysis {
    if (!this.finished) {
      if (extra.spawnError) this.push(`\n${extra.spawnError}\n`)
      if (this.carry.length > 0 && this.carryCandidate) this.processLine(this.carry, this.carryStates)
      this.carry = Buffer.alloc(0)
      this.finished = true
    }
    return this.conclude(extra)
  }

  private keepTail(bytes: Buffer): void {
    if (bytes.length >= TAIL_BYTES) this.tail = Buffer.from(bytes.subarray(bytes.length - TAIL_BYTES))
    else {
      const joined = Buffer.concat([this.tail, bytes])
      this.tail = joined.length > TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - TAIL_BYTES)) : joined
    }
  }

  private markLiterals(state: number): void {
    for (const literal of this.table.scanner.outputs[state] ?? []) {
      for (const matcher of this.table.literalMatchers[literal] ?? []) this.matched[matcher] = 1
    }
  }

  /** Groups the hits by line and processes each candidate line once; keeps the unfinished last line. */
  private collectLines(bytes: Buffer, positions: number[], states: number[]): void {
    const lastNewline = bytes.lastIndexOf(10)
    if (lastNewline === -1) {
      this.carryCandidate ||= positions.length > 0
      if (this.carryStates.length < 64) this.carryStates.push(...states.slice(0, 64))
      this.appendCarry(bytes)
      return
    }
    let groupEnd = -1
    let groupStates: number[] = []
    const firstNewline = bytes.indexOf(10)
    if (this.carryCandidate) {
      groupEnd = firstNewline
      groupStates = this.carryStates
    }
    for (let h = 0; h < positions.length; h++) {
      const position = positions[h] as number
      if (position > lastNewline) {
        this.carryCandidate = true
        if (this.carryStates.length < 64) this.carryStates.push(states[h] as number)
        continue
      }
      const end = bytes[position] === 10 ? position : bytes.indexOf(10, position)
      if (end === groupEnd) {
        if (groupStates.length < 64) groupStates.push(states[h] as number)
        continue
      }
      if (groupEnd !== -1) this.emitLine(bytes, groupEnd, groupStates)
      groupEnd = end
      groupStates = [states[h] as number]
    }
    if (groupEnd !== -1) this.emitLine(bytes, groupEnd, groupStates)
    const trailingHits = this.carryCandidate && positions.some((p) => p > lastNewline)
    const trailingStates = trailingHits ? this.carryStates.slice() : []
    this.carry = Buffer.alloc(0)
    this.carryStates = trailingStates
    this.carryCandidate = trailingHits
    this.appendCarry(bytes.subarray(lastNewline + 1))
  }

  private emitLine(bytes: Buffer, end: number, states: number[]): void {
    const before = end === 0 ? -1 : bytes.lastIndexOf(10, end - 1)
    const segment = bytes.subarray(before + 1, end)
    const line = before === -1 && this.carry.length > 0 ? Buffer.concat([this.carry, segment]) : segment
    if (before === -1) {
      this.carry = Buffer.alloc(0)
      this.carryStates = []
      this.carryCandidate = false
    }
    this.processLine(line, states)
  }

  private appendCarry(bytes: Buffer): void {
    if (this.carry.length >= MAX_LINE_BYTES || bytes.length === 0) return
    const room = MAX_LINE_BYTES - this.carry.length
    const kept = bytes.subarray(0, room)
    // Copy: a carry must not pin the caller's (possibly large) chunk in memory.
    this.carry = this.carry.length === 0 ? Buffer.from(kept) : Buffer.concat([this.carry, kept])
  }

  private processLine(raw: Buffer, states: readonly number[]): void {
    if (this.candidateLines >= MAX_CANDIDATE_LINES) return
    this.candidateLines++
    let text = raw.toString('utf8', 0, Math.min(raw.length, LINE_DECODE_CHARS * 2)).slice(0, LINE_DECODE_CHARS)
    const hadEscape = text.includes('\u001b')
    if (hadEscape) text = text.replace(ANSI, '')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    const trimmed = text.trim()
    if (trimmed.length === 0) return
    const { matchers } = this.table
    const linePatterns = new Set<number>()
    for (const state of states) {
      for (const literal of this.table.scanner.outputs[state] ?? []) {
        for (const matcher of this.table.literalMatchers[literal] ?? []) {
          linePatterns.add((matchers[matcher] as Matcher).pattern)
        }
      }
    }
    if (hadEscape) {
      // Colour codes can split a literal; look again in the plain text.
      for (const index of this.table.literalOnly) {
        const matcher = matchers[index] as Matcher
        if (text.includes(matcher.signal.literal as string)) {
          this.matched[index] = 1
          linePatterns.add(matcher.pattern)
        }
      }
    }
    let lower: string | undefined
    for (const index of this.table.regexMatchers) {
      const matcher = matchers[index] as Matcher
      const { prefilter, prefilterLowerCase, regex } = matcher.signal
      if (this.matched[index] === 1 && this.excerptLines[matcher.pattern]?.length === EXCERPT_LINES) continue
      if (prefilter !== undefined) {
        if (prefilterLowerCase && lower === undefined) lower = text.toLowerCase()
        const haystack = prefilterLowerCase ? (lower as string) : text
        if (!haystack.includes(prefilter)) continue
      }
      if (regex?.test(text)) {
        this.matched[index] = 1
        linePatterns.add(matcher.pattern)
      }
    }
    const clipped = trimmed.length > EXCERPT_LINE_CHARS ? `${trimmed.slice(0, EXCERPT_LINE_CHARS)}…` : trimmed
    for (const pattern of linePatterns) {
      const lines = this.excerptLines[pattern] as string[]
      if (lines.length < EXCERPT_LINES) lines.push(clipped)
    }
    const looksLikeError = linePatterns.size > 0 || /\b(error|Error|ERROR|FAIL|fatal)\b/.test(text)
    if (looksLikeError && this.genericLines.length < EXCERPT_LINES) this.genericLines.push(clipped)
    this.extractLocations(text, trimmed)
    if (/^[^\s:()'"]+\.[A-Za-z0-9]+$/.test(trimmed) && trimmed.length < 512) this.lastPathLine = trimmed
    else if (looksLikeError) this.lastErrorLine = clipped
  }

  private extractLocations(text: string, trimmed: string): void {
    if (
      !/[:([,] ?\d|line \d|^FAILED |^\[warn\]|^would reformat|^diff |^Diff in| format |Merge conflict in/.test(text)
    ) {
      return
    }
    const { locations } = this.table
    for (let index = 0; index < locations.length; index++) {
      const hits = this.locationHits[index] as LocationHit[]
      if (hits.length >= MAX_HITS_PER_LOCATION) continue
      const location = locations[index] as CompiledLocation
      if (location.prefilter !== undefined && !text.includes(location.prefilter)) continue
      const match = location.regex.exec(text)
      if (!match) continue
      const groups = (match as unknown as { groups?: Record<string, string | undefined> }).groups ?? {}
      const file = cleanFile(location.hasFile ? groups.file : this.lastPathLine)
      if (file === undefined) continue
      const found: Location = { file }
      const line = Number(groups.line)
      const column = Number(groups.column)
      if (groups.line !== undefined && Number.isSafeInteger(line)) found.line = line
      if (groups.column !== undefined && Number.isSafeInteger(column)) found.column = column
      const message = (location.hasMessage ? groups.message : this.lastErrorLine)?.trim()
      if (message) found.message = message.length > 500 ? `${message.slice(0, 500)}…` : message
      else if (location.hasMessage === false && trimmed !== this.lastErrorLine && this.lastErrorLine) {
        found.message = this.lastErrorLine
      }
      hits.push({ order: this.hitOrder++, location: found })
    }
  }

  private conclude(extra: AnalysisExtras): Analysis {
    const scores = this.score(extra)
    let best = -1
    for (let i = 0; i < scores.length; i++) {
      const candidate = scores[i] as PatternScore
      const current = best === -1 ? undefined : (scores[best] as PatternScore)
      if (candidate.confidence <= 0) continue
      if (
        !current ||
        candidate.confidence > current.confidence ||
        (candidate.confidence === current.confidence && candidate.anchors > current.anchors)
      ) {
        best = i
      }
    }
    const winner = best === -1 ? undefined : this.library.patterns[best]
    const confidence = best === -1 ? 0 : (scores[best] as PatternScore).confidence
    const matchedPattern = winner && confidence >= NO_MATCH_BELOW ? winner : undefined
    const locations = this.pickLocations(matchedPattern ? best : -1)
    const excerptSource = (matchedPattern ? this.excerptLines[best] : undefined)?.length
      ? (this.excerptLines[best] as string[])
      : this.genericLines
    const excerptLines = excerptSource.length > 0 ? excerptSource : this.tailLines()
    const excerpt = excerptLines.join('\n').slice(0, MAX_EXCERPT_CHARS)
    const tokenText = [...excerptLines, ...locations.map((l) => l.message ?? '')].join('\n').slice(0, TOKEN_TEXT_CHARS)
    const tokens = normaliseTokens(tokenText)
    const patternId = matchedPattern?.id ?? null
    const analysis: Analysis = {
      pattern: patternId,
      confidence: round(confidence),
      tier: tierOf(matchedPattern ? confidence : 0),
      strategy: matchedPattern?.strategy ?? 'analyze_then_fix',
      alternates: matchedPattern ? [...matchedPattern.alternates] : ['context_expand'],
      retryable: matchedPattern?.retryable ?? true,
      locations,
      signature: errorSignature(patternId, locations[0]?.file, tokens),
      tokens,
      excerpt,
    }
    if (matchedPattern?.maxAutoRetries !== undefined) analysis.maxAutoRetries = matchedPattern.maxAutoRetries
    if (matchedPattern?.hint !== undefined) analysis.hint = matchedPattern.hint
    return analysis
  }

  private score(extra: AnalysisExtras): PatternScore[] {
    const scores = this.library.patterns.map(
      (): PatternScore => ({ signals: 0, anchors: 0, total: 0, evidence: 0, confidence: 0, extra: 0 }),
    )
    this.table.matchers.forEach((matcher, index) => {
      const score = scores[matcher.pattern] as PatternScore
      if (!matcher.anchor) score.total++
      if (this.matched[index] !== 1) return
      if (matcher.anchor) score.anchors++
      else score.signals++
    })
    const boost = (id: string, evidence: number) => {
      const index = this.library.patterns.findIndex((p) => p.id === id)
      if (index >= 0) (scores[index] as PatternScore).extra += evidence
    }
    if (extra.exitCode === 137) boost('out-of-memory', ANCHOR_WEIGHT)
    if (extra.exitCode === 127) boost('command-not-found', 1)
    if (extra.exitCode === 126) boost('permission-error', 1)
    if (extra.spawnError && /\bENOENT\b/.test(extra.spawnError)) boost('command-not-found', ANCHOR_WEIGHT)
    if (extra.spawnError && /\bEACCES\b/.test(extra.spawnError)) boost('permission-error', ANCHOR_WEIGHT)
    this.library.patterns.forEach((pattern, index) => {
      const score = scores[index] as PatternScore
      let evidence = score.signals + ANCHOR_WEIGHT * score.anchors + score.extra
      if (evidence > 0 && this.options.kind && this.options.kind !== 'custom' && pattern.kinds.length > 0) {
        evidence = pattern.kinds.includes(this.options.kind) ? evidence + 1 : evidence / 2
      }
      score.evidence = evidence
      const ratio = score.total > 0 ? score.signals / score.total : 0
      score.confidence = Math.min(1, Math.max(ratio, 1 - EVIDENCE_BASE ** evidence))
    })
    if (extra.timedOut) {
      const index = this.library.patterns.findIndex((p) => p.id === 'timeout')
      if (index >= 0) {
        const score = scores[index] as PatternScore
        score.confidence = 1
        score.anchors = Number.MAX_SAFE_INTEGER
      }
    }
    return scores
  }

  private pickLocations(patternIndex: number): Location[] {
    const own = patternIndex >= 0 ? (this.table.patternLocations[patternIndex] ?? []) : []
    const pools = own.length > 0 ? own.map((i) => this.locationHits[i] ?? []) : []
    let hits = pools.flat()
    if (hits.length === 0) hits = this.locationHits.flat()
    hits.sort((a, b) => a.order - b.order)
    const seen = new Set<string>()
    const result: Location[] = []
    for (const { location } of hits) {
      const key = `${location.file}:${location.line ?? ''}:${location.column ?? ''}`
      if (seen.has(key)) continue
      seen.add(key)
      result.push(location)
      if (result.length >= MAX_LOCATIONS) break
    }
    return result
  }

  private tailLines(): string[] {
    return this.tail
      .toString('utf8')
      .replace(ANSI, '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .slice(-EXCERPT_LINES)
      .map((line) => (line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS)}…` : line))
  }
}

interface PatternScore {
  signals: number
  anchors: number
  total: number
  evidence: number
  confidence: number
  extra: number
}

/** Analyzes a whole output at once (tests, small outputs); the same rules as the streaming analyzer. */
export function analyzeText(
  text: string,
  library: PatternLibrary,
  options: AnalyzerOptions & AnalysisExtras = {},
): Analysis {
  const analyzer = new StreamingAnalyzer(library, options.kind ? { kind: options.kind } : {})
  analyzer.push(text)
  const extra: AnalysisExtras = {}
  if (options.timedOut !== undefined) extra.timedOut = options.timedOut
  if (options.exitCode !== undefined) extra.exitCode = options.exitCode
  if (options.spawnError !== undefined) extra.spawnError = options.spawnError
  return analyzer.finish(extra)
}

/** The tier of a confidence (DESIGN.md section 4). */
export function tierOf(confidence: number): ConfidenceTier {
  if (confidence >= 0.7) return 'confident'
  if (confidence >= 0.5) return 'review'
  if (confidence >= NO_MATCH_BELOW) return 'consider-escalation'
  return 'none'
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

function cleanFile(file: string | undefined): string | undefined {
  if (file === undefined) return undefined
  let cleaned = file.trim().replace(/^file:\/\//, '')
  if (cleaned.startsWith('./')) cleaned = cleaned.slice(2)
  if (cleaned.length === 0 || cleaned.length > 1024) return undefined
  if (cleaned.startsWith('node:') || cleaned.includes('/node_modules/') || cleaned.startsWith('/rustc/'))
    return undefined
  if (cleaned.includes('<') || cleaned === '[eval]') return undefined
  return cleaned
}

export type { CompiledPattern }
