/** `return_delivered_order_items`: requests the return of some items of a delivered order. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringListProperty, stringProperty } from "../tool-parameters.js";
import {
  firstMissingItem,
  getOrder,
  getPaymentMethod,
  getUser,
  isGiftCard,
  sortedByCodePoint,
  type RetailState,
} from "./lookups.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty } from "./record-id-properties.js";

/**
 * The refund goes to a gift card or to the original payment method ("Payment method should be the original payment
 * method"); the items must be in the order, duplicates counted ("Some item not found"). Sets status
 * "return requested", `return_items` sorted and `return_payment_method_id`.
 */
export const returnDeliveredOrderItems: ToolDefinition<RetailState> = {
  name: "return_delivered_order_items",
  kind: "write",
  description: "Return some items of a delivered order.\n\nThe order status will be changed to 'return requested'.\nThe agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.\nThe user will receive follow-up email for how and where to return the item.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
    item_ids: stringListProperty(
      "The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.",
      "Item Ids",
    ),
    payment_method_id: stringProperty(
      "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' " +
        "or 'credit_card_0000000'.\nThese can be looked up from the user or order details.",
      "Payment Method Id",
    ),
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    const itemIds = args.item_ids as string[];
    const paymentMethodId = args.payment_method_id as string;
    const order = getOrder(state, orderId);
    if (order.status !== "delivered") throw new ToolError("Non-delivered order cannot be returned");
    const user = getUser(state, order.user_id);
    const method = getPaymentMethod(state, user.user_id, paymentMethodId);
    if (!isGiftCard(method)) {
      const original = order.payment_history[0];
      // Python's IndexError on an order without payments.
      if (original === undefined) throw new ToolError("list index out of range");
      if (paymentMethodId !== original.payment_method_id) {
        throw new ToolError("Payment method should be the original payment method");
      }
    }
    if (firstMissingItem(itemIds, order) !== undefined) throw new ToolError("Some item not found");

    const edited = state.edit("orders", orderId);
    edited.status = "return requested";
    edited.return_items = sortedByCodePoint(itemIds);
    edited.return_payment_method_id = paymentMethodId;
    return orderResult(state, orderId, edited);
  },
};
