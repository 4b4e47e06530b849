/** Record lookups shared by the retail tools (τ²'s `_get_order`, `_get_user`, …) with τ²'s error messages. */
import type { DatabaseState } from "../../core/copy-on-write-database.js";
import { ToolError } from "../../core/tool-error.js";
import type {
  RetailGiftCard,
  RetailOrder,
  RetailPaymentMethod,
  RetailProduct,
  RetailTables,
  RetailUser,
  RetailVariant,
} from "./database.js";

/** One episode's retail database. */
export type RetailState = DatabaseState<RetailTables>;

/** The order, read-only; `Order not found` when absent. */
export function getOrder(state: RetailState, orderId: string): Readonly<RetailOrder> {
  const order = state.get("orders", orderId);
  if (order === undefined) throw new ToolError("Order not found");
  return order;
}

/** The user, read-only; `User not found` when absent. */
export function getUser(state: RetailState, userId: string): Readonly<RetailUser> {
  const user = state.get("users", userId);
  if (user === undefined) throw new ToolError("User not found");
  return user;
}

/** The product, read-only; `Product not found` when absent. */
export function getProduct(state: RetailState, productId: string): Readonly<RetailProduct> {
  const product = state.get("products", productId);
  if (product === undefined) throw new ToolError("Product not found");
  return product;
}

/** A variant of a product; `Product not found` / `Variant not found` when absent. */
export function getVariant(state: RetailState, productId: string, variantId: string): Readonly<RetailVariant> {
  const product = getProduct(state, productId);
  if (!Object.hasOwn(product.variants, variantId)) throw new ToolError("Variant not found");
  return product.variants[variantId] as RetailVariant;
}

/** A user's payment method; `User not found` / `Payment method not found` when absent. */
export function getPaymentMethod(
  state: RetailState,
  userId: string,
  paymentMethodId: string,
): Readonly<RetailPaymentMethod> {
  const user = getUser(state, userId);
  if (!Object.hasOwn(user.payment_methods, paymentMethodId)) throw new ToolError("Payment method not found");
  return user.payment_methods[paymentMethodId] as RetailPaymentMethod;
}

/** Whether a payment method is a gift card (τ²'s `isinstance(payment_method, GiftCard)`). */
export function isGiftCard(method: Readonly<RetailPaymentMethod>): method is RetailGiftCard {
  return method.source === "gift_card";
}

/**
 * The first id of `requested` that occurs more often there than among the order's items (τ²'s
 * `item_ids.count(x) > all_item_ids.count(x)` check, done in list order), or undefined.
 */
export function firstMissingItem(requested: readonly string[], order: Readonly<RetailOrder>): string | undefined {
  const available = order.items.map((item) => item.item_id);
  const count = (list: readonly string[], id: string) => list.reduce((total, each) => total + (each === id ? 1 : 0), 0);
  return requested.find((id) => count(requested, id) > count(available, id));
}

/** Python's `sorted()` on strings: by code point. */
export function sortedByCodePoint(values: readonly string[]): string[] {
  return [...values].sort((left, right) => comparePythonStrings(left, right));
}

/** Compares strings as Python does (code point order, unlike JavaScript's UTF-16 unit order). */
export function comparePythonStrings(left: string, right: string): number {
  const leftPoints = Array.from(left, (char) => char.codePointAt(0) as number);
  const rightPoints = Array.from(right, (char) => char.codePointAt(0) as number);
  const length = Math.min(leftPoints.length, rightPoints.length);
  for (let index = 0; index < length; index++) {
    const difference = (leftPoints[index] as number) - (rightPoints[index] as number);
    if (difference !== 0) return difference;
  }
  return leftPoints.length - rightPoints.length;
}

/** τ²'s loose `_is_pending_order`: the status contains "pending" (so "pending (item modified)" counts). */
export function isPendingOrder(order: Readonly<RetailOrder>): boolean {
  return order.status.includes("pending");
}
