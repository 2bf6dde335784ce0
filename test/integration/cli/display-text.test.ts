// What the loop writes for people and agents carries no terminal escapes nor NUL bytes; the raw log keeps them.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, tempRepo } from './helpers.js'

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

describe('the audit trail is text', () => {
  it('strips colour escapes and NUL bytes from excerpts and iteration records, and keeps them in the raw log', async () => {
    const repo = tempRepo()
    const verify = String.raw`printf '\033[31mFAIL\033[0m test/a.test.js > adds\nAssertionError: expected 1\000 to equal 2\n'; exit 1`
    const run = await cli(
      repo,
      'run',
      '--work',
      'true',
      '--verify',
      verify,
      '--max-iterations',
      '1',
      '--loop-id',
      'ansi',
    )
    expect(run.code).toBe(5)
    const loopDir = join(repo, '.loop', 'ansi')
    const files = filesUnder(loopDir)
    const raw = files.filter((file) => file.endsWith('.log'))
    expect(raw.some((file) => readFileSync(file, 'utf8').includes('\u001b[31m'))).toBe(true)
    for (const file of files.filter((f) => /\.(md|json|jsonl)$/.test(f))) {
      const text = readFileSync(file, 'utf8')
      for (const unwanted of ['\u001b', '\u0000', '\\u001b', '\\u0000']) expect(text, file).not.toContain(unwanted)
    }
    const state = readFileSync(join(loopDir, 'loop-state.json'), 'utf8')
    expect(state).toContain('FAIL test/a.test.js > adds')
  }, 60_000)
})
