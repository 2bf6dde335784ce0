/**
 * Figure 3: analysis throughput and memory, from `bench/analysis.ts` (issue 3): at least 100 MB/s on a
 * 100 MB log, as a ratio against `grep -c` of the same literal signals in the same run, on a realistic
 * failing log and on the worst case (nothing but failure output); and the peak memory for the 10 MB and
 * 100 MB realistic logs (which should not grow with the log).
 */
import { measureAnalysis } from './analysis.js'
import type { BenchRow } from './lib.js'

const BUDGET_MBPS = 100

export async function analysisThroughput(): Promise<BenchRow[]> {
  const measurements = await measureAnalysis()
  const rows: BenchRow[] = measurements.map((m) => ({
    figure: `3. analysis throughput, ${m.megabytes} MB ${m.mix} log (${(m.failureShare * 100).toFixed(0)}% failure lines)`,
    value: `${m.analyzerMBps.toFixed(0)} MB/s (${m.pattern ?? 'no pattern'})`,
    baseline: `grep -c ${m.grepMBps.toFixed(0)} MB/s`,
    ratio: `${(m.analyzerMBps / m.grepMBps).toFixed(2)}x`,
    budget: m.megabytes === 100 ? `>= ${BUDGET_MBPS} MB/s` : '',
    met: m.megabytes === 100 ? (m.analyzerMBps >= BUDGET_MBPS ? 'yes' : 'no') : 'n/a',
  }))
  const small = measurements.find((m) => m.megabytes === 10 && m.mix === 'realistic')
  const large = measurements.find((m) => m.megabytes === 100 && m.mix === 'realistic')
  const worst = measurements.find((m) => m.megabytes === 100 && m.mix === 'worst case')
  if (small && large) {
    const growth = large.peakRssMiB / small.peakRssMiB
    rows.push({
      figure: '3. analysis peak RSS, 100 MB vs 10 MB realistic log',
      value: `${large.peakRssMiB.toFixed(0)} MiB`,
      baseline: `10 MB log ${small.peakRssMiB.toFixed(0)} MiB`,
      ratio: `${growth.toFixed(2)}x`,
      budget: 'independent of size (< 1.5x)',
      met: growth < 1.5 ? 'yes' : 'no',
    })
  }
  if (small && worst) {
    const growth = worst.peakRssMiB / small.peakRssMiB
    rows.push({
      figure: '3. analysis peak RSS, 100 MB worst-case log',
      value: `${worst.peakRssMiB.toFixed(0)} MiB`,
      baseline: `10 MB realistic log ${small.peakRssMiB.toFixed(0)} MiB`,
      ratio: `${growth.toFixed(2)}x`,
      budget: 'independent of size (< 1.5x)',
      met: growth < 1.5 ? 'yes' : 'no',
    })
  }
  return rows
}
