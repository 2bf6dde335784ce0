/**
 * Compiles failure patterns into a library the streaming analyzer can run.
 * Every regex, default or user-written, is compiled by re2js, a linear-time engine, so no pattern can
 * stall the controller; backreferences and lookaround are refused with a message naming the pattern.
 */
import { RE2JS } from 're2js'
import type { CheckKind, Strategy } from '../stages.js'
import { DEFAULT_PATTERNS } from './default-patterns.js'
import { assertUniquePatternIds, type PatternConfig, PatternError } from './pattern-config.js'

/** A signal or anchor, ready to run: a literal (found by the byte scanner) or a re2js regex (per line). */
export interface CompiledSignal {
  source: string
  literal?: string
  regex?: RE2JS
  /** A substring every match must contain, to skip the regex on lines that cannot match. */
  prefilter?: string
  prefilterLowerCase: boolean
}

/** A location regex with named groups `file`, `line`, `column`, `message`. */
export interface CompiledLocation {
  source: string
  regex: RE2JS
  hasFile: boolean
  hasMessage: boolean
  prefilter?: string
}

/** A pattern compiled for analysis. */
export interface CompiledPattern {
  id: string
  description?: string
  strategy: Strategy
  alternates: Strategy[]
  retryable: boolean
  maxAutoRetries?: number
  hint?: string
  kinds: CheckKind[]
  signals: CompiledSignal[]
  anchors: CompiledSignal[]
  locations: CompiledLocation[]
  /** Lines the excerpt keeps when this pattern wins; they never count towards its score. */
  excerpt: CompiledSignal[]
  /** Ids of the patterns this one beats when one of its anchors matched. */
  outranks: string[]
  /** The validated configuration the pattern came from (for dead letters and `loop status`). */
  config: PatternConfig
}

/** The patterns in order of precedence (earlier wins a tie), with lookup by id. */
export interface PatternLibrary {
  patterns: CompiledPattern[]
  byId(id: string): CompiledPattern | undefined
}

const REGEX_SIGNAL = /^\/(.+)\/([ims]*)$/s
const MIN_PREFILTER = 3

/**
 * The default library plus the user's patterns (validated by the config layer): a user pattern with a
 * default's id replaces it in place; a new id is added before the defaults (users' patterns are more
 * specific). Throws `PatternError`.
 */
export function buildLibrary(user: readonly PatternConfig[] = []): PatternLibrary {
  assertUniquePatternIds(user, 'the loop config patterns')
  const userById = new Map(user.map((p) => [p.id, p]))
  const merged: PatternConfig[] = user.filter((p) => !DEFAULT_PATTERNS.some((d) => d.id === p.id))
  for (const pattern of DEFAULT_PATTERNS) merged.push(userById.get(pattern.id) ?? pattern)
  return libraryOf(merged.map(compilePattern))
}

/** A library of exactly these patterns (no defaults), e.g. for tests of a single pattern. */
export function libraryOf(patterns: CompiledPattern[]): PatternLibrary {
  const index = new Map(patterns.map((p) => [p.id, p]))
  return { patterns, byId: (id) => index.get(id) }
}

/** Compiles one validated pattern; throws `PatternError` naming the pattern and the regex. */
export function compilePattern(config: PatternConfig): CompiledPattern {
  const compiled: CompiledPattern = {
    id: config.id,
    strategy: config.strategy,
    alternates: [...config.alternates],
    retryable: config.retryable,
    kinds: [...config.kinds],
    signals: config.signals.map((s) => compileSignal(config.id, 'signal', s)),
    anchors: config.anchors.map((s) => compileSignal(config.id, 'anchor', s)),
    locations: config.locations.map((s) => compileLocation(config.id, s)),
    excerpt: (config.excerpt ?? []).map((s) => compileSignal(config.id, 'excerpt', s)),
    outranks: [...(config.outranks ?? [])],
    config,
  }
  if (config.description !== undefined) compiled.description = config.description
  if (config.max_auto_retries !== undefined) compiled.maxAutoRetries = config.max_auto_retries
  if (config.hint !== undefined) compiled.hint = config.hint
  return compiled
}

