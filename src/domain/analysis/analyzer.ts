/**
 * The streaming failure analyzer: classifies one check's output, extracts locations, and chooses a
 * strategy, over a stream of chunks in bounded memory.
 *
 * How it stays fast and bounded: one Aho-Corasick pass over the raw bytes finds every literal signal and
 * a few trigger words; only the lines that contain a hit ("candidate lines", at most 20,000 of them)
 * are decoded and given to the regex signals and location regexes (re2js, linear time). Lines are
 * capped at 64 KiB; excerpts, locations and the tail of the output are capped too.
 */
import { displayText, TERMINAL_ESCAPES } from '../display-text.js'
import type { CheckKind, Strategy } from '../stages.js'
import type { Location } from '../state.js'
import type { CompiledPattern, PatternLibrary } from './library.js'
import { LocationCollector } from './locations.js'
import { type Matcher, type ScanTables, scanTablesFor } from './scan-tables.js'
import {
  type AnalysisExtras,
  bestPattern,
  type ConfidenceTier,
  NO_MATCH_BELOW,
  outrankedWinner,
  roundConfidence,
  scorePatterns,
  tierOf,
} from './scoring.js'
import { errorSignature, normaliseTokens } from './similarity.js'

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

export interface AnalyzerOptions {
  kind?: CheckKind
}

const MAX_LINE_BYTES = 64 * 1024
const LINE_DECODE_CHARS = 4096
const MAX_CANDIDATE_LINES = 20_000
const EXCERPT_LINES = 12
const EXCERPT_LINE_CHARS = 300
const MAX_EXCERPT_CHARS = 4000
const TAIL_BYTES = 8 * 1024
const TOKEN_TEXT_CHARS = 8000

/**
 * Analyzes a check's output as it streams: `push` chunks (any size, any bytes), then `finish` once.
 * Memory stays bounded whatever the output's size.
 */
export class StreamingAnalyzer {
  private readonly table: ScanTables
  private readonly matched: Uint8Array
  private readonly excerptLines: string[][]
  private readonly genericLines: string[] = []
  private readonly locations: LocationCollector
  private scanState = 0
  private carry: Buffer = Buffer.alloc(0)
  private carryStates: number[] = []
  private carryCandidate = false
  private tail: Buffer = Buffer.alloc(0)
  private candidateLines = 0
  private lastPathLine: string | undefined
  private lastErrorLine: string | undefined
  private finished = false
  /** Bytes seen so far. */
  bytes = 0

  constructor(
    private readonly library: PatternLibrary,
    private readonly options: AnalyzerOptions = {},
  ) {
    this.table = scanTablesFor(library)
    this.matched = new Uint8Array(this.table.matchers.length)
    this.excerptLines = library.patterns.map(() => [])
    this.locations = new LocationCollector(this.table.locations, this.table.patternLocations)
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
    // Hits after the last newline belong to the next line: kept apart until the lines before are emitted.
    const trailingStates: number[] = []
    for (let h = 0; h < positions.length; h++) {
      const position = positions[h] as number
      if (position > lastNewline) {
        if (trailingStates.length < 64) trailingStates.push(states[h] as number)
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
    this.carry = Buffer.alloc(0)
    this.carryStates = trailingStates
    this.carryCandidate = positions.some((p) => p > lastNewline)
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
    if (hadEscape) text = text.replace(TERMINAL_ESCAPES, '')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    const trimmed = text.trim()
    if (trimmed.length === 0) return
    const { matchers } = this.table
    const linePatterns = new Set<number>()
    // Whether a scored signal is on the line: an excerpt-only line does not make it an error line.
    let signalLine = false
    const hit = (matcher: Matcher) => {
      linePatterns.add(matcher.pattern)
      signalLine ||= matcher.scored
    }
    for (const state of states) {
      for (const literal of this.table.scanner.outputs[state] ?? []) {
        for (const matcher of this.table.literalMatchers[literal] ?? []) hit(matchers[matcher] as Matcher)
      }
    }
    if (hadEscape) {
      // Colour codes can split a literal; look again in the plain text.
      for (const index of this.table.literalOnly) {
        const matcher = matchers[index] as Matcher
        if (text.includes(matcher.signal.literal as string)) {
          this.matched[index] = 1
          hit(matcher)
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
        hit(matcher)
      }
    }
    const clipped = trimmed.length > EXCERPT_LINE_CHARS ? `${trimmed.slice(0, EXCERPT_LINE_CHARS)}…` : trimmed
    for (const pattern of linePatterns) {
      const lines = this.excerptLines[pattern] as string[]
      if (lines.length < EXCERPT_LINES) lines.push(clipped)
    }
    const looksLikeError = signalLine || /\b(error|Error|ERROR|FAIL|fatal)\b/.test(text)
    if (looksLikeError && this.genericLines.length < EXCERPT_LINES) this.genericLines.push(clipped)
    this.locations.collect(text, trimmed, this.lastPathLine, this.lastErrorLine)
    if (/^[^\s:()'"]+\.[A-Za-z0-9]+$/.test(trimmed) && trimmed.length < 512) this.lastPathLine = trimmed
    else if (looksLikeError) this.lastErrorLine = clipped
  }

  private conclude(extra: AnalysisExtras): Analysis {
    const scores = scorePatterns(this.library.patterns, this.table.matchers, this.matched, this.options.kind, extra)
    const best = outrankedWinner(this.library.patterns, scores, bestPattern(scores))
    const winner = best === -1 ? undefined : this.library.patterns[best]
    const confidence = scores[best]?.confidence ?? 0
    const matchedPattern = winner && confidence >= NO_MATCH_BELOW ? winner : undefined
    const locations = this.locations.pick(matchedPattern ? best : -1)
    const excerptSource = (matchedPattern ? this.excerptLines[best] : undefined)?.length
      ? (this.excerptLines[best] as string[])
      : this.genericLines
    const excerptLines = excerptSource.length > 0 ? excerptSource : this.tailLines()
    const excerpt = displayText(excerptLines.join('\n')).slice(0, MAX_EXCERPT_CHARS)
    const tokenText = [...excerptLines, ...locations.map((l) => l.message ?? '')].join('\n').slice(0, TOKEN_TEXT_CHARS)
    const tokens = normaliseTokens(tokenText)
    const patternId = matchedPattern?.id ?? null
    const analysis: Analysis = {
      pattern: patternId,
      confidence: roundConfidence(confidence),
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

  private tailLines(): string[] {
    return this.tail
      .toString('utf8')
      .replace(TERMINAL_ESCAPES, '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line.length > 0)
      .slice(-EXCERPT_LINES)
      .map((line) => (line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS)}…` : line))
  }
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

export type { CompiledPattern }
