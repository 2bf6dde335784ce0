import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { analyzeText, buildLibrary } from '../../../src/domain/analysis/index.js'
import { changesBase, diffablePaths, passedIn } from '../../../src/domain/code-context/changes.js'
import {
  type ContextRequest,
  contextLevel,
  namesInFailure,
  selectContext,
} from '../../../src/domain/code-context/select.js'
import {
  definitionEnd,
  definitionsIn,
  importBlock,
  importsIn,
  isIndexable,
  joinPath,
  resolveImport,
} from '../../../src/domain/code-context/symbols.js'

const PRICE_JS = `// Prices in cents.
export function applyDiscount(total, percent) {
  if (percent < 0 || percent > 100) throw new RangeError('percent out of range')
  return total - Math.round((total * percent) / 1000)
}

export function priceWithTax(net, rate) {
  const cents = Math.round(net * (1 + rate))
  if (Number.isNaN(cents)) throw new TypeError(\`bad price: \${net}\`)
  return cents
}
`
const PRICE_TEST = `import { expect, test } from 'vitest'
import { applyDiscount, priceWithTax } from '../src/price.js'

test('applyDiscount takes ten percent off', () => {
  expect(applyDiscount(1000, 10)).toBe(900)
})

test('priceWithTax rejects a bad price', () => {
  expect(priceWithTax('x' as unknown as number, 0.2)).toBe(0)
})
`

describe('symbols', () => {
  it.each([
    ['src/price.ts', 'export function applyDiscount(total, percent) {', 'applyDiscount'],
    ['src/a.ts', 'export const rate = 0.2', 'rate'],
    ['src/a.ts', 'export const format: Formatter = (x) => x', 'format'],
    ['src/a.ts', '  async function* walk(dir) {', 'walk'],
    ['src/a.ts', 'export default class Cart {', 'Cart'],
    ['src/a.ts', 'export interface Options {', 'Options'],
    ['shop/price.py', 'def apply_discount(total, percent):', 'apply_discount'],
    ['shop/price.py', '    async def fetch(self):', 'fetch'],
    ['shop/price.py', 'class Cart(Base):', 'Cart'],
    ['price.go', 'func ApplyDiscount(total, percent int) int {', 'ApplyDiscount'],
    ['price.go', 'func (c *Cart) Total() int {', 'Total'],
    ['price.go', 'type Cart struct {', 'Cart'],
    ['src/lib.rs', 'pub(crate) fn apply_discount(total: u32) -> u32 {', 'apply_discount'],
    ['src/lib.rs', 'pub struct Cart {', 'Cart'],
  ])('%s: %s defines %s', (file, line, name) => {
    expect(definitionsIn(file, line).map((d) => d.name)).toEqual([name])
  })

  it.each([
    ['braces', PRICE_JS, 2, 5],
    ['a one-line constant', 'export const rate = 0.2\nexport const b = 1\n', 1, 1],
    ['python by indentation', 'def a(x):\n    y = x\n\n    return y\n\ndef b():\n    pass\n', 1, 4],
    ['capped', `function big() {\n${'  x()\n'.repeat(100)}}\n`, 1, 60],
  ])('definitionEnd: %s', (_name, text, line, end) => {
    expect(definitionEnd(text.split('\n'), line)).toBe(end)
  })

  it.each([
    ['test/price.test.ts', PRICE_TEST, ['vitest', '../src/price.js']],
    ['test/a.test.cjs', "const { add } = require('../lib/add')\n", ['../lib/add']],
    ['tests/test_price.py', 'from shop.price import apply_discount\nimport os.path\n', ['shop.price', 'os.path']],
  ])('importsIn %s', (file, text, specs) => {
    expect(importsIn(file, text)).toEqual(specs)
  })

  it.each([
    ['test/price.test.ts', '../src/price.js', ['src/price.ts'], 'src/price.ts'],
    ['test/price.test.js', '../src/price.js', ['src/price.js'], 'src/price.js'],
    ['test/a.test.js', '../lib', ['lib/index.js'], 'lib/index.js'],
    ['test/a.test.js', 'vitest', ['vitest.js'], null],
    ['tests/test_price.py', 'shop.price', ['shop/price.py'], 'shop/price.py'],
    ['tests/test_price.py', 'shop.price', ['src/shop/price.py'], 'src/shop/price.py'],
    ['pkg/tests/test_a.py', '..a', ['pkg/a.py'], 'pkg/a.py'],
  ])('resolveImport from %s of %s', (from, spec, files, want) => {
    expect(resolveImport(from, spec, new Set(files))).toBe(want)
  })

  it.each([
    ['ES imports', PRICE_TEST, { startLine: 1, endLine: 2 }],
    ['a multi-line import', "import {\n  a,\n  b,\n} from './x.js'\n\nconst c = a(b)\n", { startLine: 1, endLine: 4 }],
    ['python', '"""Doc."""\nimport os\nfrom shop import x\n\n\ndef f():\n    pass\n', { startLine: 1, endLine: 3 }],
    ['go', 'package shop\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc A() {}\n', { startLine: 1, endLine: 6 }],
    ['none', 'const a = 1\n', null],
  ])('importBlock: %s', (_name, text, want) => {
    expect(importBlock(text.split('\n'))).toEqual(want)
  })

  it.each([
    ['src/price.ts', true],
    ['node_modules/x/index.js', false],
    ['.loop/demo/runs/1/prompt.md', false],
    ['dist/index.js', false],
    ['vendor/lib/a.go', false],
    ['src/types.d.ts', false],
    ['README.md', false],
  ])('isIndexable %s → %s', (path, want) => {
    expect(isIndexable(path)).toBe(want)
  })

  it('joinPath resolves . and ..', () => {
    expect(joinPath('test/unit', '../../src/./price.js')).toBe('src/price.js')
  })
})

