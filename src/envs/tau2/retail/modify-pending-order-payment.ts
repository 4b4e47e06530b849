/** `modify_pending_order_payment`: moves a pending order's single payment to another payment method. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema } from "../tool-parameters.js";
import type { RetailPayment } from "./database.js";
import { addToGiftCardBalance } from "./gift-card-balance.js";
import { getOrder, getPaymentMethod, isGiftCard, isPendingOrder, type RetailState } from "./lookups.js";
import { orderResult } from "./order-result.js";
import { orderIdProperty, paymentMethodIdProperty } from "./record-id-properties.js";

/**
 * Appends a payment with the new method, then a refund to the old one, charges a new gift card and credits an old
 * gift card (each balance rounded with Python's `round(…, 2)`), in τ²'s order: the old method is looked up only after
 * the changes, so its absence leaves them in place.
 */
export const modifyPendingOrderPayment: ToolDefinition<RetailState> = {
  name: "modify_pending_order_payment",
  kind: "write",
  description: "Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: parametersSchema({
    order_id: orderIdProperty,
    payment_method_id: paymentMethodIdProperty,
  }),
  run(state, args) {
    const orderId = args.order_id as string;
    const paymentMethodId = args.payment_method_id as string;
    const order = getOrder(state, orderId);
    if (!isPendingOrder(order)) throw new ToolError("Non-pending order cannot be modified");
    const method = getPaymentMethod(state, order.user_id, paymentMethodId);
    const first = order.payment_history[0];
    if (order.payment_history.length !== 1 || first === undefined || first.transaction_type !== "payment") {
      throw new ToolError("There should be exactly one payment for a pending order");
    }
    if (first.payment_method_id === paymentMethodId) {
      throw new ToolError("The new payment method should be different from the current one");
    }
    const amount = first.amount;
    if (isGiftCard(method) && method.balance < amount) {
      throw new ToolError("Insufficient gift card balance to pay for the order");
    }

    const edited = state.edit("orders", orderId);
    const oldPaymentMethodId = first.payment_method_id;
    const entries: RetailPayment[] = [
      { transaction_type: "payment", amount, payment_method_id: paymentMethodId },
      { transaction_type: "refund", amount, payment_method_id: oldPaymentMethodId },
    ];
    edited.payment_history.push(...entries);
    if (isGiftCard(method)) addToGiftCardBalance(state, edited.user_id, paymentMethodId, -amount);
    const oldMethod = getPaymentMethod(state, edited.user_id, oldPaymentMethodId);
    if (isGiftCard(oldMethod)) addToGiftCardBalance(state, edited.user_id, oldPaymentMethodId, amount);
    return orderResult(state, orderId, edited);
  },
};
