/**
 * Issue 14's sharded checks on real test runners: each recipe README.md shows under "Sharded checks",
 * read out of the README (so the two cannot drift), run by `loop-controller run` as a `test` check with
 * `shards: N`: vitest on ufo, pytest on python-semver, go test on go-humanize (each through the
 * real-projects harness, with only its logic defect, whose failing tests live in one shard) and jest on a
 * small suite of its own. For each: the failing test fails the merged check, which names it under its
 * shard's heading; the loop reaches COMPLETE once the agent fixed it; and in the passing run the legs
 * together ran the whole suite, no test twice (read from each leg's JUnit report against the runner's
 * unsharded report, or for go from each leg's `ok <package>` lines against `go list ./...`). node's
 * runner is proven by test/integration/cli/sharded-check.test.ts on the README's node recipe.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  currentController,
  git,
  type LoopOutcome,
  loopEnv,
  npmTools,
  prepareToolchain,
  readState,
  runController,
  runLoop,
} from './harness.js'
import { PROJECTS } from './projects.js'
import { readmeShardRecipe, type ShardRecipe } from './readme-recipes.js'

/** The loop config's checks replaced by one sharded `test` check running the recipe. */
function withShardedTest(yaml: string, recipe: ShardRecipe, shards: number): string {
  const checks = yaml.indexOf('\nchecks:\n')
  if (checks < 0) throw new Error('the loop.yml has no `checks:` block to replace')
  return [
    yaml.slice(0, checks),
    'checks:',
    '  - name: test',
    '    kind: test',
    `    shards: ${shards}`,
    `    run: ${JSON.stringify(recipe.run)}`,
    ...(recipe.junit ? [`    junit: ${JSON.stringify(recipe.junit)}`] : []),
    '    timeout: 5m',
    '',
  ].join('\n')
}

/** Each `<testcase>` of a JUnit report as `classname > name`. */
function testcases(xml: string): string[] {
  return [...xml.matchAll(/<testcase\b([^>]*)>/g)].map((match) => {
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(match[1] ?? '')?.[1] ?? ''
    return `${attribute('classname')} > ${attribute('name')}`
  })
}

/** The tests each leg's JUnit report names (a leg that wrote none ran none). */
function legTests(repo: string, recipe: ShardRecipe, shards: number): string[][] {
  if (!recipe.junit) throw new Error(`the README's recipe ${recipe.name} has no junit report to read`)
  return Array.from({ length: shards }, (_, index) => {
    const path = join(repo, (recipe.junit as string).replace('{shard}', String(index + 1)))
    return existsSync(path) ? testcases(readFileSync(path, 'utf8')) : []
  })
}

/** The runner's own unsharded run of the whole suite, reporting to a JUnit file: its tests. */
function wholeSuite(repo: string, env: NodeJS.ProcessEnv, command: (report: string) => string): string[] {
  const report = join(mkdtempSync(join(tmpdir(), 'loop-whole-suite-')), 'junit.xml')
  execFileSync('sh', ['-c', command(report)], { cwd: repo, env, stdio: 'ignore' })
  return testcases(readFileSync(report, 'utf8'))
}

/**
 * The legs' shares are the whole suite: no test in two legs, and all of them together the unsharded run's
 * tests, as many times as it has them (a suite may repeat a name within one file).
 */
function expectWholeSuiteOnce(legs: string[][], whole: string[]): void {
  const inTwo = legs.flatMap((tests, i) => legs.slice(i + 1).flatMap((other) => tests.filter((t) => other.includes(t))))
  expect(inTwo, 'tests run by two legs').toEqual([])
  expect(whole.length, 'the unsharded suite ran no test').toBeGreaterThan(0)
  expect(legs.flat().sort()).toEqual([...whole].sort())
}

/** The merged `test` check's failure in the context the agent was first given. */
function firstTestFailure(repo: string): { excerpt: string; locations: { file: string }[] } {
  const context = JSON.parse(readFileSync(join(repo, '.loop', 'main', 'runs', '1', 'context.json'), 'utf8'))
  const failure = context.failures.find((entry: { check: string }) => entry.check === 'test')
  if (!failure) throw new Error(`no failure of the test check in ${JSON.stringify(context.failures)}`)
  return failure
}

