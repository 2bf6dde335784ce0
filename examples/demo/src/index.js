// @ts-check
export { cartTotal } from './cart.js'
export { formatPrice, roundCents } from './money.js'
export {   discountFor } from "./discounts.js";
