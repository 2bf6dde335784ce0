import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cartTotal, formatPrice } from '../src/index.js'

test('a cart total counts every unit of each line', () => {
  const total = cartTotal([
    { name: 'pen', price: 1.5, quantity: 4 },
    { name: 'pad', price: 3, quantity: 1 },
  ])
  assert.equal(total, 9)
})

test('five lines or more get ten percent off', () => {
  const lines = Array.from({ length: 5 }, (_, i) => ({
    name: `item-${i}`,
    price: 2,
    quantity: 1,
  }))
  assert.equal(cartTotal(lines), 9)
})

test('prices are labelled in dollars and cents', () => {
  assert.equal(formatPrice(12.5), '$12.50')
})
