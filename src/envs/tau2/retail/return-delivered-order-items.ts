/** `return_delivered_order_items`: requests the return of some items of a delivered order. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
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

/**
 * The refund goes to a gift card or to the original payment method ("Payment method should be the original payment
 * method"); the items must be in the order, duplicates counted ("Some item not found"). Sets status
 * "return requested", `return_items` sorted and `return_payment_method_id`.
 */
export const returnDeliveredOrderItems: ToolDefinition<RetailState> = {
  name: "return_delivered_order_items",
  kind: "write",
  description: "Return some items of a delivered order.\n\nThe order status will be changed to 'return requested'.\nThe agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.\nThe user will receive follow-up email for how and where to return the item.",
  parameters: {
    properties: {
      order_id: {
        description: "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.",
        title: "Order Id",
        type: "string",
      },
      item_ids: {
        description: "The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.",
        items: {
          type: "string",
        },
        title: "Item Ids",
        type: "array",
      },
      payment_method_id: {
        description: "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.\nThese can be looked up from the user or order details.",
        title: "Payment Method Id",
        type: "string",
      },
    },
    required: ["order_id", "item_ids", "payment_method_id"],
    title: "parameters",
    type: "object",
  },
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
    const available = order.items.map((item) => item.item_id);
    if (firstMissingItem(itemIds, available) !== undefined) throw new ToolError("Some item not found");

    const edited = state.edit("orders", orderId);
    edited.status = "return requested";
    edited.return_items = sortedByCodePoint(itemIds);
    edited.return_payment_method_id = paymentMethodId;
    return orderResult(state, orderId, edited);
  },
};
