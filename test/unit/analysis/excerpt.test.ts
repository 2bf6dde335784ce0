import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'

const root = join(import.meta.dirname, '../../fixtures/test-failure')
const library = buildLibrary()

/**
 * Real failing runs (test/fixtures/test-failure; the `-cart` ones fail three tests, from
 * scripts/capture-excerpt-fixtures.sh): what the excerpt must show of the first failing test, its name
 * before what it received, and where it failed (null where only the analysis's locations say it).
 */
const cases: { fixture: string; name: string; received: string; location: string | null }[] = [
  {
    fixture: 'jest-cart.txt',
    name: '● cart › adds the prices',
    received: 'Received: 7',
    location: 'at Object.toBe (cart.test.js:5:60)',
  },
  { fixture: 'jest.txt', name: '● adds', received: 'Received: 3', location: 'at Object.toBe (math.test.js:3:21)' },
  {
    fixture: 'vitest-cart.txt',
    name: 'cart > adds the prices',
    received: 'expected 7 to be 6',
    location: '❯ test/cart.test.js:6:60',
  },
  { fixture: 'vitest.txt', name: '> adds', received: 'expected 3 to be 4', location: '❯ test/math.test.js:4:21' },
  {
    fixture: 'pytest-cart.txt',
    name: ' test_adds_the_prices ',
    received: 'assert 7 == 6',
    location: 'tests/test_cart.py:16: AssertionError',
  },
  {
    fixture: 'go-test-cart.txt',
    name: '--- FAIL: TestTotal',
    received: 'Total([1 2 3]) = 7; want 6',
    location: 'cart_test.go:7: ',
  },
  { fixture: 'go-test.txt', name: '--- FAIL: TestAdd', received: 'Add(1, 2) = 3; want 4', location: 'add_test.go:7: ' },
  {
    fixture: 'go-test-panic-index.txt',
    name: '--- FAIL: TestIndex',
    received: 'panic: runtime error: index out of range [2] with length 2',
    location: null,
  },
  {
    fixture: 'node-test-cart.txt',
    name: 'not ok 1 - adds the prices',
    received: 'actual: 7',
    location: "location: '/tmp/excerptcap/node/cart.test.mjs:7:3'",
  },
  { fixture: 'node-test.txt', name: 'not ok 1 - adds', received: 'actual: 3', location: 'math.test.mjs:3:1' },
  {
    fixture: 'node-test-spec-cart.txt',
    name: '✖ adds the prices',
    received: 'actual: 7,',
    location: 'cart.test.mjs:7:42)',
  },
  {
    fixture: 'node-test-spec.txt',
    name: '✖ applyDiscount takes ten percent off',
    received: 'actual: 990,',
    location: 'price.test.js:6:10)',
  },
  {
    fixture: 'mocha.txt',
    name: '1) adds',
    received: '3 !== 4',
    location: 'at Context.<anonymous> (test/math.cjs:4:12)',
  },
  {
    fixture: 'cargo-test.txt',
    name: '---- tests::adds stdout ----',
    received: 'left: 3\nright: 4',
    location: 'panicked at src/lib.rs:9:9',
  },
]

describe('a failing test run: the excerpt names the test and shows what it received', () => {
  it.each(cases)('$fixture', ({ fixture, name, received, location }) => {
    const analysis = analyzeText(readFileSync(join(root, fixture), 'utf8'), library, { kind: 'test' })
    expect(analysis.pattern).toBe('test-failure')
    const { excerpt } = analysis
    expect(excerpt).toContain(name)
    expect(excerpt).toContain(received)
    expect(excerpt.indexOf(name)).toBeLessThan(excerpt.indexOf(received))
    if (location !== null) expect(excerpt).toContain(location)
    expect(excerpt.split('\n').length).toBeLessThanOrEqual(12)
  })

  it('also names the second failing test and shows the changed line of its object diff', () => {
    const excerptOf = (fixture: string) =>
      analyzeText(readFileSync(join(root, fixture), 'utf8'), library, { kind: 'test' }).excerpt
    expect(excerptOf('jest-cart.txt')).toContain('● cart › summarises the items\n')
    expect(excerptOf('jest-cart.txt')).toContain('+   "sum": 6,')
    expect(excerptOf('node-test-cart.txt')).toContain('not ok 2 - summarises the items')
    expect(excerptOf('node-test-cart.txt')).toContain('+   sum: 6')
    expect(excerptOf('pytest-cart.txt')).toContain(' test_summarises_the_items ')
    expect(excerptOf('go-test-cart.txt')).toContain('Summarise([2 3]) = {Count:2 Sum:6}; want {Count:2 Sum:5}')
  })
})
