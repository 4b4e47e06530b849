/** `modify_pending_order_payment`: moves a pending order's single payment to another payment method. */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import type { RetailPayment } from "./database.js";
import {
  editGiftCard,
  getOrder,
  getPaymentMethod,
  isGiftCard,
  isPendingOrder,
  type RetailState,
} from "./lookups.js";
import { orderResult } from "./order-result.js";
import { pythonRound } from "../../core/python-round.js";

/**
 * Appends a payment with the new method, then a refund to the old one, charges a new gift card and credits an old
 * gift card (each balance rounded with Python's `round(…, 2)`), in τ²'s order: the old method is looked up only after
 * the changes, so its absence leaves them in place.
 */
export const modifyPendingOrderPayment: ToolDefinition<RetailState> = {
  name: "modify_pending_order_payment",
  kind: "write",
  description: "Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: {
    properties: {
      order_id: {
        description: "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.",
        title: "Order Id",
        type: "string",
      },
      payment_method_id: {
        description: "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
        title: "Payment Method Id",
        type: "string",
      },
    },
    required: ["order_id", "payment_method_id"],
    title: "parameters",
    type: "object",
  },
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
    if (isGiftCard(method)) {
      const giftCard = editGiftCard(state, edited.user_id, paymentMethodId);
      giftCard.balance = pythonRound(giftCard.balance - amount, 2);
    }
    const oldMethod = getPaymentMethod(state, edited.user_id, oldPaymentMethodId);
    if (isGiftCard(oldMethod)) {
      const giftCard = editGiftCard(state, edited.user_id, oldPaymentMethodId);
      giftCard.balance = pythonRound(giftCard.balance + amount, 2);
    }
    return orderResult(state, orderId, edited);
  },
};