const library = buildLibrary()
const vitestOutput = readFileSync(
  join(import.meta.dirname, '../../fixtures/test-failure/vitest-source-frame.txt'),
  'utf8',
)

/** src/price.ts with more below it than a window around the failure shows. */
const PRICE_MODULE = `${PRICE_JS}${Array.from({ length: 100 }, (_, i) => `export const rate${i} = ${i}`).join('\n')}\n`

function request(level: number, overrides: Partial<ContextRequest> = {}): ContextRequest {
  const analysis = analyzeText(vitestOutput, library, { kind: 'test' })
  const texts = new Map([
    ['src/price.ts', PRICE_MODULE],
    ['test/price.test.ts', PRICE_TEST],
    ['src/unrelated.ts', 'export function other() {\n  return 1\n}\n'],
  ])
  return {
    failure: { check: 'test', pattern: analysis.pattern, locations: analysis.locations, excerpt: analysis.excerpt },
    failingTests: ['test/price.test.ts > applyDiscount takes ten percent off'],
    level,
    files: new Set(texts.keys()),
    texts,
    changes: {
      since: 'since the loop started',
      files: ['src/price.ts'],
      diff: 'diff --git a/src/price.ts b/src/price.ts\n-  return total - Math.round((total * percent) / 100)\n+  return total - Math.round((total * percent) / 1000)\n',
    },
    ...overrides,
  }
}

