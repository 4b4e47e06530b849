/** `_payment_for_update`: charges a reservation change to a stored payment method (never a certificate). */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineState, Payment } from "./database.js";

/**
 * Checks the method, deducts the price from a gift card, and returns the payment to record (null when the price is 0;
 * a negative price is a refund, which raises a gift card's balance).
 */
export function paymentForUpdate(
  state: AirlineState,
  userId: string,
  paymentId: string,
  totalPrice: number,
): Payment | null {
  const user = state.get("users", userId);
  if (user === undefined || !Object.hasOwn(user.payment_methods, paymentId)) {
    throw new ToolError("Payment method not found");
  }
  const method = user.payment_methods[paymentId];
  if (method?.source === "certificate") throw new ToolError("Certificate cannot be used to update reservation");
  if (method?.source === "gift_card") {
    if (method.amount < totalPrice) throw new ToolError("Gift card balance is not enough");
    const giftCard = state.edit("users", userId).payment_methods[paymentId];
    if (giftCard?.source === "gift_card") giftCard.amount -= totalPrice;
  }
  return totalPrice !== 0 ? { payment_id: paymentId, amount: totalPrice } : null;
}
