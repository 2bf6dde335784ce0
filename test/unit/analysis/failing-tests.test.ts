import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { failingTestsFromVerdicts, failingTestsIn } from '../../../src/domain/analysis/failing-tests.js'

const fixture = (name: string) => readFileSync(join('test/fixtures/test-failure', name), 'utf8')

describe('failingTestsIn: the failing tests a runner names (captured output of the real tools)', () => {
  it.each([
    ['vitest.txt', ['test/math.test.js > adds']],
    ['vitest-color.txt', ['test/math.test.js > adds']],
    ['jest.txt', ['adds']],
    ['pytest.txt', ['tests/test_math.py::test_add']],
    ['go-test.txt', ['TestAdd']],
    ['node-test.txt', ['adds']],
    ['cargo-test.txt', ['tests::adds']],
    ['mocha.txt', ['adds', 'math']],
  ])('%s', (file, expected) => {
    expect(failingTestsIn(fixture(file))).toEqual(expected)
  })

  it.each([
    [
      'several vitest failures, sorted and distinct',
      ' FAIL  a.test.ts > b\n FAIL  a.test.ts > a\n FAIL  a.test.ts > b\n',
      ['a.test.ts > a', 'a.test.ts > b'],
    ],
    [
      'go subtests',
      '--- FAIL: TestSum (0.00s)\n    --- FAIL: TestSum/negative (0.00s)\n',
      ['TestSum', 'TestSum/negative'],
    ],
    ['a TAP line with a directive', 'not ok 2 - slow one # TODO later\n', ['slow one']],
    [
      'pytest errors at setup',
      'ERROR tests/test_db.py::test_connect - ConnectionError\n',
      ['tests/test_db.py::test_connect'],
    ],
    ['a jest suite that fails to import names no test', '  ● Test suite failed to run\n', null],
    ['a type checker names no test', "src/a.ts(3,1): error TS2322: Type 'string' is not assignable\n", null],
    ['nothing at all', '', null],
  ])('%s', (_name, output, expected) => {
    expect(failingTestsIn(output)).toEqual(expected)
  })
})

describe('failingTestsFromVerdicts: one check of the JUnit verdicts', () => {
  it.each([
    ['the failing tests of that check only', 'unit', { 'unit:a': 'fail', 'unit:b': 'pass', 'e2e:c': 'fail' }, ['a']],
    ['a check whose tests all pass', 'unit', { 'unit:a': 'pass' }, []],
    ['a check with no JUnit report', 'lint', { 'unit:a': 'fail' }, null],
  ] as const)('%s', (_name, check, tests, expected) => {
    expect(failingTestsFromVerdicts(check, { ...tests })).toEqual(expected)
  })
})