describe('selectContext (a logic bug in src/price.ts, the failing test in test/price.test.ts; real vitest output)', () => {
  it('attempt 1: the failure and the definitions of the names in the assertion and the title', () => {
    const selection = selectContext(request(1))
    const whys = selection.snippets.map((s) => `${s.file}: ${s.why}`)
    expect(whys).toContain('src/price.ts: around the failure')
    expect(whys).toContain('test/price.test.ts: around the failure')
    expect(selection.snippets.some((s) => s.text.includes('export function applyDiscount'))).toBe(true)
    expect(selection.changes).toBeNull()
    expect(selection.added).toEqual([])
  })

  it('attempt 2 shows more than attempt 1 and says what: the tested module and the changes', () => {
    const one = selectContext(request(1))
    const two = selectContext(request(2))
    const size = (s: typeof one) => s.snippets.reduce((n, x) => n + x.text.length, 0) + (s.changes?.diff.length ?? 0)
    expect(size(two)).toBeGreaterThan(size(one))
    expect(two.changes?.files).toEqual(['src/price.ts'])
    expect(two.added.some((a) => a.startsWith('the changes since the loop started'))).toBe(true)
    expect(two.snippets.some((s) => s.why === 'imported by the failing test test/price.test.ts')).toBe(true)
    expect(two.snippets.some((s) => s.file === 'src/unrelated.ts')).toBe(false)
  })

  it('attempt 3 shows more than attempt 2', () => {
    const big = `${PRICE_JS}${'// filler\n'.repeat(300)}`
    const texts = new Map([
      ['src/price.ts', big],
      ['test/price.test.ts', PRICE_TEST],
    ])
    const two = selectContext(request(2, { texts, files: new Set(texts.keys()) }))
    const three = selectContext(request(3, { texts, files: new Set(texts.keys()) }))
    const lines = (s: typeof two) => s.snippets.reduce((n, x) => n + x.endLine - x.startLine + 1, 0)
    expect(lines(three)).toBeGreaterThan(lines(two))
    expect(three.added.length).toBeGreaterThan(0)
  })

  it.each([1, 2, 3])('level %i never shows the same line twice', (level) => {
    const selection = selectContext(request(level))
    const seen = new Set<string>()
    for (const snippet of selection.snippets) {
      for (let line = snippet.startLine; line <= snippet.endLine; line++) {
        const key = `${snippet.file}:${line}`
        expect(seen.has(key), key).toBe(false)
        seen.add(key)
      }
    }
  })

  it('stays within its size bound and says what it cut', () => {
    const huge = Array.from({ length: 3000 }, (_, i) => `const line${i} = ${i} // ${'x'.repeat(40)}`).join('\n')
    const texts = new Map([
      ['src/price.ts', `${PRICE_JS}${huge}`],
      ['test/price.test.ts', PRICE_TEST],
    ])
    const diff = `diff --git a/src/price.ts b/src/price.ts\n${'+x\n'.repeat(20_000)}`
    const selection = selectContext(
      request(3, { texts, files: new Set(texts.keys()), changes: { since: 'since x', files: ['src/price.ts'], diff } }),
    )
    const size = selection.snippets.reduce((n, x) => n + x.text.length, 0) + (selection.changes?.diff.length ?? 0)
    expect(size).toBeLessThanOrEqual(64_000)
    expect(selection.cut.some((c) => c.includes('characters of the diff left out'))).toBe(true)
  })

  it('a missing name: the import block of the file as well as the line', () => {
    const text = `import { a } from './a.js'\nimport { b } from './b.js'\n\n${'// filler\n'.repeat(80)}export const c = priceWithTax(a, b)\n`
    const texts = new Map([['src/c.ts', text]])
    const selection = selectContext({
      failure: {
        check: 'typecheck',
        pattern: 'import-not-found',
        locations: [
          { file: 'src/c.ts', line: 84, column: 18, message: "error TS2304: Cannot find name 'priceWithTax'." },
        ],
        excerpt: "src/c.ts(84,18): error TS2304: Cannot find name 'priceWithTax'.",
      },
      failingTests: [],
      level: 1,
      files: new Set(texts.keys()),
      texts,
      changes: null,
    })
    expect(selection.snippets.map((s) => [s.startLine, s.endLine, s.why])).toEqual([
      [34, 85, 'around the failure'],
      [1, 2, 'its import block'],
    ])
  })
})

describe('contextLevel', () => {
  it.each([
    [null, 0, 1],
    [null, 3, 1],
    ['analyze_then_fix', 1, 2],
    ['analyze_then_fix', 2, 3],
    ['context_expand', 1, 3],
    ['analyze_then_fix', 9, 3],
  ] as const)('strategy %s after %i attempts → level %i', (strategy, consecutive, level) => {
    expect(contextLevel(strategy, consecutive)).toBe(level)
  })
})

