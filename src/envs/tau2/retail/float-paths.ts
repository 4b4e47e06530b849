/**
 * Which numbers in retail tool results are Python floats. Every retail tool returns a pydantic model or a string,
 * so `to_json_str` is plain `model_dump()` (its conversion of bare ints/floats inside non-model dicts to strings
 * never applies here). `data_model.py` declares no int field at all; the float fields are `Variant.price`,
 * `OrderItem.price`, `OrderPayment.amount`, `GiftCard.balance` and `Order.exchange_price_difference`.
 */
import type { FloatPathPredicate } from "../../core/python-json.js";

/** Whether `path` (inside a dumped Product, User or Order) holds a Python float. */
export const isRetailFloat: FloatPathPredicate = (path) => {
  if (path.length === 1) return path[0] === "exchange_price_difference";
  if (path.length !== 3) return false;
  const [field, , leaf] = path;
  return (
    (field === "variants" && leaf === "price") ||
    (field === "items" && leaf === "price") ||
    (field === "payment_history" && leaf === "amount") ||
    (field === "payment_methods" && leaf === "balance")
  );
};
