import { describe, expect, it } from 'vitest'
import { type FlakeRerun, type FlakeRerunInput, flakeRerun, runnerOf } from '../../../src/domain/flake-rerun.js'

const input = (over: Partial<FlakeRerunInput>): FlakeRerunInput => ({
  kind: 'test',
  run: 'npm test',
  pattern: 'test-failure',
  failingTests: null,
  ...over,
})

describe('flakeRerun', () => {
  const table: Array<{ name: string; given: Partial<FlakeRerunInput>; expected: Partial<FlakeRerun> }> = [
    {
      name: 'a typecheck is never re-run',
      given: { kind: 'typecheck', run: 'tsc --noEmit', pattern: 'type-error' },
      expected: { scope: 'none' },
    },
    {
      name: 'a lint is never re-run',
      given: { kind: 'lint', run: 'eslint .', pattern: 'lint-error' },
      expected: { scope: 'none' },
    },
    {
      name: 'a format check is never re-run',
      given: { kind: 'format', run: 'prettier -c .', pattern: null },
      expected: { scope: 'none' },
    },
    {
      name: 'a build is never re-run',
      given: { kind: 'build', run: 'npm run build', pattern: 'build-error' },
      expected: { scope: 'none' },
    },
    {
      name: 'a build failing on the network is re-run whole',
      given: { kind: 'build', run: 'npm run build', pattern: 'network-error' },
      expected: { scope: 'check' },
    },
    {
      name: 'a shard of a build lost before it reported is re-run whole',
      given: { kind: 'build', run: 'make -j shard-2', pattern: 'infrastructure' },
      expected: { scope: 'check' },
    },
    {
      name: 'a vitest shard lost before it reported is re-run whole, not narrowed to tests',
      given: {
        kind: 'test',
        run: 'vitest run --shard=2/4',
        pattern: 'infrastructure',
        failingTests: ['a.test.ts > a'],
      },
      expected: { scope: 'check' },
    },
    {
      name: 'a lint that timed out inside is re-run whole',
      given: { kind: 'lint', run: 'eslint .', pattern: 'timeout' },
      expected: { scope: 'check' },
    },
    {
      name: 'a test by an unknown command is re-run whole',
      given: { run: 'npm test', failingTests: ['a'] },
      expected: { scope: 'check' },
    },
    {
      name: 'a custom check is re-run whole',
      given: { kind: 'custom', run: './smoke.sh', pattern: null },
      expected: { scope: 'check' },
    },
    {
      name: 'vitest: only the failing tests, by their names',
      given: { run: 'npx vitest run', failingTests: ['test/math.test.ts > sum > adds', 'test/b.test.ts > parse (x)'] },
      expected: {
        scope: 'tests',
        runner: 'vitest',
        command: "npx vitest run -t 'sum adds|parse \\(x\\)'",
        tests: ['sum adds', 'parse (x)'],
      },
    },
    {
      name: 'vitest with no test named (a file failing to import): the whole check',
      given: { run: 'vitest run', failingTests: null },
      expected: { scope: 'check' },
    },
    {
      name: 'jest: -t with the names joined by spaces',
      given: { run: 'jest --ci', failingTests: ['sum › adds two numbers'] },
      expected: { scope: 'tests', runner: 'jest', command: "jest --ci -t 'sum adds two numbers'" },
    },
    {
      name: 'pytest: --lf',
      given: { run: 'python -m pytest -q tests', failingTests: ['tests/test_math.py::test_add'] },
      expected: { scope: 'tests', runner: 'pytest', command: 'python -m pytest -q tests --lf' },
    },
    {
      name: 'pytest: --lf even when no test was named (the cache knows)',
      given: { run: 'pytest', failingTests: null },
      expected: { scope: 'tests', runner: 'pytest', command: 'pytest --lf' },
    },
    {
      name: 'go test: -run with the top-level tests, anchored',
      given: { run: 'go test ./...', failingTests: ['TestAdd', 'TestAdd/negative', 'TestParse'] },
      expected: {
        scope: 'tests',
        runner: 'go',
        command: "go test ./... -run '^(TestAdd|TestParse)$'",
        tests: ['TestAdd', 'TestParse'],
      },
    },
    {
      name: 'an argument list gets the filter as arguments',
      given: { run: ['go', 'test', './...'], failingTests: ['TestAdd'] },
      expected: { scope: 'tests', command: ['go', 'test', './...', '-run', '^(TestAdd)$'] },
    },
    {
      name: 'a pipeline is not one runner: the whole check',
      given: { run: 'vitest run | tee out.txt', failingTests: ['a.test.ts > b'] },
      expected: { scope: 'check' },
    },
    {
      name: 'a runner with a filter of its own: the whole check',
      given: { run: 'vitest run -t slow', failingTests: ['a.test.ts > b'] },
      expected: { scope: 'check' },
    },
    {
      name: 'names of another runner are not used',
      given: { run: 'go test ./...', failingTests: ['a.test.ts > b'] },
      expected: { scope: 'check' },
    },
    {
      name: 'too many failing tests: the whole check',
      given: { run: 'go test ./...', failingTests: Array.from({ length: 51 }, (_, i) => `Test${i}`) },
      expected: { scope: 'check' },
    },
  ]

  it.each(table)('$name', ({ given, expected }) => {
    expect(flakeRerun(input(given))).toMatchObject(expected)
  })
})

describe('runnerOf', () => {
  const table: Array<[string | string[], string | null]> = [
    ['vitest', 'vitest'],
    ['npx vitest run test/unit', 'vitest'],
    ['./node_modules/.bin/vitest run', 'vitest'],
    ['pnpm jest', 'jest'],
    ['py.test -x', 'pytest'],
    ['python3 -m pytest', 'pytest'],
    ['go test -race ./...', 'go'],
    ['go vet ./...', null],
    ['npm test', null],
    ['vitest --watch', null],
    ['cd pkg && go test ./...', null],
    [['npx', 'jest'], 'jest'],
  ]
  it.each(table)('%s is %s', (run, runner) => {
    expect(runnerOf(run)).toBe(runner)
  })
})
