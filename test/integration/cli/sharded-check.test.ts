// A `test` check with `shards: 4`, run by the CLI on node:test's own sharding (`--test-shard`) as the
// README's node recipe runs it, with a JUnit report per shard: the shards merge into one check, a
// failing test in one shard is a regression named by its JUnit id, the flake check re-runs only the
// failing shard, and a shard killed before it reports makes the check an `infrastructure` error, never
// a pass.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopStateSchema } from '../../../src/domain/state.js'
import { readmeShardRecipe } from '../../real-projects/readme-recipes.js'
import { cli, tempRepo } from './helpers.js'

/** Eight widget tests; node's `--test-shard=i/4` takes the sorted files whose index is i-1 modulo 4. */
function widgetTests(body: (i: number) => string): Record<string, string> {
  const files: Record<string, string> = {}
  for (let i = 1; i <= 8; i++) {
    files[`widget-${i}.test.mjs`] = [
      "import { test } from 'node:test'",
      "import assert from 'node:assert'",
      "import { existsSync, writeFileSync } from 'node:fs'",
      `test('widget ${i} works', () => {`,
      body(i),
      '})',
      '',
    ].join('\n')
  }
  return files
}

/** README.md's node recipe ("Sharded checks"), read from the README so the two cannot drift. */
const NODE_RECIPE = readmeShardRecipe('node')

function loopConfig(work: string): string {
  return [
    'goal: Keep the widgets working.',
    'max-iterations: 1',
    'work:',
    `  run: ${JSON.stringify(work)}`,
    'checks:',
    '  - name: test',
    '    kind: test',
    '    shards: 4',
    `    run: ${JSON.stringify(NODE_RECIPE.run)}`,
    `    junit: ${JSON.stringify(NODE_RECIPE.junit)}`,
    '',
  ].join('\n')
}

