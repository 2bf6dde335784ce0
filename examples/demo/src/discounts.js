// @ts-check

/**
 * The discount rate for a cart with this many lines: 10% from 5 lines on.
 * @param {number} lineCount
 * @returns {number}
 */
export function discountFor(lineCount) {
  if (lineCount == 0) return 0
  return lineCount >= 5 ? 0.1 : 0
}
