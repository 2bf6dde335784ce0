// Captures test/fixtures/infrastructure/*.txt: what the controller records for a sharded check one of
// whose shards is killed before it reports. The `infrastructure` pattern's text is the controller's own
// (`loop-controller: no verdict from <check> shard <i>/<n>: ...`), so it is captured the way a user meets
// it: the CLI really runs a 4-shard `test` check whose runner a test kills with SIGKILL (as the OOM killer
// would), and the fixture is the check's excerpt in the saved state, the killed runner's output included.
//
//   npx tsx scripts/capture-shard-fixtures.ts
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { runCli } from '../src/cli/main.js'

const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'test', 'fixtures', 'infrastructure')

interface Tool {
  name: string
  run: string
  /** The test file of widget `i`; widget 3's test kills the runner that runs it. */
  testFile(i: number): { path: string; text: string }
}

const KILL = "process.kill(process.ppid, 'SIGKILL')"

const TOOLS: Tool[] = [
  {
    name: 'node-test-shard-killed',
    run: 'node --test --test-shard={shard}/{shards}',
    testFile: (i) => ({
      path: `widget-${i}.test.mjs`,
      text: [
        "import { test } from 'node:test'",
        "import assert from 'node:assert'",
        `test('widget ${i} works', () => {`,
        i === 3 ? `  ${KILL}` : '',
        `  assert.strictEqual(${i} + 0, ${i})`,
        '})',
        '',
      ].join('\n'),
    }),
  },
  {
    name: 'vitest-shard-killed',
    run: 'vitest run --globals --shard={shard}/{shards}',
    testFile: (i) => ({
      path: `widget-${i}.test.js`,
      text: [
        `test('widget ${i} works', () => {`,
        i === 3 ? `  ${KILL}` : '',
        `  expect(${i} + 0).toBe(${i})`,
        '})',
        '',
      ].join('\n'),
    }),
  },
]

async function capture(tool: Tool): Promise<void> {
  const repo = mkdtempSync(join(tmpdir(), `loop-${tool.name}-`))
  for (let i = 1; i <= 4; i++) {
    const file = tool.testFile(i)
    writeFileSync(join(repo, file.path), file.text)
  }
  mkdirSync(join(repo, '.github'))
  writeFileSync(
    join(repo, '.github', 'loop.yml'),
    [
      'max-iterations: 1',
      'flake-check: { enabled: false }',
      'work:',
      '  run: "true"',
      'checks:',
      '  - name: test',
      '    kind: test',
      '    shards: 4',
      `    run: ${JSON.stringify(tool.run)}`,
      '',
    ].join('\n'),
  )
  writeFileSync(join(repo, '.gitignore'), '.loop/\n')
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.invalid', 'commit', '-q', '-m', 'start')
  let output = ''
  await runCli(['run', '--loop-id', 'shards'], {
    stdout: (text) => {
      output += text
    },
    stderr: (text) => {
      output += text
    },
    stdin: new PassThrough(),
    isTTY: false,
    cwd: repo,
    env: {
      ...process.env,
      NO_COLOR: '1',
      PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    },
  })
  const state = JSON.parse(readFileSync(join(repo, '.loop', 'shards', 'loop-state.json'), 'utf8')) as {
    lastVerification?: { results: { name: string; verdict: string; excerpt: string }[] }
  }
  const check = state.lastVerification?.results.find((result) => result.name === 'test')
  if (check?.verdict !== 'error' || !check.excerpt.includes('loop-controller: no verdict from')) {
    throw new Error(
      `${tool.name}: expected the test check to be an error with a no-verdict line; got ${JSON.stringify(check)}\n${output}`,
    )
  }
  mkdirSync(OUT, { recursive: true })
  writeFileSync(join(OUT, `${tool.name}.txt`), `${check.excerpt}\n`)
  console.log(`${tool.name}: ${check.excerpt.split('\n').find((line) => line.startsWith('loop-controller:'))}`)
}

for (const tool of TOOLS) await capture(tool)
