/**
 * `npm run reliability:crash`: at least 200 SIGKILLs of the controller across the phases of an
 * iteration, each resumed, with the figure line printed at the end (and recorded in
 * docs/reliability-results.json when LOOP_RECORD_RESULTS=1, as the npm script sets). Options: --kills N,
 * --parallel N, --seed N. Exits 1 when any kill left a problem behind (the problems are listed).
 */
import { parseArgs } from 'node:util'
import { crashFigureLine, runCrashCampaign } from './crash-campaign.js'
import { ensureCliBundle } from './harness.js'
import { recordResults } from './results.js'

const { values } = parseArgs({
  options: {
    kills: { type: 'string' },
    parallel: { type: 'string' },
    seed: { type: 'string' },
    quiet: { type: 'boolean' },
  },
})
const parameters = {
  kills: Number(values.kills ?? 200),
  parallel: Number(values.parallel ?? 2),
  seed: Number(values.seed ?? 7),
}
for (const [name, value] of Object.entries(parameters)) {
  if (!Number.isInteger(value) || value < (name === 'seed' ? 0 : 1)) {
    console.error(
      `--${name} ${values[name as keyof typeof parameters]}: expected a whole number of at least ${name === 'seed' ? 0 : 1}`,
    )
    process.exit(2)
  }
}
ensureCliBundle()
const started = Date.now()
const figures = await runCrashCampaign({
  kills: parameters.kills,
  parallelism: parameters.parallel,
  seed: parameters.seed,
  log: values.quiet ? () => {} : (line) => console.error(line),
})
const seconds = Math.round((Date.now() - started) / 1000)
for (const problem of figures.problems) console.error(`problem: ${problem}`)
console.log(crashFigureLine(figures))
console.log(`(${figures.trials} trials, seed ${parameters.seed}, ${seconds} s)`)
const { problems, uninterruptedMs, uninterruptedIterations, ...counts } = figures
recordResults('crash', {
  parameters,
  seconds,
  ...counts,
  uninterrupted: { ms: uninterruptedMs, iterations: uninterruptedIterations },
  failed: problems.length,
})
process.exit(problems.length > 0 ? 1 : 0)
