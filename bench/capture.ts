/**
 * Figure 4: output capture is bounded. A check that prints 1 GB runs through the process runner (with a
 * streaming analyzer on its output and a log file, as in an iteration) in a child process, which reports
 * its own peak RSS; baseline: the same child with a check printing 1 MB. Budget: under 200 MB.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ChildProcessRunner } from '../src/adapters/process-runner.js'
import { buildLibrary, StreamingAnalyzer } from '../src/domain/analysis/index.js'
import { type BenchRow, times } from './lib.js'

const BUDGET_MB = 200

/** Runs one capture in a fresh process and returns its peak RSS in MiB and the wall time in ms. */
function captureInChild(size: string): { peakMB: number; ms: number; bytes: number } {
  const started = performance.now()
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', size], {
    encoding: 'utf8',
  })
  if (child.status !== 0) throw new Error(`capture child (${size}) failed: ${child.stderr}`)
  const [maxRssKiB, totalBytes] = child.stdout.trim().split(' ').map(Number)
  return { peakMB: (maxRssKiB ?? 0) / 1024, ms: performance.now() - started, bytes: totalBytes ?? 0 }
}

export async function outputCapture(): Promise<BenchRow[]> {
  const small = captureInChild('1M')
  const large = captureInChild('1G')
  if (large.bytes !== 1024 ** 3) throw new Error(`the 1 GB check printed ${large.bytes} bytes`)
  return [
    {
      figure: '4. controller peak RSS, check printing 1 GB',
      value: `${large.peakMB.toFixed(0)} MiB (${(large.ms / 1000).toFixed(1)} s)`,
      baseline: `1 MB check ${small.peakMB.toFixed(0)} MiB`,
      ratio: times(large.peakMB / small.peakMB),
      budget: `< ${BUDGET_MB} MiB`,
      met: large.peakMB < BUDGET_MB ? 'yes' : 'no',
    },
  ]
}

async function child(size: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'loop-bench-capture-'))
  try {
    const analyzer = new StreamingAnalyzer(buildLibrary(), { kind: 'test' })
    const result = await new ChildProcessRunner().run({
      command: `head -c ${size} /dev/zero | tr '\\0' 'x'`,
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 300_000,
      logFile: join(dir, 'check.log'),
      onOutput: (chunk) => analyzer.push(chunk),
    })
    analyzer.finish()
    if (result.exitCode !== 0) throw new Error(`the check exited ${result.exitCode}: ${result.output.slice(-500)}`)
    process.stdout.write(`${process.resourceUsage().maxRSS} ${result.totalBytes}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string)
