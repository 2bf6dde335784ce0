/**
 * `npm run reliability:crash`: at least 200 SIGKILLs of the controller across the phases of an
 * iteration, each resumed, with the figure line printed at the end. Options: --kills N, --parallel N,
 * --seed N. Exits 1 when any kill left a problem behind (the problems are listed).
 */
import { parseArgs } from 'node:util'
import { crashFigureLine, runCrashCampaign } from './crash-campaign.js'
import { ensureCliBundle } from './harness.js'

const { values } = parseArgs({
  options: {
    kills: { type: 'string' },
    parallel: { type: 'string' },
    seed: { type: 'string' },
    quiet: { type: 'boolean' },
  },
})
ensureCliBundle()
const started = Date.now()
const figures = await runCrashCampaign({
  kills: Number(values.kills ?? 200),
  parallelism: Number(values.parallel ?? 2),
  seed: Number(values.seed ?? 7),
  log: values.quiet ? () => {} : (line) => console.error(line),
})
for (const problem of figures.problems) console.error(`problem: ${problem}`)
console.log(crashFigureLine(figures))
console.log(`(${figures.trials} trials, seed ${values.seed ?? 7}, ${Math.round((Date.now() - started) / 1000)} s)`)
process.exit(figures.problems.length > 0 ? 1 : 0)
