/** Unit tests of `modify_pending_order_payment` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

test("appends the new payment then the refund, charging and crediting gift cards", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "modify_pending_order_payment", { order_id: "#W1", payment_method_id: "credit_card_1" });
  assert.equal(order.status, "pending");
  assert.deepEqual(order.payment_history, [
    { transaction_type: "payment", amount: 110.5, payment_method_id: "gift_card_1" },
    { transaction_type: "payment", amount: 110.5, payment_method_id: "credit_card_1" },
    { transaction_type: "refund", amount: 110.5, payment_method_id: "gift_card_1" },
  ]);
  assert.match(observe(state, "get_user_details", { user_id: "alice_1" }), /"balance": 210\.5/);
  const other = edgeBase().createState();
  observe(other, "modify_pending_order_payment", { order_id: "#W7", payment_method_id: "gift_card_1" });
  assert.match(observe(other, "get_user_details", { user_id: "alice_1" }), /"balance": 89\.5/);
});

test("refuses with τ²'s messages", () => {
  const state = edgeBase().createState();
  const run = (order_id: string, payment_method_id: string) =>
    observe(state, "modify_pending_order_payment", { order_id, payment_method_id });
  assert.equal(run("#W404", "paypal_1"), "Error: Order not found");
  assert.equal(run("#W2", "paypal_1"), "Error: Non-pending order cannot be modified");
  assert.equal(run("#W7", "paypal_404"), "Error: Payment method not found");
  assert.equal(run("#W6", "credit_card_1"), "Error: User not found");
  assert.equal(run("#W3", "paypal_1"), "Error: There should be exactly one payment for a pending order");
  assert.equal(run("#W7", "paypal_1"), "Error: The new payment method should be different from the current one");
  assert.equal(run("#W12", "gift_card_2"), "Error: Insufficient gift card balance to pay for the order");
});

test("an unknown original payment method fails after the entries are appended, as in τ²", () => {
  const state = edgeBase().createState();
  assert.equal(
    observe(state, "modify_pending_order_payment", { order_id: "#W9", payment_method_id: "credit_card_1" }),
    "Error: Payment method not found",
  );
  assert.equal(state.get("orders", "#W9")?.payment_history.length, 3);
});