function journey(repo: string, loopId: string): { type: string; message: string; data?: Record<string, unknown> }[] {
  return readFileSync(join(repo, '.loop', loopId, 'journey-log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

describe('a sharded check through the CLI', () => {
  it('merges four shards into one check; shard 3 failing is a regression named by its JUnit test, and only shard 3 is re-run', async () => {
    const repo = tempRepo({
      files: {
        '.gitignore': '.loop/\njunit-*.xml\n',
        '.github/loop.yml': loopConfig('echo broken > broken-3.txt'),
        ...widgetTests((i) => `  assert.ok(!existsSync('broken-${i}.txt'), 'widget ${i} is out of order')`),
      },
    })
    const run = await cli(repo, 'run', '--loop-id', 'sharded')
    expect(run.stderr).toBe('')
    expect(run.stdout.match(/test [✓✗]/g)).toEqual(['test ✗'])

    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'sharded', 'loop-state.json'), 'utf8')),
    )
    expect(state.baseline?.checks).toEqual({ test: 'pass' })
    // The baseline's JUnit verdicts are the four shards' reports united.
    expect(Object.keys(state.baseline?.tests ?? {}).sort()).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `test:test.widget ${i} works`),
    )
    const results = state.lastVerification?.results ?? []
    expect(results.map((r) => [r.name, r.verdict, r.regression])).toEqual([['test', 'fail', true]])
    expect(results[0]?.excerpt).toMatch(/^### test shard 3\/4: fail\n/)
    expect(results[0]?.excerpt).toContain('widget 3 is out of order')
    expect(results[0]?.excerpt).not.toContain('shard 1/4')

    const events = journey(repo, 'sharded')
    const regressions = events.filter((e) => e.type === 'regression')
    expect(regressions.map((e) => e.data)).toEqual([{ checks: ['test'], tests: ['test:test.widget 3 works'] }])
    const flakeChecks = events.filter((e) => e.type === 'check' && e.message.includes('flake check'))
    expect(flakeChecks.map((e) => e.data)).toEqual([{ scope: 'shards', shards: [3] }])
    const logs = readdirSync(join(repo, '.loop', 'sharded', 'runs', '1'))
    expect(logs.filter((name) => name.includes('rerun')).sort()).toEqual(['test.shard-3.rerun-1.log'])
    expect(logs.filter((name) => /^test\.shard-\d\.log$/.test(name)).sort()).toEqual(
      [1, 2, 3, 4].map((i) => `test.shard-${i}.log`),
    )
  }, 120_000)

  it('records a shard that fails once and passes when re-run as flaky: the check is flaky, no retry spent', async () => {
    const repo = tempRepo({
      files: {
        '.gitignore': '.loop/\njunit-*.xml\nflaked\n',
        '.github/loop.yml': loopConfig('touch flaky-now'),
        // Widget 7 (shard 3) fails the first time it runs after the work, then passes.
        ...widgetTests((i) =>
          i === 7
            ? "  if (existsSync('flaky-now') && !existsSync('flaked')) { writeFileSync('flaked', ''); assert.fail('widget 7 flaked') }"
            : '  assert.ok(true)',
        ),
      },
    })
    const run = await cli(repo, 'run', '--loop-id', 'flaky')
    expect(run.stderr).toBe('')
    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'flaky', 'loop-state.json'), 'utf8')),
    )
    expect(state.lastVerification?.results.map((r) => [r.name, r.verdict])).toEqual([['test', 'flaky']])
    expect(state.status).toBe('complete')
    const events = journey(repo, 'flaky')
    expect(events.filter((e) => e.type === 'check' && e.message.includes('flake check')).map((e) => e.data)).toEqual([
      { scope: 'shards', shards: [3] },
    ])
    expect(events.filter((e) => e.type === 'flaky').map((e) => e.message)).toEqual([
      'test: failed, then its failing shards passed when re-run (flaky, no retry spent)',
    ])
  }, 120_000)

  it('makes a check whose shard is killed before it reports an infrastructure error, never a pass', async () => {
    const repo = tempRepo({
      files: {
        '.gitignore': '.loop/\njunit-*.xml\n',
        '.github/loop.yml': loopConfig('touch kill-the-runner'),
        // Widget 2's test kills the runner of its shard (as the OOM killer would) once the work asks for it.
        ...widgetTests((i) =>
          i === 2 ? "  if (existsSync('kill-the-runner')) process.kill(process.ppid, 'SIGKILL')" : '  assert.ok(true)',
        ),
      },
    })
    const run = await cli(repo, 'run', '--loop-id', 'killed')
    expect(run.stderr).toBe('')
    const state = loopStateSchema.parse(
      JSON.parse(readFileSync(join(repo, '.loop', 'killed', 'loop-state.json'), 'utf8')),
    )
    const [result] = state.lastVerification?.results ?? []
    expect(result).toMatchObject({
      name: 'test',
      verdict: 'error',
      pattern: 'infrastructure',
      strategy: 'retry_with_backoff',
    })
    expect(result?.excerpt.split('\n').slice(0, 2)).toEqual([
      '### test shard 2/4: error',
      expect.stringMatching(
        /^loop-controller: no verdict from test shard 2\/4: killed by SIGKILL( \(exit 137\))? before it reported$/,
      ),
    ])
    // The flake check tried the lost shard alone again (a lost shard is transient); it was lost again.
    const flakeChecks = journey(repo, 'killed').filter((e) => e.type === 'check' && e.message.includes('flake check'))
    expect(flakeChecks.map((e) => e.data)).toEqual([{ scope: 'shards', shards: [2] }])
    expect(existsSync(join(repo, '.loop', 'killed', 'runs', '1', 'test.shard-2.rerun-1.log'))).toBe(true)
    expect(state.failures.current).toMatchObject({
      check: 'test',
      pattern: 'infrastructure',
      strategy: 'retry_with_backoff',
    })
  }, 120_000)
})
