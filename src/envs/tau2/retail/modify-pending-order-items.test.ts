/** Unit tests of `modify_pending_order_items` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

const modify = (order_id: string, item_ids: string[], new_item_ids: string[], payment_method_id = "gift_card_1") => ({
  order_id,
  item_ids,
  new_item_ids,
  payment_method_id,
});

test("swaps items, refunds the difference to a gift card, and keeps τ²'s last-variant quirk", () => {
  const state = edgeBase().createState();
  const order = observeJson(
    state,
    "modify_pending_order_items",
    modify("#W1", ["2000000001", "3000000001"], ["2000000002", "3000000002"]),
  );
  assert.equal(order.status, "pending (item modified)");
  // Both items get the last new variant's price and options (3000000002: 50.0, red).
  assert.deepEqual(
    (order.items as { item_id: string; price: number; options: object }[]).map((item) => [item.item_id, item.price, item.options]),
    [
      ["2000000002", 50, { color: "red" }],
      ["3000000002", 50, { color: "red" }],
    ],
  );
  // (12.25 - 10.5) + (50.0 - 100.0) = -48.25: a refund of 48.25.
  assert.deepEqual((order.payment_history as unknown[])[1], {
    transaction_type: "refund",
    amount: 48.25,
    payment_method_id: "gift_card_1",
  });
  const giftCard = state.get("users", "alice_1")?.payment_methods.gift_card_1;
  assert.deepEqual(giftCard, { source: "gift_card", id: "gift_card_1", balance: 148.25 });
});

test("a payment when the new items cost more; no items gives a refund of 0.0", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "modify_pending_order_items", modify("#W12", ["2000000001"], ["5000000001"], "gift_card_2"));
  assert.deepEqual((order.payment_history as unknown[])[1], {
    transaction_type: "payment",
    amount: 0.125,
    payment_method_id: "gift_card_2",
  });
  assert.deepEqual(state.get("users", "bob_2")?.payment_methods.gift_card_2, {
    source: "gift_card",
    id: "gift_card_2",
    balance: 0.88,
  });
  const empty = edgeBase().createState();
  assert.match(
    observe(empty, "modify_pending_order_items", modify("#W1", [], [])),
    /\{"transaction_type": "refund", "amount": 0\.0, "payment_method_id": "gift_card_1"\}\], "cancel_reason"/,
  );
});

test("the second pass finds items already modified, as τ²'s does", () => {
  const state = edgeBase().createState();
  const order = observeJson(
    state,
    "modify_pending_order_items",
    modify("#W13", ["2000000001", "2000000002"], ["2000000002", "2000000001"], "credit_card_1"),
  );
  assert.deepEqual(
    (order.items as { item_id: string }[]).map((item) => item.item_id),
    ["2000000001", "2000000002"],
  );
});

test("refuses with τ²'s messages", () => {
  const state = edgeBase().createState();
  const run = (...args: Parameters<typeof modify>) => observe(state, "modify_pending_order_items", modify(...args));
  assert.equal(run("#W404", [], []), "Error: Order not found");
  assert.equal(run("#W7", ["2000000001"], ["2000000002"]), "Error: Non-pending order cannot be modified");
  assert.equal(run("#W1", ["2000000002"], ["2000000001"]), "Error: 2000000002 not found");
  assert.equal(run("#W1", ["2000000001"], []), "Error: The number of items to be exchanged should match");
  assert.equal(
    run("#W1", ["2000000001"], ["2000000001"]),
    "Error: The new item id should be different from the old item id",
  );
  assert.equal(run("#W1", ["2000000001"], ["2000000003"]), "Error: New item 2000000003 not found or available");
  assert.equal(run("#W1", ["2000000001"], ["9999999999"]), "Error: Variant not found");
  assert.equal(run("#W1", ["2000000001"], ["2000000002"], "gift_card_404"), "Error: Payment method not found");
  assert.equal(
    run("#W12", ["2000000001"], ["2000000002"], "gift_card_2"),
    "Error: Insufficient gift card balance to pay for the new item",
  );
  assert.equal(state.get("orders", "#W1")?.status, "pending");
});