describe('namesInFailure', () => {
  it('takes names from the assertion line, the excerpt and the titles, stop words dropped', () => {
    const names = namesInFailure({
      failure: {
        check: 'test',
        pattern: 'test-failure',
        locations: [{ file: 't_test.go', line: 1 }],
        excerpt: 'AssertionError: expected 990 to be 900',
      },
      failingTests: ['tests/test_price.py::test_apply_discount', 'TestShare'],
      texts: new Map([['t_test.go', 'if got := ApplyDiscount(1000, 10); got != 900 {']]),
    })
    expect(names).toEqual(expect.arrayContaining(['ApplyDiscount', 'apply_discount', 'Share']))
    expect(names).not.toContain('expected')
    expect(names).not.toContain('got')
  })

  it("reads a failing Go table test's own body when a shared helper reports the failure", () => {
    // go-humanize's shape: `TestCommas` lists `Comma(...)` calls and `common_test.go:14` reports them.
    const failure = {
      check: 'test',
      pattern: 'test-failure',
      locations: [{ file: 'common_test.go', line: 3 }],
      excerpt: "common_test.go:14: On -10, expected '-10', but got '10'",
    }
    const texts = new Map([
      [
        'common_test.go',
        'func (tl testList) validate(t *testing.T) {\n\tfor _, test := range tl {\n\t\tt.Errorf("On %v", test.name)\n',
      ],
      [
        'comma_test.go',
        'func TestCommas(t *testing.T) {\n\ttestList{\n\t\t{"10", Comma(10), "10"},\n\t}.validate(t)\n}\n',
      ],
      ['comma.go', 'package humanize\n\nfunc Comma(v int64) string {\n\treturn ""\n}\n'],
    ])
    const names = namesInFailure({ failure, failingTests: ['TestCommas'], texts })
    expect(names).toContain('Comma')
    const selection = selectContext({
      failure,
      failingTests: ['TestCommas'],
      texts,
      files: new Set(texts.keys()),
      level: 1,
      changes: null,
    } as Parameters<typeof selectContext>[0])
    expect(selection.snippets.map((snippet) => `${snippet.file}: ${snippet.why}`)).toContain(
      'comma.go: definition of `Comma`',
    )
  })
})

describe('changes since the check last passed', () => {
  const checkpoints = [
    { iteration: 3, commit: 'c3'.repeat(20), body: 'loop(x): iteration 3 BUILD\n\nbuild pass, test fail\n' },
    { iteration: 2, commit: 'c2'.repeat(20), body: 'loop(x): iteration 2 BUILD\n\nbuild pass, test pass\n' },
  ]
  it.each([
    ['test', checkpoints, true, 'c2'.repeat(20), 'since iteration 2'],
    ['lint', checkpoints, true, `${'c1'.repeat(20)}~1`, 'since the loop started (when `lint` passed)'],
    ['lint', checkpoints, false, `${'c1'.repeat(20)}~1`, 'since the loop started (`lint` was failing then too)'],
    ['test', [], null, `${'c1'.repeat(20)}~1`, 'since the loop started (before its first work)'],
  ] as const)('%s', (check, list, baseline, ref, since) => {
    const base = changesBase(check, list, 'c1'.repeat(20), baseline)
    expect(base.ref).toBe(ref)
    expect(base.since.startsWith(since)).toBe(true)
  })

  it('no checkpoint yet: the uncommitted changes', () => {
    expect(changesBase('test', [], null, true).ref).toBeNull()
  })

  it.each([
    ['build pass, test pass', 'test', true],
    ['build pass, test fail', 'test', false],
    ['unit-test pass', 'test', false],
    ['a.b pass', 'a.b', true],
  ])('passedIn(%s, %s) → %s', (body, check, want) => {
    expect(passedIn(body, check)).toBe(want)
  })

  it('diffs source files only, not the loop folder', () => {
    expect(diffablePaths(['src/a.ts', '.loop/x/state.json', 'loopdir/a.ts', 'package-lock.json'], ['loopdir'])).toEqual(
      ['src/a.ts'],
    )
  })
})
