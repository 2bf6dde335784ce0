// @ts-check

/**
 * Rounds an amount of money to whole cents.
 * @param {number} amount
 * @returns {number}
 */
export function roundCents(amount) {
  return Math.round(amount * 100) / 100
}

/**
 * Formats cents as a price label such as "$12.50".
 * @param {number} amount
 * @returns {string}
 */
export function formatPrice(amount) {
  /** @type {number} */
  const fixed = roundCents(amount).toFixed(2)
  return `$${fixed}`
}
