/**
 * Figure 3: analysis throughput and memory, from `bench/analysis.ts` (issue 3): at least 100 MB/s on a
 * 100 MB log, as a ratio against `grep -c` of the same literal signals in the same run, and the peak
 * memory for 10 MB and 100 MB logs (which should not grow with the log).
 */
import { measureAnalysis } from './analysis.js'
import type { BenchRow } from './lib.js'

const BUDGET_MBPS = 100

export async function analysisThroughput(): Promise<BenchRow[]> {
  const measurements = await measureAnalysis([10, 100])
  const rows: BenchRow[] = measurements.map((m) => ({
    figure: `3. analysis throughput, ${m.megabytes} MB log`,
    value: `${m.analyzerMBps.toFixed(0)} MB/s (${m.pattern ?? 'no pattern'})`,
    baseline: `grep -c ${m.grepMBps.toFixed(0)} MB/s`,
    ratio: `${(m.analyzerMBps / m.grepMBps).toFixed(2)}x`,
    budget: m.megabytes === 100 ? `>= ${BUDGET_MBPS} MB/s` : '',
    met: m.megabytes === 100 ? (m.analyzerMBps >= BUDGET_MBPS ? 'yes' : 'no') : 'n/a',
  }))
  const small = measurements.find((m) => m.megabytes === 10)
  const large = measurements.find((m) => m.megabytes === 100)
  if (small && large) {
    const growth = large.peakRssMiB / small.peakRssMiB
    rows.push({
      figure: '3. analysis peak RSS, 100 MB vs 10 MB log',
      value: `${large.peakRssMiB.toFixed(0)} MiB`,
      baseline: `10 MB log ${small.peakRssMiB.toFixed(0)} MiB`,
      ratio: `${growth.toFixed(2)}x`,
      budget: 'independent of size (< 1.5x)',
      met: growth < 1.5 ? 'yes' : 'no',
    })
  }
  return rows
}
