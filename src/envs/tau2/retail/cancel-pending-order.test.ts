/** Unit tests of `cancel_pending_order` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

test("cancels a pending order, refunds every payment and credits gift cards at once", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "cancel_pending_order", { order_id: "#W1", reason: "ordered by mistake" });
  assert.equal(order.status, "cancelled");
  assert.equal(order.cancel_reason, "ordered by mistake");
  assert.deepEqual(order.payment_history, [
    { transaction_type: "payment", amount: 110.5, payment_method_id: "gift_card_1" },
    { transaction_type: "refund", amount: 110.5, payment_method_id: "gift_card_1" },
  ]);
  const giftCard = state.get("users", "alice_1")?.payment_methods.gift_card_1;
  assert.deepEqual(giftCard, { source: "gift_card", id: "gift_card_1", balance: 210.5 });
  assert.match(observe(state, "get_user_details", { user_id: "alice_1" }), /"balance": 210\.5/);
});

test("dumps every Order field, unset ones as null, in pydantic's order", () => {
  const state = edgeBase().createState();
  const text = observe(state, "cancel_pending_order", { order_id: "#W3", reason: "no longer needed" });
  const order = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(order), [
    "order_id",
    "user_id",
    "address",
    "items",
    "status",
    "fulfillments",
    "payment_history",
    "cancel_reason",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
    "return_items",
    "return_payment_method_id",
  ]);
  assert.match(text, /"exchange_items": null/);
  assert.match(text, /"amount": 5\.25, "payment_method_id": "credit_card_1"\}, \{"transaction_type": "refund"/);
});

test("refuses with τ²'s messages", () => {
  const state = edgeBase().createState();
  const cancel = (order_id: string, reason = "no longer needed") =>
    observe(state, "cancel_pending_order", { order_id, reason });
  assert.equal(cancel("#W404"), "Error: Order not found");
  assert.equal(cancel("#W2"), "Error: Non-pending order cannot be cancelled");
  assert.equal(cancel("#W7"), "Error: Non-pending order cannot be cancelled");
  assert.equal(cancel("#W1", "changed my mind"), "Error: Invalid reason");
  assert.equal(cancel("#W6"), "Error: User not found");
});

test("a missing payment method part-way keeps the gift card credits made before it", () => {
  const state = edgeBase().createState();
  assert.equal(
    observe(state, "cancel_pending_order", { order_id: "#W4", reason: "no longer needed" }),
    "Error: Payment method not found",
  );
  assert.equal(state.get("orders", "#W4")?.status, "pending");
  const giftCard = state.get("users", "carol_3")?.payment_methods.gift_card_9;
  assert.deepEqual(giftCard, { source: "gift_card", id: "gift_card_9", balance: 10.1 });
});
