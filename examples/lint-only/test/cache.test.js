// A flaky test, on purpose: it stands for a test that depends on timing or a shared resource. It fails
// on every other run of this project copy (its first run included) and passes on the next, counted in a
// file in the temporary folder keyed on the project's path, so a fresh copy starts failing again.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

const key = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 16)
const counter = join(tmpdir(), `loop-lint-only-flaky-${key}`)

test('the warm cache answers within its deadline', () => {
  const runs = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0
  writeFileSync(counter, String(runs + 1))
  assert.ok(runs % 2 === 1, `cache warm-up missed its deadline (run ${runs + 1})`)
})
