import assert from 'node:assert/strict'
import { test } from 'node:test'
import { truncate } from '../src/truncate.js'

test('keeps a short slug', () => {
  assert.equal(truncate('a-b', 10), 'a-b')
})

test('cuts at a word boundary', () => {
  assert.equal(truncate('creme-brulee-a-recipe', 14), 'creme-brulee-a')
})
