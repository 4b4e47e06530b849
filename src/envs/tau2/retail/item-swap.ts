/** The check of one (item, new item) pair that the exchange and modify-items tools make, with τ²'s messages. */
import { ToolError } from "../../core/tool-error.js";
import type { RetailOrder, RetailOrderItem, RetailVariant } from "./database.js";
import { getVariant, type RetailState } from "./lookups.js";

/** An order item and the variant of its product that is to replace it. */
export interface ItemSwap {
  item: Readonly<RetailOrderItem>;
  variant: Readonly<RetailVariant>;
}

/**
 * The order's first item `itemId` and its product's variant `newItemId`; `Item … not found`, `Product not found`,
 * `Variant not found` or, when the variant is unavailable, `New item … not found or available`.
 */
export function itemSwap(
  state: RetailState,
  order: Readonly<RetailOrder>,
  itemId: string,
  newItemId: string,
): ItemSwap {
  const item = order.items.find((each) => each.item_id === itemId);
  if (item === undefined) throw new ToolError(`Item ${itemId} not found`);
  const variant = getVariant(state, item.product_id, newItemId);
  if (!variant.available) throw new ToolError(`New item ${newItemId} not found or available`);
  return { item, variant };
}
