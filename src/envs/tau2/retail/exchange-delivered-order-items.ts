/** `exchange_delivered_order_items`: requests an exchange of delivered items for other variants of their products. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringListProperty, stringProperty } from "../tool-parameters.js";
import { itemSwap } from "./item-swap.js";
import { firstMissingItem, getOrder, getPaymentMethod, isGiftCard, sortedByCodePoint, type RetailState } from "./lookups.js";
import { orderResult, setPriceDifferenceIsInteger } from "./order-result.js";
import { orderIdProperty } from "./record-id-properties.js";
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
  parameters: parametersSchema({
    order_id: orderIdProperty,
    item_ids: stringListProperty(
      "The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.",
      "Item Ids",
    ),
    new_item_ids: stringListProperty(
      "The item ids to be exchanged for, each such as '1008292230'.\nThere could be duplicate items in the list. " +
        "Each new item id should match the item id\nin the same position and be of the same product.",
      "New Item Ids",
    ),
    payment_method_id: stringProperty(
      "The payment method id to pay or receive refund for the item price difference,\nsuch as 'gift_card_0000000' " +
        "or 'credit_card_0000000'. These can be looked up\nfrom the user or order details.",
      "Payment Method Id",
    ),
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    const itemIds = args.item_ids as string[];
    const newItemIds = args.new_item_ids as string[];
    const paymentMethodId = args.payment_method_id as string;
    const order = getOrder(state, orderId);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be exchanged");
    const missing = firstMissingItem(itemIds, order);
    if (missing !== undefined) throw new ToolError(`Number of ${missing} not found.`);
    if (itemIds.length !== newItemIds.length) throw new ToolError("The number of items to be exchanged should match.");

    // τ² starts from the int 0: with no items the difference stays a Python int.
    let difference = 0;
    itemIds.forEach((itemId, index) => {
      const { item, variant } = itemSwap(state, order, itemId, newItemIds[index] as string);
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
