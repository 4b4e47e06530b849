/** Unit tests of `exchange_delivered_order_items` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

const exchange = (order_id: string, item_ids: string[], new_item_ids: string[], payment_method_id = "gift_card_1") => ({
  order_id,
  item_ids,
  new_item_ids,
  payment_method_id,
});

test("requests an exchange: sorted lists, price difference rounded half to even, nothing paid", () => {
  const state = edgeBase().createState();
  const order = observeJson(
    state,
    "exchange_delivered_order_items",
    exchange("#W2", ["3000000002", "2000000001"], ["3000000001", "5000000001"], "credit_card_1"),
  );
  assert.equal(order.status, "exchange requested");
  assert.deepEqual(order.exchange_items, ["2000000001", "3000000002"]);
  assert.deepEqual(order.exchange_new_items, ["3000000001", "5000000001"]);
  assert.equal(order.exchange_payment_method_id, "credit_card_1");
  // (100.0 - 50.0) + (10.625 - 10.5) = 50.125 → round(…, 2) = 50.12 (a binary tie, rounded to even)
  assert.equal(order.exchange_price_difference, 50.12);
  assert.equal((order.payment_history as unknown[]).length, 1);
  assert.deepEqual(state.get("users", "alice_1")?.payment_methods.gift_card_1, {
    source: "gift_card",
    id: "gift_card_1",
    balance: 100,
  });
});

test("an exchange of no items stores τ²'s int 0, printed without .0", () => {
  const state = edgeBase().createState();
  const text = observe(state, "exchange_delivered_order_items", exchange("#W2", [], []));
  assert.match(text, /"exchange_price_difference": 0, "return_items"/);
  assert.match(observe(state, "get_order_details", { order_id: "#W2" }), /"exchange_price_difference": 0,/);
  const other = edgeBase().createState();
  const same = observe(other, "exchange_delivered_order_items", exchange("#W2", ["2000000001"], ["2000000001"]));
  assert.match(same, /"exchange_price_difference": 0\.0,/);
});

test("refuses with τ²'s messages", () => {
  const state = edgeBase().createState();
  const run = (...args: Parameters<typeof exchange>) =>
    observe(state, "exchange_delivered_order_items", exchange(...args));
  assert.equal(run("#W404", [], []), "Error: Order not found");
  assert.equal(run("#W1", ["2000000001"], ["2000000002"]), "Error: Non-delivered order cannot be exchanged");
  assert.equal(
    run("#W2", ["2000000001", "2000000001", "2000000001"], ["2000000002", "2000000002", "2000000002"]),
    "Error: Number of 2000000001 not found.",
  );
  assert.equal(run("#W2", ["2000000001"], []), "Error: The number of items to be exchanged should match.");
  assert.equal(run("#W2", ["2000000001"], ["3000000001"]), "Error: Variant not found");
  assert.equal(run("#W2", ["2000000001"], ["2000000003"]), "Error: New item 2000000003 not found or available");
  assert.equal(run("#W10", ["7000000001"], ["7000000002"], "credit_card_1"), "Error: Product not found");
  assert.equal(run("#W2", ["2000000001"], ["2000000002"], "gift_card_2"), "Error: Payment method not found");
  assert.equal(
    run("#W11", ["2000000001"], ["2000000002"], "gift_card_2"),
    "Error: Insufficient gift card balance to pay for the price difference",
  );
  assert.equal(state.get("orders", "#W2")?.status, "delivered");
});
