// The report's annotations (chosen from the failing checks' locations) and its text helpers: Markdown
// escaping, code fences and trimmed output.
import { describe, expect, it } from 'vitest'
import {
  annotationPath,
  codeBlock,
  inlineText,
  locationsOf,
  markdownText,
  selectAnnotations,
  trimOutput,
} from '../../../src/domain/report/index.js'
import { check } from './report-fixtures.js'

describe('annotations', () => {
  it('selects at most 10, removes duplicates and returns the overflow', () => {
    const failing = check({
      name: 'types',
      verdict: 'fail',
      pattern: 'type-error',
      locations: [
        ...Array.from({ length: 12 }, (_, i) => ({ file: `/work/repo/src/f${i}.ts`, line: i + 1, message: 'bad' })),
        { file: '/work/repo/src/f0.ts', line: 1, message: 'bad' },
      ],
    })
    const passing = check({ name: 'ok', locations: [{ file: 'x.ts', line: 1 }] })
    const { annotations, overflow } = selectAnnotations(locationsOf([passing, failing]), 10, '/work/repo/')
    expect(annotations).toHaveLength(10)
    expect(overflow).toHaveLength(2)
    expect(annotations[0]).toEqual({ file: 'src/f0.ts', line: 1, title: 'types: type-error', message: 'bad' })
    expect(overflow.map((a) => a.file)).toEqual(['src/f10.ts', 'src/f11.ts'])
  })

  it.each([
    {
      name: 'a terse message gets the line that names what failed',
      message: 'expected: 9',
      excerpt: '\nnot ok 1 - a cart total counts every unit\n  expected: 9\n  actual: 8',
      expected: 'not ok 1 - a cart total counts every unit\nexpected: 9',
    },
    {
      name: 'a message that says enough stays alone',
      message: "Type 'string' is not assignable to type 'number'.",
      excerpt: 'src/retry.ts(41,7): error TS2322',
      expected: "Type 'string' is not assignable to type 'number'.",
    },
    {
      name: 'no message: the check and the line',
      message: undefined,
      excerpt: '```\nSegmentation fault',
      expected: 'unit failed here: Segmentation fault',
    },
  ])('$name', ({ message, excerpt, expected }) => {
    const failing = check({
      name: 'unit',
      verdict: 'fail',
      excerpt,
      locations: [{ file: 'a.js', line: 3, ...(message ? { message } : {}) }],
    })
    expect(selectAnnotations(locationsOf([failing])).annotations[0]?.message).toBe(expected)
  })

  it.each([
    { file: './src/a.ts', root: '', expected: 'src/a.ts' },
    { file: 'C:\\w\\src\\a.ts', root: 'C:\\w', expected: 'src/a.ts' },
    { file: '/elsewhere/a.ts', root: '/work', expected: '/elsewhere/a.ts' },
  ])('makes $file relative to $root', ({ file, root, expected }) => {
    expect(annotationPath(file, root)).toBe(expected)
  })
})

describe('escaping and trimming', () => {
  it.each([
    { text: 'a | b', expected: 'a \\| b' },
    { text: 'line1\nline2', expected: 'line1 line2' },
    { text: '<img src=x>', expected: '&lt;img src=x&gt;' },
    { text: '[x](javascript:alert(1))', expected: '\\[x\\](javascript:alert(1))' },
    { text: 'cc @team', expected: 'cc @\u200bteam' },
  ])('inlineText($text)', ({ text, expected }) => {
    expect(inlineText(text)).toBe(expected)
  })

  it.each([
    // The text's own code spans stay code spans: no backslash shows before a backtick.
    { text: 'then `/loop resume` or `loop resume`', expected: 'then `/loop resume` or `loop resume`' },
    { text: 'Fix the cause on `loop/blocked`.', expected: 'Fix the cause on `loop/blocked`.' },
    { text: 'a_b `a_b` *c*', expected: 'a\\_b `a_b` \\*c\\*' },
    // A span is inert, so hostile text inside one stays as it is; outside one it is escaped.
    { text: '`<script>` <script> @x `@x`', expected: '`<script>` &lt;script&gt; @\u200bx `@x`' },
    // What cannot be a span of its own stays escaped: a lone backtick, a `|`, padded or empty spans.
    { text: 'a ` b', expected: 'a \\` b' },
    { text: '`a|b`', expected: '\\`a\\|b\\`' },
    { text: '` a `', expected: '\\` a \\`' },
    { text: '``', expected: '\\`\\`' },
  ])('markdownText($text)', ({ text, expected }) => {
    expect(markdownText(text)).toBe(expected)
  })

  it('picks a fence longer than any backtick run', () => {
    expect(codeBlock('a ````` b')).toBe('``````text\na ````` b\n``````')
  })

  it('keeps head and tail with a marker', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n')
    const trimmed = trimOutput(text, 300)
    expect(trimmed.length).toBeLessThan(400)
    expect(trimmed.startsWith('line 0\n')).toBe(true)
    expect(trimmed.endsWith('line 999')).toBe(true)
    expect(trimmed).toMatch(/… \d+ lines \(\d+ characters\) trimmed; the full output is in the audit trail …/)
  })
})