/** Compiles a signal: `/regex/flags` (flags i, m, s) or a literal string. */
export function compileSignal(
  patternId: string,
  role: 'signal' | 'anchor' | 'excerpt',
  source: string,
): CompiledSignal {
  const regexForm = REGEX_SIGNAL.exec(source)
  if (!regexForm) return { source, literal: source, prefilterLowerCase: false }
  const body = regexForm[1] ?? ''
  const flags = regexForm[2] ?? ''
  let re2Flags = 0
  if (flags.includes('i')) re2Flags |= RE2JS.CASE_INSENSITIVE
  if (flags.includes('m')) re2Flags |= RE2JS.MULTILINE
  if (flags.includes('s')) re2Flags |= RE2JS.DOTALL
  const regex = compileRegex(patternId, role, body, re2Flags)
  const literal = requiredLiteral(body)
  const signal: CompiledSignal = { source, regex, prefilterLowerCase: flags.includes('i') }
  if (literal !== undefined) signal.prefilter = flags.includes('i') ? literal.toLowerCase() : literal
  return signal
}

/** Compiles a location regex and checks its named groups. */
export function compileLocation(patternId: string, source: string): CompiledLocation {
  const regex = compileRegex(patternId, 'location', source, 0)
  const groups = Object.keys(regex.namedGroups?.() ?? {})
  if (!groups.includes('line') && !groups.includes('file')) {
    throw new PatternError(
      `Pattern '${patternId}': location regex ${JSON.stringify(source)} needs a named group 'file' or 'line', e.g. (?P<file>[^:]+):(?P<line>\\d+).`,
    )
  }
  const location: CompiledLocation = {
    source,
    regex,
    hasFile: groups.includes('file'),
    hasMessage: groups.includes('message'),
  }
  const literal = requiredLiteral(source)
  if (literal !== undefined) location.prefilter = literal
  return location
}

function compileRegex(patternId: string, role: string, body: string, flags: number): RE2JS {
  try {
    return RE2JS.compile(body, flags)
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '')
    const unsupported = /\\[1-9]|\(\?[=!]|\(\?<[=!]/.test(body)
      ? ' Backreferences and lookaround are not supported: patterns run on re2js, a linear-time engine.'
      : ''
    throw new PatternError(
      `Pattern '${patternId}': ${role} regex ${JSON.stringify(body)} is invalid: ${reason}.${unsupported}`,
    )
  }
}

/**
 * The longest literal run that every match of `source` must contain, or undefined (alternation at the
 * top level, or no run of at least 3 characters). Conservative: groups and classes end a run.
 */
export function requiredLiteral(source: string): string | undefined {
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === '[') i = skipClass(source, i)
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) return undefined
  }
  let best = ''
  let run = ''
  const flush = () => {
    if (run.length > best.length) best = run
    run = ''
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string
    const next = source[i + 1]
    const optional = next === '*' || next === '?' || next === '{'
    if (c === '\\') {
      const escaped = source[i + 1] ?? ''
      i++
      if (/[A-Za-z0-9]/.test(escaped)) {
        flush()
        continue
      }
      const afterEscape = source[i + 1]
      if (afterEscape === '*' || afterEscape === '?' || afterEscape === '{') flush()
      else {
        run += escaped
        if (afterEscape === '+') flush()
      }
    } else if (c === '[') {
      i = skipClass(source, i)
      flush()
    } else if (c === '(') {
      i = skipGroup(source, i)
      flush()
    } else if (c === '{') {
      // A counted quantifier's digits are not text the line must contain: `_{10,}` needs no "10,".
      i += countedQuantifierLength(source, i) - 1
      flush()
    } else if ('.^$*+?}|)'.includes(c)) {
      flush()
    } else if (optional) {
      flush()
    } else {
      run += c
      if (next === '+') flush()
    }
  }
  flush()
  return best.length >= MIN_PREFILTER ? best : undefined
}

/** The length of the counted quantifier (`{n}`, `{n,}`, `{n,m}`) at `start`, or 1 for a lone brace. */
function countedQuantifierLength(source: string, start: number): number {
  const quantifier = /^\{\d+(,\d*)?\}/.exec(source.slice(start, start + 24))
  return quantifier ? quantifier[0].length : 1
}

function skipClass(source: string, start: number): number {
  let i = start + 1
  if (source[i] === '^') i++
  if (source[i] === ']') i++
  for (; i < source.length; i++) {
    if (source[i] === '\\') i++
    else if (source[i] === ']') return i
  }
  return source.length
}

function skipGroup(source: string, start: number): number {
  let depth = 0
  for (let i = start; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === '[') i = skipClass(source, i)
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) {
      const next = source[i + 1]
      // A `{` is left to the caller, which skips a counted quantifier whole.
      return next === '*' || next === '?' || next === '+' ? i + 1 : i
    }
  }
  return source.length
}
