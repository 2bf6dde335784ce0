import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

const PRICE = `// Prices in cents.
export function applyDiscount(total, percent) {
  if (percent < 0 || percent > 100) throw new RangeError('percent out of range')
  return total - Math.round((total * percent) / 1000)
}

export function priceWithTax(net, rate) {
  return Math.round(net * (1 + rate))
}
`
const TEST = `import { test } from 'node:test'
import assert from 'node:assert/strict'
import { applyDiscount } from '../src/price.js'

test('applyDiscount takes ten percent off', () => {
  assert.equal(applyDiscount(1000, 10), 900)
})
`

describe('the context each attempt hands the work command', () => {
  it('names the source file under test, shows its definition, and gives attempt 2 more than attempt 1', async () => {
    const repo = tempRepo({
      files: {
        'package.json': '{"type":"module","private":true}\n',
        'src/price.js': PRICE,
        'test/price.test.js': TEST,
      },
    })
    const kept = mkdtempSync(join(tmpdir(), 'loop-prompts-'))
    // The agent only keeps what it was told; it fixes the bug on its third call.
    const work = [
      `cp "$LOOP_PROMPT_FILE" "${kept}/prompt-$LOOP_ITERATION.md"`,
      `cp "$LOOP_CONTEXT_FILE" "${kept}/context-$LOOP_ITERATION.json"`,
      `if [ "$LOOP_ITERATION" -ge 3 ]; then sed -i 's#/ 1000#/ 100#' src/price.js; fi`,
    ].join(' && ')
    const run = await cli(
      repo,
      'run',
      '--work',
      work,
      '--verify',
      'node --test test/',
      '--max-iterations',
      '4',
      '--loop-id',
      'price',
    )
    const prompt = (n: number) => readFileSync(join(kept, `prompt-${n}.md`), 'utf8')
    const context = (n: number) => JSON.parse(readFileSync(join(kept, `context-${n}.json`), 'utf8'))
    const one = prompt(1)
    const two = prompt(2)
    // The source file with the bug is named and its function's definition shown from the first attempt.
    expect(one).toContain('src/price.js')
    expect(one).toContain('definition of `applyDiscount`')
    expect(one).toContain('return total - Math.round((total * percent) / 1000)')
    // Attempt 2 hands over more than attempt 1, and says what it added.
    expect(two.length).toBeGreaterThan(one.length)
    expect(two).toContain('## Added for attempt 2')
    expect(two).toContain('imported by the failing test test/price.test.js')
    expect(two).toMatch(/## What changed since the loop started/)
    expect(context(2).attempt).toBe(2)
    expect(context(2).contextAdded.length).toBeGreaterThan(0)
    expect(context(1).contextAdded).toEqual([])
    // The same lines are never shown twice in one prompt.
    for (const n of [1, 2]) {
      const seen = new Set<string>()
      for (const snippet of context(n).codeContext as { file: string; startLine: number; endLine: number }[]) {
        for (let line = snippet.startLine; line <= snippet.endLine; line++) {
          expect(seen.has(`${snippet.file}:${line}`)).toBe(false)
          seen.add(`${snippet.file}:${line}`)
        }
      }
    }
    expect(run.stdout).toContain('COMPLETE')
  }, 120_000)
})
