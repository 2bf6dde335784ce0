/**
 * Benchmark of the streaming failure analyzer (issue 3): throughput against `grep -c` for the library's
 * literal signals on the same file in the same run, and the analyzer's peak memory (maxRSS of a child
 * process), on two kinds of generated log:
 *   - realistic: the real captured tool outputs of test/fixtures (tsc, eslint, vitest, pytest, go, cargo,
 *     npm, ...; every fixture the manifest lists, in turn) interleaved with passing output (test runners'
 *     passing lines, package downloads, compiler progress), one captured failure every
 *     PASSING_LINES_PER_FAILURE passing lines, which puts about one line in six in failure output, as
 *     in a failing CI job whose test step prints a few hundred passing tests around a handful of failures;
 *   - worst case: nothing but failure output, the captured fixtures back to back, so that every line is a
 *     candidate for some pattern.
 * Run: `npx tsx bench/analysis.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createReadStream, createWriteStream, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildLibrary, StreamingAnalyzer } from '../src/domain/analysis/index.js'

const FIXTURES = resolve(import.meta.dirname, '..', 'test', 'fixtures')
/** Passing lines between two captured failures in the realistic log. */
export const PASSING_LINES_PER_FAILURE = 60

/** The real captured outputs the fixture manifest lists, each as its lines. */
export function capturedFailures(): string[][] {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as { fixtures: { file: string }[] }
  return manifest.fixtures.map(({ file }) => readFileSync(join(FIXTURES, file), 'utf8').replace(/\n$/, '').split('\n'))
}

/** The n-th line of passing output: what test runners, package managers and compilers print when all is well. */
export function passingLine(n: number): string {
  switch (n % 8) {
    case 0:
      return ` ✓ src/utils/string-${n % 97}.test.ts (${(n % 23) + 1} tests) ${n % 50}ms`
    case 1:
      return `tests/test_models.py::test_case_${n % 1000} PASSED                                   [ ${n % 100}%]`
    case 2:
      return `ok  \texample.com/service/pkg/mod${n % 31}\t0.${(n % 90) + 10}s`
    case 3:
      return `npm http fetch GET 200 https://registry.npmjs.org/pkg-${n % 211} ${n % 40}ms (cache hit)`
    case 4:
      return `[2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z] info  worker ${n % 8} processed job ${n} in ${n % 97} ms`
    case 5:
      return `   Compiling serde_json v1.0.${n % 140}`
    case 6:
      return `asset main.${(n * 2654435761).toString(16).slice(-8)}.js ${(n % 900) + 10} KiB [emitted] [minimized] (name: main)`
    default:
      return `  PASS  packages/core/src/feature-${n % 61}.spec.ts (${(n % 17) + 1} tests) ${(n % 400) + 5}ms`
  }
}

/** The kinds of generated log: failure output among passing output, or nothing but failure output. */
export type LogMix = 'realistic' | 'worst case'

/**
 * Writes a log of about `bytes` bytes of the given mix and returns the share of its lines that are
 * captured failure output.
 */
export async function generateLog(path: string, bytes: number, mix: LogMix): Promise<number> {
  const failures = capturedFailures()
  const out = createWriteStream(path)
  let written = 0
  let passing = 0
  let failing = 0
  for (let block = 0; written < bytes; block++) {
    const lines: string[] = []
    for (let i = 0; i < 50; i++) {
      const failure = failures[(block * 50 + i) % failures.length] as string[]
      lines.push(...failure)
      failing += failure.length
      if (mix === 'realistic') {
        for (let j = 0; j < PASSING_LINES_PER_FAILURE; j++) lines.push(passingLine(passing++))
      }
    }
    const text = `${lines.join('\n')}\n`
    written += Buffer.byteLength(text)
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
  return failing / (failing + passing)
}

async function analyzeFile(path: string) {
  const analyzer = new StreamingAnalyzer(buildLibrary())
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) analyzer.push(chunk as Buffer)
  return analyzer.finish()
}

function literalSignals(): string[] {
  return buildLibrary().patterns.flatMap((p) =>
    [...p.signals, ...p.anchors].flatMap((s) => (s.literal ? [s.literal] : [])),
  )
}

/** Runs the analyzer in a child process and returns its maxRSS in MiB. */
function childPeakMemory(path: string): number {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', path], {
    encoding: 'utf8',
  })
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`)
  return Number(child.stdout.trim()) / 1024
}

/** One measured log size: throughput of the analyzer and of `grep -c`, and the analyzer's peak memory. */
export interface AnalysisMeasurement {
  megabytes: number
  mix: LogMix
  /** The share of the log's lines that are failure output. */
  failureShare: number
  analyzerMBps: number
  grepMBps: number
  peakRssMiB: number
  pattern: string | null
}

/** The logs figure 3 measures: the realistic mix at two sizes (memory must not grow), and the worst case. */
export const ANALYSIS_LOGS: readonly { megabytes: number; mix: LogMix }[] = [
  { megabytes: 10, mix: 'realistic' },
  { megabytes: 100, mix: 'realistic' },
  { megabytes: 100, mix: 'worst case' },
]

/** Measures the analyzer on generated logs (deleted afterwards). */
export async function measureAnalysis(
  logs: readonly { megabytes: number; mix: LogMix }[] = ANALYSIS_LOGS,
): Promise<AnalysisMeasurement[]> {
  const measurements: AnalysisMeasurement[] = []
  const patternFile = join(tmpdir(), `loop-bench-signals-${process.pid}.txt`)
  writeFileSync(patternFile, `${literalSignals().join('\n')}\n`)
  try {
    for (const { megabytes, mix } of logs) {
      const path = join(tmpdir(), `loop-bench-${megabytes}mb-${mix.replace(' ', '-')}-${process.pid}.log`)
      const failureShare = await generateLog(path, megabytes * 1024 * 1024, mix)
      try {
        let started = performance.now()
        const analysis = await analyzeFile(path)
        const analyzerSeconds = (performance.now() - started) / 1000
        started = performance.now()
        try {
          execFileSync('grep', ['-c', '-F', '-f', patternFile, path], { stdio: 'pipe' })
        } catch {}
        const grepSeconds = (performance.now() - started) / 1000
        measurements.push({
          megabytes,
          mix,
          failureShare,
          analyzerMBps: megabytes / analyzerSeconds,
          grepMBps: megabytes / grepSeconds,
          peakRssMiB: childPeakMemory(path),
          pattern: analysis.pattern,
        })
      } finally {
        rmSync(path, { force: true })
      }
    }
  } finally {
    rmSync(patternFile, { force: true })
  }
  return measurements
}

/** Prints the measurements as a small table (the standalone `npx tsx bench/analysis.ts`). */
export async function main(): Promise<void> {
  const rows: string[][] = [
    ['log', 'failure lines', 'analyzer MB/s', 'grep -c MB/s', 'ratio', 'peak RSS MiB', 'pattern'],
  ]
  for (const m of await measureAnalysis()) {
    rows.push([
      `${m.megabytes} MB ${m.mix}`,
      `${(m.failureShare * 100).toFixed(0)}%`,
      m.analyzerMBps.toFixed(0),
      m.grepMBps.toFixed(0),
      `${(m.analyzerMBps / m.grepMBps).toFixed(2)}x grep`,
      m.peakRssMiB.toFixed(0),
      String(m.pattern),
    ])
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? []
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  '))
}

if (process.argv[2] === '--child') {
  await analyzeFile(process.argv[3] as string)
  process.stdout.write(`${process.resourceUsage().maxRSS}\n`)
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main()
}
