// Fan-out's flake check end to end: examples/workflows/loop-fan-out.yml with a sharded test check one of
// whose tests fails the first time it runs on the work and passes when run again. The failing shard's
// verify leg re-runs it there (decide runs no code of the project); decide records the check flaky, and
// the loop completes in one iteration with no retry spent and one call of the work.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jobsNamed, shardedConfig, startFanOutScenario } from './fan-out-fixtures.js'
import { botComments, checkOperationsExercised, describeJobs, expectFaithful, MINUTE } from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/**
 * Shard `i/n` of a suite whose test `case <i>` each shard reports in its own JUnit file. Shard 2's test
 * fails the first time it runs once the work has climbed a step (its marker, `flaked`, kept outside the
 * checkout in the scenario's signal folder), and passes on every run after; every run is noted there.
 */
const FLAKY_SHARD = `import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
const [shard, shards] = process.argv[2].split('/').map(Number)
const signals = process.env.E2E_SIGNAL_DIR
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
const flakes = shard === 2 && have >= 1 && !existsSync(join(signals, 'flaked'))
if (flakes) writeFileSync(join(signals, 'flaked'), '')
appendFileSync(join(signals, 'shard-' + shard + '-runs'), 'progress ' + have + ': ' + (flakes ? 'fail' : 'pass') + '\\n')
mkdirSync('reports', { recursive: true })
const failure = flakes ? '<failure message="a race in case 2"/>' : ''
writeFileSync('reports/junit-' + shard + '.xml', '<testsuites><testsuite name="s"><testcase classname="suite" name="case ' + shard + '">' + failure + '</testcase></testsuite></testsuites>\\n')
if (flakes) {
  console.error('AssertionError [ERR_ASSERTION]: case 2 lost a race')
  process.exit(1)
}
console.log('shard ' + shard + ' of ' + shards + ' passed')
`

const CONFIG = shardedConfig({
  goal: 'Climb the staircase to step 1, the suite split in two shards.',
  maxIterations: 3,
  regression: true,
  shards: 2,
  script: 'tools/flaky-shard.mjs',
  stepCheck: 1,
})

describe('fan-out: a flaky test in a sharded check', () => {
  it(
    'is re-run in its shard’s verify leg; decide records the check flaky and the loop reaches COMPLETE in one iteration, no retry spent',
    async () => {
      const scenario = await startFanOutScenario(
        { '.github/loop.yml': CONFIG, 'tools/flaky-shard.mjs': FLAKY_SHARD, '.gitignore': 'reports/\n' },
        { steps: 1 },
      )
      const { sandbox, signals } = scenario
      await sandbox.dispatch({ 'loop-id': 'flaky' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      const legs = jobsNamed(jobs, 'verify')
      expect(
        legs.map((job) => [job.matrix?.leg, job.conclusion]),
        why,
      ).toEqual([
        // The baseline round's legs, then iteration 1's.
        ['test shard 1/2', 'success'],
        ['test shard 2/2', 'success'],
        ['step-1', 'success'],
        ['test shard 1/2', 'success'],
        ['test shard 2/2', 'success'],
        ['step-1', 'success'],
      ])
      const decides = jobsNamed(jobs, 'decide')
      expect(decides.map((job) => job.outputs.status)).toEqual(['running', 'complete'])
      // The work ran once; shard 2 ran at the base in its baseline round's leg, then failed on the candidate
      // and passed when re-run there.
      expect(scenario.workRuns()).toEqual(['work-1'])
      const runs = (shard: number) =>
        readFileSync(join(signals, `shard-${shard}-runs`), 'utf8')
          .trim()
          .split('\n')
      expect(runs(2)).toEqual(['progress 0: pass', 'progress 1: fail', 'progress 1: pass'])
      expect(runs(1)).toEqual(['progress 0: pass', 'progress 1: pass'])

      const state = await savedState(scenario, 'flaky')
      expect(state.status).toBe('complete')
      expect(state.iteration).toBe(1)
      expect(state.metrics.flakes).toBe(1)
      // No failure to retry, and no regression of `case 2`: its verdict is the re-run's.
      expect(state.failures.history).toEqual([])
      expect(state.metrics.regressed?.tests ?? []).toEqual([])
      const journey = ((await sandbox.git.show('loop-state', 'flaky/audit/journey-log.jsonl')) ?? '')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; message: string })
      expect(journey.filter((e) => e.message.startsWith('test: ')).map((e) => [e.type, e.message])).toEqual([
        [
          'check',
          'test: flake check: re-running only the failing shard 2/2 of 2 in its leg (test shard 2/2: the whole shard)',
        ],
        ['flaky', 'test: failed, then its failing shard passed when re-run in its leg (flaky, no retry spent)'],
      ])
      expect(botComments(sandbox)[0]?.body).toMatch(/COMPLETE · `flaky` · after 1 iteration/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
