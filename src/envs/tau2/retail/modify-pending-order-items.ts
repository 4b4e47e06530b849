/** `modify_pending_order_items`: swaps items of a pending order for other variants and settles the difference. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringListProperty } from "../tool-parameters.js";
import type { RetailVariant } from "./database.js";
import { addToGiftCardBalance } from "./gift-card-balance.js";
import { itemSwap } from "./item-swap.js";
import { firstMissingItem, getOrder, getPaymentMethod, isGiftCard, type RetailState } from "./lookups.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty, paymentMethodIdProperty } from "./record-id-properties.js";

/**
 * Only status exactly "pending". Appends one payment (difference > 0) or refund (otherwise) of the unrounded absolute
 * difference, updates a gift card balance with Python's `round(…, 2)`, and sets status "pending (item modified)".
 * τ² quirk kept: every modified item gets its own new item id but the price and options of the *last* new variant
 * (the loop variable left over from the checking loop).
 */
export const modifyPendingOrderItems: ToolDefinition<RetailState> = {
  name: "modify_pending_order_items",
  kind: "write",
  description: "Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
    item_ids: stringListProperty(
      "The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.",
      "Item Ids",
    ),
    new_item_ids: stringListProperty(
      "The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. " +
        "Each new item id should match the item id in the same position and be of the same product.",
      "New Item Ids",
    ),
    payment_method_id: paymentMethodIdProperty,
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    const itemIds = args.item_ids as string[];
    const newItemIds = args.new_item_ids as string[];
    const paymentMethodId = args.payment_method_id as string;
    const order = getOrder(state, orderId);
    if (order.status !== "pending") throw new ToolError("Non-pending order cannot be modified");
    const missing = firstMissingItem(itemIds, order);
    if (missing !== undefined) throw new ToolError(`${missing} not found`);
    if (itemIds.length !== newItemIds.length) throw new ToolError("The number of items to be exchanged should match");

    let difference = 0;
    let lastVariant: Readonly<RetailVariant> | undefined;
    itemIds.forEach((itemId, index) => {
      const newItemId = newItemIds[index] as string;
      if (itemId === newItemId) throw new ToolError("The new item id should be different from the old item id");
      const { item, variant } = itemSwap(state, order, itemId, newItemId);
      difference += variant.price - item.price;
      lastVariant = variant;
    });

    const method = getPaymentMethod(state, order.user_id, paymentMethodId);
    if (isGiftCard(method) && method.balance < difference) {
      throw new ToolError("Insufficient gift card balance to pay for the new item");
    }

    const edited = state.edit("orders", orderId);
    edited.payment_history.push({
      transaction_type: difference > 0 ? "payment" : "refund",
      amount: Math.abs(difference),
      payment_method_id: paymentMethodId,
    });
    if (isGiftCard(method)) addToGiftCardBalance(state, edited.user_id, paymentMethodId, -difference);
    itemIds.forEach((itemId, index) => {
      const item = edited.items.find((each) => each.item_id === itemId);
      if (item === undefined) throw new ToolError(`Item ${itemId} not found`);
      const variant = lastVariant as Readonly<RetailVariant>;
      item.item_id = newItemIds[index] as string;
      item.price = variant.price;
      item.options = { ...variant.options };
    });
    edited.status = "pending (item modified)";
    return orderResult(state, orderId, edited);
  },
};
