/** Gift card balance changes of the payment-moving retail tools, rounded as τ² rounds them. */
import { pythonRound } from "../../core/python-round.js";
import type { RetailGiftCard } from "./database.js";
import type { RetailState } from "./lookups.js";

/**
 * Adds `amount` (negative for a charge) to a user's gift card balance with Python's `round(…, 2)`; the payment method
 * lookup succeeded before.
 */
export function addToGiftCardBalance(state: RetailState, userId: string, paymentMethodId: string, amount: number): void {
  const giftCard = state.edit("users", userId).payment_methods[paymentMethodId] as RetailGiftCard;
  giftCard.balance = pythonRound(giftCard.balance + amount, 2);
}
