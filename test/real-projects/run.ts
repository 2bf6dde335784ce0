/**
 * `npm run test:real-projects [-- NAME ...] [-- --no-compare]`: runs the real-project loops (issue 17),
 * prints the table and writes bench/results/real-projects.json. Exits 1 when a project that ran did not
 * reach COMPLETE with its lint/format defect fixed without an agent call.
 */
import { availableParallelism } from 'node:os'
import { renderReport, runAll, writeResults } from './report.js'

const args = process.argv.slice(2)
const compare = !args.includes('--no-compare')
const only = args.filter((arg) => !arg.startsWith('--'))
const verbose = args.includes('--verbose')

const reports = await runAll({
  only,
  compare,
  log: (line) => {
    if (verbose || !line.startsWith('  ')) process.stderr.write(`${line}\n`)
  },
})
console.log(renderReport(reports))
const path = writeResults(reports, `${availableParallelism()} cores, node ${process.version}, ${process.platform}`)
console.log(`\nwritten to ${path}`)
const failed = reports.filter((r) => r.current && !(r.current.status === 'complete' && r.current.lintFixedWithoutAgent))
process.exitCode = failed.length > 0 ? 1 : 0
