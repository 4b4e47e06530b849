/**
 * An order as a tool result. τ² assigns `exchange_price_difference = round(diff_price, 2)` without validation, so an
 * exchange of no items stores the Python int `0` (dumped `0`, not `0.0`). JSON numbers cannot carry that, so such
 * orders are remembered per state and their results serialised here.
 */
import { pythonJsonDumps } from "../../core/python-json.js";
import type { RetailOrder } from "./database.js";
import { isRetailFloat } from "./float-paths.js";
import type { RetailState } from "./lookups.js";
import { dumpOrder } from "./model-dump.js";

const integerPriceDifferences = new WeakMap<RetailState, Set<string>>();

/** Records whether the order's `exchange_price_difference` is a Python int (true) or float (false). */
export function setPriceDifferenceIsInteger(state: RetailState, orderId: string, isInteger: boolean): void {
  let orderIds = integerPriceDifferences.get(state);
  if (orderIds === undefined) {
    if (!isInteger) return;
    orderIds = new Set();
    integerPriceDifferences.set(state, orderIds);
  }
  if (isInteger) orderIds.add(orderId);
  else orderIds.delete(orderId);
}

/** The `model_dump()` of the order stored under `orderId`, or its exact JSON text when it holds the int difference. */
export function orderResult(state: RetailState, orderId: string, order: Readonly<RetailOrder>): unknown {
  const dump = dumpOrder(order);
  if (integerPriceDifferences.get(state)?.has(orderId) !== true) return dump;
  return pythonJsonDumps(dump, (path) => path[0] !== "exchange_price_difference" && isRetailFloat(path));
}
