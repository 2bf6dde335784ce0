import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isLibraryFile, isTestFile, rankLocations } from '../../../src/domain/analysis/frames.js'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'

const fixtures = join(import.meta.dirname, '../../fixtures')
const library = buildLibrary()

describe('library frames (files of real stack traces)', () => {
  it.each([
    ['node:internal/test_runner/test', true],
    ['node:async_hooks', true],
    ['/work/app/node_modules/@vitest/runner/dist/index.js', true],
    ['node_modules/jest-circus/build/utils.js', true],
    ['/usr/lib/go-1.19/src/testing/testing.go', true],
    ['/usr/lib/go-1.19/src/runtime/panic.go', true],
    ['/usr/local/go/src/runtime/panic.go', true],
    ['/opt/hostedtoolcache/go/1.22.1/x64/src/testing/testing.go', true],
    ['/home/runner/go/pkg/mod/github.com/stretchr/testify@v1.9.0/assert/assertions.go', true],
    ['/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py', true],
    ['/usr/lib/python3.11/unittest/case.py', true],
    ['/app/.venv/lib/python3.12/site-packages/_pytest/python.py', true],
    ['/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs', true],
    // The project's own files, GOPATH layout included.
    ['/tmp/ctxcap/js/src/price.js', false],
    ['src/price.ts', false],
    ['shop/price.py', false],
    ['/home/me/go/src/github.com/me/shop/price.go', false],
    ['price_test.go', false],
    ['lib/format.js', false],
  ])('%s → %s', (file, library) => {
    expect(isLibraryFile(file)).toBe(library)
  })
})

describe('test files', () => {
  it.each([
    ['test/price.test.js', true],
    ['src/price.spec.ts', true],
    ['src/__tests__/price.js', true],
    ['tests/test_price.py', true],
    ['shop/price_test.py', true],
    ['price_test.go', true],
    ['/tmp/ctxcap/go/price_test.go', true],
    ['spec/price_spec.rb', true],
    ['src/test/java/shop/PriceTest.java', true],
    ['src/price.js', false],
    ['shop/price.py', false],
    ['price.go', false],
    ['src/testing-utils.ts', false],
    ['src/contest.ts', false],
  ])('%s → %s', (file, test) => {
    expect(isTestFile(file)).toBe(test)
  })
})

describe('rankLocations', () => {
  it.each([
    {
      name: 'the source frame before the test that called it',
      given: ['test/price.test.ts', 'src/price.ts', 'test/price.test.ts'],
      want: ['src/price.ts', 'test/price.test.ts', 'test/price.test.ts'],
    },
    {
      name: 'library frames dropped',
      given: [
        '/usr/lib/go-1.19/src/testing/testing.go',
        'price.go',
        'price_test.go',
        '/usr/lib/go/src/runtime/panic.go',
      ],
      want: ['price.go', 'price_test.go'],
    },
    {
      name: 'only library frames: kept as the only lead',
      given: ['/usr/lib/python3.11/json/decoder.py', '/usr/lib/python3.11/json/__init__.py'],
      want: ['/usr/lib/python3.11/json/decoder.py', '/usr/lib/python3.11/json/__init__.py'],
    },
    { name: 'output order kept within a group', given: ['b.ts', 'a.ts'], want: ['b.ts', 'a.ts'] },
    { name: 'nothing', given: [], want: [] },
  ])('$name', ({ given, want }) => {
    expect(rankLocations(given.map((file) => ({ file }))).map((l) => l.file)).toEqual(want)
  })
})

describe('locations from captured runs where the bug is in the source under test', () => {
  it.each([
    // vitest names the frame's function: `❯ priceWithTax src/price.ts:9:34`.
    ['test-failure/vitest-source-frame.txt', ['src/price.ts:9', 'test/price.test.ts:5', 'test/price.test.ts:9']],
    // node:test's TAP stack: `priceWithTax (file:///…/src/price.js:9:34)`; node:internal frames dropped.
    ['test-failure/node-test-source-frame.txt', ['js/src/price.js:9', 'test/price.test.js:5', 'test/price.test.js:6']],
    ['test-failure/node-test-spec.txt', ['js/src/price.js:9', 'test/price.test.js:6', 'test/price.test.js:10']],
    // pytest's long traceback ends in the source file.
    ['test-failure/pytest-source-frame.txt', ['shop/price.py:11', 'tests/test_price.py:5', 'tests/test_price.py:9']],
    // A Go panic: `\t/…/price.go:11`; GOROOT's testing and runtime frames dropped.
    ['test-failure/go-test-panic.txt', ['go/price.go:11', 'price_test.go:7', 'go/price_test.go:13']],
  ])('%s', (file, want) => {
    const analysis = analyzeText(readFileSync(join(fixtures, file), 'utf8'), library, { kind: 'test' })
    const got = analysis.locations.map((l) => `${l.file}:${l.line}`)
    expect(got.length).toBeGreaterThanOrEqual(want.length)
    want.forEach((suffix, i) => {
      expect(got[i]?.endsWith(suffix), `${got[i]} ends with ${suffix}`).toBe(true)
    })
    expect(got.some((g) => /node:|\/usr\/lib\/go|python3\.\d+\//.test(g))).toBe(false)
  })
})
