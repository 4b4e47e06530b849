/** Unit tests of `return_delivered_order_items` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

test("requests a return to the original payment method or a gift card, items sorted", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "return_delivered_order_items", {
    order_id: "#W2",
    item_ids: ["3000000002", "2000000001", "2000000001"],
    payment_method_id: "credit_card_1",
  });
  assert.equal(order.status, "return requested");
  assert.deepEqual(order.return_items, ["2000000001", "2000000001", "3000000002"]);
  assert.equal(order.return_payment_method_id, "credit_card_1");
  const other = edgeBase().createState();
  const toGiftCard = observeJson(other, "return_delivered_order_items", {
    order_id: "#W2",
    item_ids: ["2000000001"],
    payment_method_id: "gift_card_1",
  });
  assert.equal(toGiftCard.return_payment_method_id, "gift_card_1");
});

test("refuses with τ²'s messages", () => {
  const state = edgeBase().createState();
  const run = (order_id: string, item_ids: string[], payment_method_id: string) =>
    observe(state, "return_delivered_order_items", { order_id, item_ids, payment_method_id });
  assert.equal(run("#W404", [], "paypal_1"), "Error: Order not found");
  assert.equal(run("#W1", [], "gift_card_1"), "Error: Non-delivered order cannot be returned");
  assert.equal(run("#W2", [], "paypal_404"), "Error: Payment method not found");
  assert.equal(run("#W2", ["2000000001"], "paypal_1"), "Error: Payment method should be the original payment method");
  assert.equal(run("#W2", ["3000000002", "3000000002"], "credit_card_1"), "Error: Some item not found");
  // τ² indexes payment_history[0] unguarded: an order without payments raises IndexError.
  assert.equal(run("#W5", ["2000000001"], "credit_card_3"), "Error: list index out of range");
});
