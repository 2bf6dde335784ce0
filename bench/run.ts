/**
 * `npm run bench`: every performance figure of issue 8, each against a baseline measured in the same run,
 * printed as one table and written to bench/results/latest.md, with the rows, the machine, the load
 * average and the run time in bench/results/latest.json (committed: scripts/perf-tables.mjs makes the
 * tables of README.md and docs/performance.md from it). A run of some figures only
 * (`npm run bench -- 1. 3.`) writes partial.md and partial.json instead, so the committed results stay
 * whole. A figure that throws is reported as not measured, with the reason, and the others still run.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { agentCalls } from './agent-calls.js'
import { analysisThroughput } from './analysis-row.js'
import { outputCapture } from './capture.js'
import { fanOutShards } from './fan-out.js'
import { flakeCheckTime } from './flake-check.js'
import { heldOutAccuracy } from './heldout-accuracy.js'
import { jobsPerLoop } from './jobs.js'
import { type BenchRow, machine, renderTable } from './lib.js'
import { matrixParallelism } from './matrix.js'
import { controllerOverhead } from './overhead.js'
import { realProjects } from './real-projects.js'
import { bundleStartup } from './startup.js'
import { stateGrowth } from './state-growth.js'

const ROOT = resolve(import.meta.dirname, '..')

const FIGURES: { name: string; run: () => Promise<BenchRow[]> }[] = [
  { name: '1. controller overhead per iteration', run: controllerOverhead },
  { name: '2. bundle start-up', run: bundleStartup },
  { name: '3. analysis throughput and memory', run: analysisThroughput },
  { name: '4. output capture', run: outputCapture },
  { name: '5. matrix parallelism', run: matrixParallelism },
  { name: '6. state growth', run: stateGrowth },
  { name: '7. jobs per loop', run: jobsPerLoop },
  { name: '8. agent calls saved', run: agentCalls },
  { name: '9. flake check where flakes are possible', run: flakeCheckTime },
  { name: '10. real projects', run: realProjects },
  { name: '11. analysis accuracy on held-out output', run: heldOutAccuracy },
  { name: '12. fan-out with a sharded test check', run: fanOutShards },
]

/** The 1-minute load average: these machines are shared, and absolute figures move with it. */
function load(): number {
  return Number((loadavg()[0] ?? 0).toFixed(1))
}

async function main(): Promise<void> {
  const started = performance.now()
  const loadBefore = load()
  const only = process.argv.slice(2)
  const rows: BenchRow[] = []
  for (const figure of FIGURES) {
    if (only.length > 0 && !only.some((prefix) => figure.name.startsWith(prefix))) continue
    const figureStarted = performance.now()
    process.stderr.write(`${figure.name} ...`)
    try {
      rows.push(...(await figure.run()))
    } catch (error) {
      rows.push({
        figure: figure.name,
        value: '',
        baseline: '',
        ratio: '',
        budget: '',
        met: 'not measured',
        note: `${figure.name}: failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      })
    }
    process.stderr.write(` ${((performance.now() - figureStarted) / 1000).toFixed(1)} s\n`)
  }
  const table = renderTable(rows)
  const notes = rows.flatMap((row) => (row.note ? [`- ${row.figure}: ${row.note}`] : []))
  const seconds = Math.round((performance.now() - started) / 1000)
  const loadAverage = { start: loadBefore, end: load(), cores: availableParallelism() }
  const text = [
    table,
    '',
    ...notes,
    ...(notes.length > 0 ? [''] : []),
    `Machine: ${machine()}; load average ${loadAverage.start} at the start, ${loadAverage.end} at the end. Whole run: ${seconds} s.`,
  ].join('\n')
  console.log(text)
  const results = join(ROOT, 'bench', 'results')
  mkdirSync(results, { recursive: true })
  const name = only.length > 0 ? 'partial' : 'latest'
  const date = new Date().toISOString()
  writeFileSync(join(results, `${name}.md`), `# Benchmarks (${date})\n\n${text}\n`)
  const json = { date, machine: machine(), loadAverage, seconds, figures: only.length > 0 ? only : 'all', rows }
  writeFileSync(join(results, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`)
  console.log(`\nwritten to ${join('bench', 'results', `${name}.md`)} and ${name}.json`)
}

await main()
