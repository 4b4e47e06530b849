/** `exchange_delivered_order_items`: requests an exchange of delivered items for other variants of their products. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import {
  firstMissingItem,
  getOrder,
  getPaymentMethod,
  getVariant,
  isGiftCard,
  sortedByCodePoint,
  type RetailState,
} from "./lookups.js";
import { orderResult, setPriceDifferenceIsInteger } from "./order-result.js";
import { pythonRound } from "../../core/python-round.js";

/**
 * Checks in τ²'s order (delivered status, item counts, equal lengths, each new variant exists and is available, the
 * payment method exists and a gift card covers the difference), then sets status "exchange requested", the sorted
 * item lists, the payment method and the price difference rounded with Python's `round(…, 2)`. No payment is made.
 */
export const exchangeDeliveredOrderItems: ToolDefinition<RetailState> = {
  name: "exchange_delivered_order_items",
  kind: "write",
  description: "Exchange items in a delivered order to new items of the same product type.\n\nFor a delivered order, return or exchange can be only done once by the agent.\nThe agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: {
    properties: {
      order_id: {
        description: "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.",
        title: "Order Id",
        type: "string",
      },
      item_ids: {
        description: "The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.",
        items: {
          type: "string",
        },
        title: "Item Ids",
        type: "array",
      },
      new_item_ids: {
        description: "The item ids to be exchanged for, each such as '1008292230'.\nThere could be duplicate items in the list. Each new item id should match the item id\nin the same position and be of the same product.",
        items: {
          type: "string",
        },
        title: "New Item Ids",
        type: "array",
      },
      payment_method_id: {
        description: "The payment method id to pay or receive refund for the item price difference,\nsuch as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up\nfrom the user or order details.",
        title: "Payment Method Id",
        type: "string",
      },
    },
    required: ["order_id", "item_ids", "new_item_ids", "payment_method_id"],
    title: "parameters",
    type: "object",
  },
  run(state, args) {
    const orderId = args.order_id as string;
    const itemIds = args.item_ids as string[];
    const newItemIds = args.new_item_ids as string[];
    const paymentMethodId = args.payment_method_id as string;
    const order = getOrder(state, orderId);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be exchanged");
    const missing = firstMissingItem(
      itemIds,
      order.items.map((item) => item.item_id),
    );
    if (missing !== undefined) throw new ToolError(`Number of ${missing} not found.`);
    if (itemIds.length !== newItemIds.length) throw new ToolError("The number of items to be exchanged should match.");

    // τ² starts from the int 0: with no items the difference stays a Python int.
    let difference = 0;
    itemIds.forEach((itemId, index) => {
      const newItemId = newItemIds[index] as string;
      const item = order.items.find((each) => each.item_id === itemId);
      if (item === undefined) throw new ToolError(`Item ${itemId} not found`);
      const variant = getVariant(state, item.product_id, newItemId);
      if (!variant.available) throw new ToolError(`New item ${newItemId} not found or available`);
      difference += variant.price - item.price;
    });
    difference = pythonRound(difference, 2);

    const method = getPaymentMethod(state, order.user_id, paymentMethodId);
    if (isGiftCard(method) && method.balance < difference) {
      throw new ToolError("Insufficient gift card balance to pay for the price difference");
    }

    const edited = state.edit("orders", orderId);
    edited.status = "exchange requested";
    edited.exchange_items = sortedByCodePoint(itemIds);
    edited.exchange_new_items = sortedByCodePoint(newItemIds);
    edited.exchange_payment_method_id = paymentMethodId;
    edited.exchange_price_difference = difference;
    setPriceDifferenceIsInteger(state, orderId, itemIds.length === 0);
    return orderResult(state, orderId, edited);
  },
};