/**
 * The excerpt is the failing legs' alone, each under its heading: one leg (any) where the failing tests
 * live in one file, or exactly the legs `expected`.
 */
function expectFailingShards(excerpt: string, shards: number, expected?: number[]): void {
  expect(excerpt).toMatch(new RegExp(`^### test shard \\d+/${shards}: fail\n`))
  const headings = [...excerpt.matchAll(/^### test shard (\d+)\/\d+: \w+$/gm)].map((match) => Number(match[1]))
  if (expected) expect(headings.sort(), excerpt).toEqual(expected)
  else expect(headings, excerpt).toHaveLength(1)
}

/** The tests the merged check's JUnit verdicts (the legs' reports united) failed at the baseline. */
function baselineFailingTests(repo: string): string[] {
  const tests: Record<string, string> = readState(repo)?.baseline?.tests ?? {}
  return Object.keys(tests).filter((test) => tests[test] === 'fail')
}

/** One leg of a recipe run by hand, as the controller runs it (bash, placeholders filled). */
function runLeg(recipe: ShardRecipe, shard: number, shards: number, cwd: string, env: NodeJS.ProcessEnv) {
  const command = recipe.run.replaceAll('{shards}', String(shards)).replaceAll('{shard}', String(shard))
  const result = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

function summary(outcome: LoopOutcome): string {
  return `${outcome.status} at ${outcome.iterations}: ${outcome.statusReason}`
}

/** A real project looped with its test check sharded by the README's recipe and only its logic defect. */
function shardedProject(name: string, recipeName: string, options: { shards?: number } = {}) {
  const project = PROJECTS.find((candidate) => candidate.name === name)
  const toolchain = project ? prepareToolchain(project) : `${name} is not among the projects`
  const skip = typeof toolchain === 'string' ? toolchain : undefined
  if (skip) console.warn(`the ${recipeName} shard recipe on ${name} skipped: ${skip}`)
  const recipe = readmeShardRecipe(recipeName)
  const shards = options.shards ?? recipe.shards
  const run = async () => {
    if (!project || typeof toolchain === 'string') throw new Error(`skipped: ${skip}`)
    const logic = project.defects.find((defect) => defect.kind === 'logic')
    if (!logic) throw new Error(`${name} has no logic defect`)
    const outcome = await runLoop(project, currentController(), toolchain, {
      config: (yaml) => withShardedTest(yaml, recipe, shards),
      defectFiles: [logic.file],
    })
    const env = { ...toolchain.env, PATH: `${join(outcome.repo, 'node_modules', '.bin')}:${toolchain.env.PATH}` }
    return { outcome, env }
  }
  return { skip, recipe, shards, run }
}

describe("the README's shard recipes on real test runners", () => {
  const vitest = shardedProject('ufo', 'vitest')
  it.skipIf(vitest.skip !== undefined)("vitest: ufo in the recipe's shards reaches COMPLETE", async () => {
    const { outcome, env } = await vitest.run()
    expect(outcome.status, summary(outcome)).toBe('complete')
    const failure = firstTestFailure(outcome.repo)
    expectFailingShards(failure.excerpt, vitest.shards)
    expect(failure.locations.map((location) => location.file)).toContain('test/trailing-slash.test.ts')
    const failing = baselineFailingTests(outcome.repo)
    expect(failing.length, String(failing)).toBeGreaterThan(0)
    expect(
      failing.every((test) => test.startsWith('test:test/trailing-slash.test.ts')),
      String(failing),
    ).toBe(true)
    expectWholeSuiteOnce(
      legTests(outcome.repo, vitest.recipe, vitest.shards),
      wholeSuite(outcome.repo, env, (report) => `vitest run --reporter=junit --outputFile.junit=${report}`),
    )
  })

  const pytest = shardedProject('semver', 'pytest')
  it.skipIf(pytest.skip !== undefined)("pytest: python-semver in the recipe's shards reaches COMPLETE", async () => {
    const { outcome, env } = await pytest.run()
    expect(outcome.status, summary(outcome)).toBe('complete')
    const failure = firstTestFailure(outcome.repo)
    // bump_minor is tested in test_bump.py, test_parsing.py and test_pysemver-cli.py, the 1st, 10th and
    // 11th of the 15 sorted test files: legs 1, 2 and 3 of 4.
    expectFailingShards(failure.excerpt, pytest.shards, [1, 2, 3])
    // Named by pytest's header of the failing test and located (its short summary line may fall past the cap).
    expect(failure.excerpt).toMatch(/_ test_should_bump_minor _/)
    expect(failure.excerpt).toMatch(/^tests\/test_bump\.py:\d+: AssertionError$/m)
    expect(baselineFailingTests(outcome.repo)).toContain('test:tests.test_bump.test_should_bump_minor')
    expectWholeSuiteOnce(
      legTests(outcome.repo, pytest.recipe, pytest.shards),
      wholeSuite(outcome.repo, env, (report) => `python3 -m pytest -q -p no:cacheprovider --junitxml=${report}`),
    )
    // A leg whose share is empty (16 legs, 15 files) tests nothing and passes: no report, no pytest run.
    const empty = runLeg(pytest.recipe, 16, 16, outcome.repo, env)
    expect([empty.status, empty.output]).toEqual([0, ''])
    expect(existsSync(join(outcome.repo, 'reports', 'junit-16.xml'))).toBe(false)
    // A listing that fails (no tests folder) fails the leg rather than passing it with nothing tested.
    const lost = runLeg(pytest.recipe, 1, 4, mkdtempSync(join(tmpdir(), 'loop-no-tests-')), env)
    expect(lost.status, lost.output).not.toBe(0)
    expect(lost.output).toContain('tests')
  })

  // One leg more than go-humanize's two packages: the third leg's share is empty, and it must test nothing.
  const go = shardedProject('humanize', 'go', { shards: 3 })
  it.skipIf(go.skip !== undefined)('go: go-humanize in three shards (one empty) reaches COMPLETE', async () => {
    const { outcome, env } = await go.run()
    expect(outcome.status, summary(outcome)).toBe('complete')
    const failure = firstTestFailure(outcome.repo)
    // english's tests use Comma too: its package (the second, so the second leg) fails as well.
    expectFailingShards(failure.excerpt, go.shards, [1, 2])
    expect(failure.excerpt).toMatch(/--- FAIL: TestCommas\b/)
    const packages = execFileSync('go', ['list', './...'], { cwd: outcome.repo, env, encoding: 'utf8' })
    const tested = legLogs(outcome.repo, go.shards).map((log) =>
      [...log.matchAll(/^(?:ok|FAIL|\?)\s+(\S+)/gm)].map((match) => match[1] as string),
    )
    expect(tested[2], 'the empty leg tested a package').toEqual([])
    expectWholeSuiteOnce(tested, packages.trim().split('\n'))
    // A listing that fails (no Go module here) fails the leg rather than passing it with nothing tested.
    const lost = runLeg(go.recipe, 1, 3, mkdtempSync(join(tmpdir(), 'loop-no-module-')), env)
    expect(lost.status, lost.output).not.toBe(0)
    expect(lost.output).toMatch(/module/)
  })

  const jest = jestSuite()
  it.skipIf(jest.skip !== undefined)(
    'jest: a suite of four files in five shards (one empty) reaches COMPLETE',
    async () => {
      const { repo, env, recipe, shards } = await jest.run()
      const state = readState(repo)
      expect(state?.status, `${state?.status}: ${state?.statusReason}`).toBe('complete')
      const failure = firstTestFailure(repo)
      expectFailingShards(failure.excerpt, shards)
      expect(failure.excerpt).toContain('FAIL test/total.test.js')
      expect(baselineFailingTests(repo).sort()).toEqual([
        'test:total adds the prices.total adds the prices',
        'test:total handles nothing.total handles nothing',
      ])
      const legs = legTests(repo, recipe, shards)
      expect(legs.filter((tests) => tests.length === 0).length, 'no empty leg').toBeGreaterThan(0)
      expectWholeSuiteOnce(
        legs,
        wholeSuite(repo, env, (report) => `JEST_JUNIT_OUTPUT_FILE=${report} jest --ci --reporters=jest-junit`),
      )
    },
  )
})

/** Each leg's log in the last run that has them (the passing verification). */
function legLogs(repo: string, shards: number): string[] {
  const runs = join(repo, '.loop', 'main', 'runs')
  const last = readdirSync(runs)
    .map(Number)
    .filter((run) => existsSync(join(runs, String(run), 'test.shard-1.log')))
    .sort((a, b) => b - a)[0]
  if (last === undefined) throw new Error(`no run in ${runs} kept the legs' logs`)
  return Array.from({ length: shards }, (_, index) =>
    readFileSync(join(runs, String(last), `test.shard-${index + 1}.log`), 'utf8'),
  )
}

const JEST_TOOLS = { jest: '30.5.2', 'jest-junit': '17.0.0' }

/** Four jest test files, two tests each; `total` counts from 1 instead of 0, which the work command fixes. */
const JEST_FILES: Record<string, string> = {
  'package.json': '{ "name": "cart", "private": true }\n',
  '.gitignore': 'node_modules\n',
  'src/cart.js': [
    'exports.total = (items) => items.reduce((sum, item) => sum + item.price, 1)',
    'exports.count = (items) => items.length',
    'exports.discount = (price, percent) => price - (price * percent) / 100',
    'exports.tax = (price, rate) => price * rate',
    '',
  ].join('\n'),
  ...Object.fromEntries(
    [
      ['total', 'expect(cart.total([{ price: 2 }, { price: 3 }])).toBe(5)', 'expect(cart.total([])).toBe(0)'],
      ['count', 'expect(cart.count([{}, {}])).toBe(2)', 'expect(cart.count([])).toBe(0)'],
      ['discount', 'expect(cart.discount(200, 10)).toBe(180)', 'expect(cart.discount(50, 0)).toBe(50)'],
      ['tax', 'expect(cart.tax(100, 0.2)).toBe(20)', 'expect(cart.tax(0, 0.2)).toBe(0)'],
    ].map(([name, first, second]) => [
      `test/${name}.test.js`,
      [
        "const cart = require('../src/cart')",
        `describe('${name}', () => {`,
        `  test('${name === 'total' ? 'adds the prices' : 'works'}', () => { ${first} })`,
        `  test('handles nothing', () => { ${second} })`,
        '})',
        '',
      ].join('\n'),
    ]),
  ),
}

/** The README's jest recipe on the suite above, through `loop-controller run`; jest from the npm registry. */
function jestSuite() {
  const nodeModules = npmTools('jest', JEST_TOOLS)
  const skip = nodeModules.startsWith('/') ? undefined : nodeModules
  if (skip) console.warn(`the jest shard recipe skipped: ${skip}`)
  const run = async () => {
    const recipe = readmeShardRecipe('jest')
    // One leg more than the suite's four files: at least one leg's share is empty.
    const shards = 5
    const repo = mkdtempSync(join(tmpdir(), 'loop-real-jest-'))
    const config = [
      'goal: Make the cart tests pass.',
      'max-iterations: 3',
      'work:',
      `  run: ${JSON.stringify("sed -i 's/item.price, 1)/item.price, 0)/' src/cart.js")}`,
      'checks:',
      '',
    ].join('\n')
    for (const [path, text] of Object.entries({
      ...JEST_FILES,
      '.github/loop.yml': withShardedTest(config, recipe, shards),
    })) {
      mkdirSync(dirname(join(repo, path)), { recursive: true })
      writeFileSync(join(repo, path), text)
    }
    symlinkSync(nodeModules, join(repo, 'node_modules'))
    git(repo, 'init', '-q', '-b', 'main')
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'a cart whose total counts from 1')
    const env = loopEnv([join(repo, 'node_modules', '.bin')])
    await runController(currentController(), repo, env, { timeoutMs: 5 * 60_000 })
    return { repo, env, recipe, shards }
  }
  return { skip, run }
}
