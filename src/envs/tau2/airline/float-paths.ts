/**
 * Which numbers in airline tool output are Python floats. In data_model.py only `GiftCard.amount` and
 * `Certificate.amount` (a user's `payment_methods[id].amount`) are `float`; `Payment.amount`, prices, seat counts and
 * baggage counts are `int`. The test matches paths by suffix, so it holds for a user (`get_user_details`) and for a
 * whole database dump (`users.<id>.payment_methods.<id>.amount`).
 */
import type { FloatPathPredicate } from "../../core/python-json.js";

/** True for `…payment_methods.<id>.amount`. */
export const isAirlineFloat: FloatPathPredicate = (path) =>
  path.length >= 3 && path[path.length - 1] === "amount" && path[path.length - 3] === "payment_methods";
