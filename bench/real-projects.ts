/**
 * Figure 9: the real projects of issue 17 (test/real-projects/), each broken four ways and run to its end
 * with the strict oracle agent, under the controller in the tree against the bundle from before issue 17.
 * One row per project; the full outcomes go to bench/results/real-projects.json.
 */
import { availableParallelism } from 'node:os'
import { runAll, writeResults } from '../test/real-projects/report.js'
import type { BenchRow } from './lib.js'

const FIGURE = '10. real projects'

export async function realProjects(): Promise<BenchRow[]> {
  const reports = await runAll()
  writeResults(reports, `${availableParallelism()} cores, node ${process.version}, ${process.platform}`)
  return reports.map((report): BenchRow => {
    const figure = `${FIGURE}: ${report.project} (${report.ecosystem})`
    if (!report.current)
      return { figure, value: '', baseline: '', ratio: '', budget: '', met: 'not measured', note: report.skipped }
    const describe = (o: { status: string; iterations: number; agentCalls: number; wallMs: number }) =>
      `${o.status.toUpperCase()} · ${o.iterations} iterations · ${o.agentCalls} agent calls · ${(o.wallMs / 1000).toFixed(0)} s`
    const before = report.before && 'status' in report.before ? report.before : undefined
    const ok = report.current.status === 'complete' && report.current.lintFixedWithoutAgent
    return {
      figure,
      value: describe(report.current),
      baseline: before ? describe(before) : 'not measured',
      ratio: report.ratio
        ? `${report.ratio.agentCalls ?? 'n/a'}× agent calls, ${report.ratio.wallTime ?? 'n/a'}× wall`
        : '',
      budget: 'COMPLETE, lint/format fixed without an agent call',
      met: ok ? 'yes' : 'no',
      ...(ok ? {} : { note: `${report.current.status}: ${report.current.statusReason}` }),
    }
  })
}
