/** `cancel_pending_order`: refunds every payment (gift cards at once) and marks a pending order cancelled. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import { CANCEL_REASONS, type RetailCancelReason, type RetailPayment } from "./database.js";
import { addToGiftCardBalance } from "./gift-card-balance.js";
import { getOrder, getPaymentMethod, getUser, isGiftCard, type RetailState } from "./lookups.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty } from "./record-id-properties.js";

/**
 * Only status exactly "pending" ("Non-pending order cannot be cancelled"), reason one of the two literals ("Invalid
 * reason"). Gift card balances are credited payment by payment, so a missing payment method part-way leaves earlier
 * credits in place, as in τ².
 */
export const cancelPendingOrder: ToolDefinition<RetailState> = {
  name: "cancel_pending_order",
  kind: "write",
  description: "Cancel a pending order. If the order is already processed or delivered,\n\nit cannot be cancelled. The agent needs to explain the cancellation detail\nand ask for explicit user confirmation (yes/no) to proceed. If the user confirms,\nthe order status will be changed to 'cancelled' and the payment will be refunded.\nThe refund will be added to the user's gift card balance immediately if the payment\nwas made using a gift card, otherwise the refund would take 5-7 business days to process.\nThe function returns the order details after the cancellation.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
    reason: stringProperty(
      "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.",
      "Reason",
    ),
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    const reason = args.reason as string;
    const order = getOrder(state, orderId);
    if (order.status !== "pending") throw new ToolError("Non-pending order cannot be cancelled");
    if (!(CANCEL_REASONS as readonly string[]).includes(reason)) throw new ToolError("Invalid reason");

    const refunds: RetailPayment[] = [];
    for (const payment of order.payment_history) {
      refunds.push({ transaction_type: "refund", amount: payment.amount, payment_method_id: payment.payment_method_id });
      const user = getUser(state, order.user_id);
      const method = getPaymentMethod(state, user.user_id, payment.payment_method_id);
      if (isGiftCard(method)) addToGiftCardBalance(state, user.user_id, payment.payment_method_id, payment.amount);
    }

    const edited = state.edit("orders", orderId);
    edited.status = "cancelled";
    edited.cancel_reason = reason as RetailCancelReason;
    edited.payment_history.push(...refunds);
    return orderResult(state, orderId, edited);
  },
};
