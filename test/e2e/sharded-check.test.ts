// End to end, the built action in one job per iteration: a loop whose `test` check runs as 4 shards side by
// side (each a process with its own JUnit report) reaches COMPLETE, and what it posts shows one `test`
// check, not four. Shard 3 fails until the work climbs to step 2, so the loop takes two iterations.
import { describe, expect, it } from 'vitest'
import { shardedConfig } from './fan-out-fixtures.js'
import {
  checkOperationsExercised,
  describeJobs,
  expectFaithful,
  MINUTE,
  projectFiles,
  startScenario,
} from './fixtures.js'
import { savedState } from './state-fixtures.js'

checkOperationsExercised(import.meta.url)

/** Shard `i/n` of the suite: shard 3 holds the test that needs step 2; each shard writes its JUnit report. */
const SHARD_CHECK = `import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
const [shard, shards] = process.argv[2].split('/').map(Number)
if (process.env.LOOP_SHARD !== String(shard) || process.env.LOOP_SHARDS !== String(shards)) {
  console.error('shard ' + shard + '/' + shards + ' but LOOP_SHARD=' + process.env.LOOP_SHARD + ' LOOP_SHARDS=' + process.env.LOOP_SHARDS)
  process.exit(2)
}
const have = Number(existsSync('progress.txt') ? readFileSync('progress.txt', 'utf8').trim() || 0 : 0)
const passes = shard !== 3 || have >= 2
mkdirSync('reports', { recursive: true })
const name = 'staircase step ' + shard
const verdict = passes ? '' : '<failure message="step 2 not reached"/>'
writeFileSync('reports/junit-' + shard + '.xml', '<testsuites><testsuite name="s"><testcase classname="steps" name="' + name + '">' + verdict + '</testcase></testsuite></testsuites>\\n')
if (passes) console.log('shard ' + shard + '/' + shards + ': ' + name + ' passed')
else {
  console.error('AssertionError [ERR_ASSERTION]: step 2 not reached: expected progress >= 2, got ' + have)
  console.error('    at test/steps.test.js:3:5')
  process.exit(1)
}
`

const LOOP_CONFIG = shardedConfig({
  goal: 'Climb the staircase to step 2, with the suite split in four shards.',
  maxIterations: 4,
  shards: 4,
  script: 'tools/shard-check.mjs',
})

describe('the action bundle in the sandbox: a sharded check', () => {
  it(
    'a loop with a 4-shard test check reaches COMPLETE, its summary showing one test check',
    async () => {
      const scenario = await startScenario({
        sandbox: {
          repoFiles: {
            ...projectFiles({ steps: 2 }),
            '.github/loop.yml': LOOP_CONFIG,
            'tools/shard-check.mjs': SHARD_CHECK,
            '.gitignore': 'reports/\n',
          },
        },
      })
      const { sandbox } = scenario
      await sandbox.dispatch({ 'loop-id': 'sharded' })
      const jobs = await sandbox.waitForIdle(3 * MINUTE)
      const why = describeJobs(jobs)
      expect(
        jobs.map((job) => [job.inputs.iteration ?? '', job.outputs.status]),
        why,
      ).toEqual([
        ['', 'running'],
        ['2', 'complete'],
      ])
      const state = await savedState(scenario, 'sharded')
      expect(state.status).toBe('complete')
      expect(state.lastVerification?.results.map((r) => [r.name, r.verdict])).toEqual([['test', 'pass']])
      // The baseline's JUnit verdicts are the four shards' reports united; shard 3's test failed there.
      expect(state.baseline?.tests).toEqual({
        'test:steps.staircase step 1': 'pass',
        'test:steps.staircase step 2': 'pass',
        'test:steps.staircase step 3': 'fail',
        'test:steps.staircase step 4': 'pass',
      })
      const [first, last] = jobs
      // Each summary's table has one `test` row; the first shows shard 3's failure under its heading alone.
      const rows = (summary = '') => summary.split('\n').filter((line) => line.startsWith('| `test'))
      expect(rows(first?.summary), first?.summary).toEqual([expect.stringMatching(/^\| `test` \| ❌ \|/)])
      expect(rows(last?.summary), last?.summary).toEqual([expect.stringMatching(/^\| `test` \| ✅ \|/)])
      expect(first?.summary).toContain('### test shard 3/4: fail\nAssertionError [ERR_ASSERTION]: step 2 not reached')
      expect(first?.summary).not.toMatch(/shard [124]\/4/)
      expect(last?.summary).toMatch(/## ✅ COMPLETE · `sharded`/)
      expectFaithful(scenario)
    },
    4 * MINUTE,
  )
})
