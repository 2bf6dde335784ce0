/**
 * `loop-controller analyze [FILE|-] [--kind KIND] [--patterns FILE] [--json]` (a contract, issue 3):
 * reads one check's output as a stream and prints its analysis. Exit 0 on an analysis, 2 on bad
 * arguments or an unreadable input.
 */
import { createReadStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parsePatternFile } from '../config/pattern-library.js'
import { type Analysis, buildLibrary, PatternError, StreamingAnalyzer } from '../domain/analysis/index.js'
import { CHECK_KINDS, type CheckKind } from '../domain/stages.js'

export interface AnalyzeIo {
  stdin: NodeJS.ReadableStream
  stdout: (s: string) => void
  stderr: (s: string) => void
  cwd: string
}

export const ANALYZE_USAGE = 'Usage: loop-controller analyze [FILE|-] [--kind KIND] [--patterns FILE] [--json]'

interface AnalyzeArgs {
  input: string
  kind?: CheckKind
  patterns?: string
  json: boolean
}

/** Runs the analyze command; returns the exit code. */
export async function runAnalyzeCommand(args: string[], io: AnalyzeIo): Promise<number> {
  let parsed: AnalyzeArgs
  try {
    parsed = parseArgs(args)
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${ANALYZE_USAGE}\n`)
    return 2
  }
  let library: ReturnType<typeof buildLibrary>
  try {
    const user = parsed.patterns
      ? parsePatternFile(await readFile(resolve(io.cwd, parsed.patterns), 'utf8'), parsed.patterns)
      : []
    library = buildLibrary(user)
  } catch (error) {
    const message =
      error instanceof PatternError
        ? error.message
        : `Cannot read --patterns file '${parsed.patterns}': ${(error as Error).message}`
    io.stderr(`${message}\n`)
    return 2
  }
  const analyzer = new StreamingAnalyzer(library, parsed.kind ? { kind: parsed.kind } : {})
  const stream =
    parsed.input === '-' ? io.stdin : createReadStream(resolve(io.cwd, parsed.input), { highWaterMark: 1 << 20 })
  try {
    for await (const chunk of stream) analyzer.push(chunk as Buffer | string)
  } catch (error) {
    io.stderr(`Cannot read '${parsed.input}': ${(error as Error).message}\n`)
    return 2
  }
  const analysis = analyzer.finish()
  io.stdout(parsed.json ? `${JSON.stringify(toJson(analysis))}\n` : formatForPeople(analysis))
  return 0
}

function parseArgs(args: readonly string[]): AnalyzeArgs {
  const result: AnalyzeArgs = { input: '-', json: false }
  let inputSeen = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined]
    const value = () => {
      const v = inline ?? args[++i]
      if (v === undefined || v === '') throw new Error(`Option ${flag} needs a value.`)
      return v
    }
    if (flag === '--json') result.json = true
    else if (flag === '--kind') {
      const kind = value()
      if (!(CHECK_KINDS as readonly string[]).includes(kind)) {
        throw new Error(`Option --kind must be one of ${CHECK_KINDS.join(', ')}; got '${kind}'.`)
      }
      result.kind = kind as CheckKind
    } else if (flag === '--patterns') result.patterns = value()
    else if (arg.startsWith('-') && arg !== '-') throw new Error(`Unknown option '${arg}'.`)
    else if (inputSeen) throw new Error(`Only one input file; got '${result.input}' and '${arg}'.`)
    else {
      result.input = arg
      inputSeen = true
    }
  }
  return result
}

/** The stable JSON shape of the `analyze` command. */
export function toJson(analysis: Analysis) {
  return {
    pattern: analysis.pattern,
    confidence: analysis.confidence,
    tier: analysis.tier,
    strategy: analysis.strategy,
    alternates: analysis.alternates,
    retryable: analysis.retryable,
    locations: analysis.locations,
    signature: analysis.signature,
    ...(analysis.hint ? { hint: analysis.hint } : {}),
    excerpt: analysis.excerpt,
  }
}

function formatForPeople(analysis: Analysis): string {
  const lines = [
    `pattern:    ${analysis.pattern ?? '(no match)'}`,
    `confidence: ${analysis.confidence.toFixed(2)} (${analysis.tier})`,
    `strategy:   ${analysis.strategy}${analysis.alternates.length > 0 ? ` (then ${analysis.alternates.join(', ')})` : ''}`,
    `retryable:  ${analysis.retryable ? 'yes' : 'no'}`,
    `signature:  ${analysis.signature}`,
  ]
  if (analysis.hint) lines.push(`hint:       ${analysis.hint}`)
  if (analysis.locations.length > 0) {
    lines.push('locations:')
    for (const l of analysis.locations.slice(0, 20)) {
      const where = [l.file, l.line, l.column].filter((p) => p !== undefined).join(':')
      lines.push(`  ${where}${l.message ? `  ${l.message}` : ''}`)
    }
    if (analysis.locations.length > 20) lines.push(`  … and ${analysis.locations.length - 20} more`)
  }
  // What the agent's prompt, the summary and the comment show of this output.
  if (analysis.excerpt) lines.push('excerpt:', ...analysis.excerpt.split('\n').map((line) => `  ${line}`))
  return `${lines.join('\n')}\n`
}
