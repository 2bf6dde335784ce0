// @ts-check
import { roundCents } from './money.js'
import { discountFor } from './discount.js'

/**
 * @typedef {{ name: string, price: number, quantity: number }} Line
 */

/**
 * The total of a cart, after the discount for its size.
 * @param {Line[]} lines
 * @returns {number}
 */
export function cartTotal(lines) {
  let subtotal = 0
  for (const line of lines) {
    subtotal += line.price
  }
  return roundCents(subtotal * (1 - discountFor(lines.length)))
}
