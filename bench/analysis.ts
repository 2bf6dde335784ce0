/**
 * Benchmark of the streaming failure analyzer (issue 3): throughput on a 10 MB and a 100 MB log against
 * `grep -c` for the same literal signals on the same file in the same run, and the analyzer's peak
 * memory (maxRSS of a child process) for both sizes. Run: `npx tsx bench/analysis.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createReadStream, createWriteStream, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildLibrary, StreamingAnalyzer } from '../src/domain/analysis/index.js'

const NOISE = [
  '[2026-01-01T00:00:00.000Z] info  worker 7 processed job 123456 in 42 ms (queue depth 3)',
  '  PASS  packages/core/src/utils/string.spec.ts (12 tests) 18ms',
  'Downloading https://registry.example.test/pkg/-/pkg-1.2.3.tgz (34.5 kB)',
  'compiling module graph: 1532 modules, 12 chunks, cache hit ratio 0.93',
]
const FAILURE = [
  'src/app/service.ts(41,7): error TS2322: Type string is not assignable to type number.',
  ' FAIL  test/service.test.ts > adds',
  'Error: connect ECONNREFUSED 127.0.0.1:5432',
]

/** Writes a log of about `bytes` bytes: realistic noise with a failure every ~2,000 lines. */
async function generateLog(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path)
  let written = 0
  let line = 0
  while (written < bytes) {
    const block: string[] = []
    for (let i = 0; i < 2000; i++, line++) block.push(NOISE[line % NOISE.length] as string)
    block.push(FAILURE[line % FAILURE.length] as string)
    const text = `${block.join('\n')}\n`
    written += Buffer.byteLength(text)
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
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
  analyzerMBps: number
  grepMBps: number
  peakRssMiB: number
  pattern: string | null
}

/** Measures the analyzer on generated 10 MB and 100 MB logs (deleted afterwards). */
export async function measureAnalysis(sizes: readonly number[] = [10, 100]): Promise<AnalysisMeasurement[]> {
  const measurements: AnalysisMeasurement[] = []
  const patternFile = join(tmpdir(), `loop-bench-signals-${process.pid}.txt`)
  writeFileSync(patternFile, `${literalSignals().join('\n')}\n`)
  try {
    for (const megabytes of sizes) {
      const path = join(tmpdir(), `loop-bench-${megabytes}mb-${process.pid}.log`)
      await generateLog(path, megabytes * 1024 * 1024)
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
  const rows: string[][] = [['log', 'analyzer MB/s', 'grep -c MB/s', 'ratio', 'peak RSS MiB', 'pattern']]
  for (const m of await measureAnalysis()) {
    rows.push([
      `${m.megabytes} MB`,
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
