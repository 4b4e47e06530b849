/** Tests of which retail result numbers print as Python floats. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonJsonDumps } from "../../core/python-json.js";
import { isRetailFloat } from "./float-paths.js";

test("every float field of data_model.py, and nothing else", () => {
  assert.ok(isRetailFloat(["variants", "2000000001", "price"]));
  assert.ok(isRetailFloat(["items", "0", "price"]));
  assert.ok(isRetailFloat(["payment_history", "3", "amount"]));
  assert.ok(isRetailFloat(["payment_methods", "gift_card_1", "balance"]));
  assert.ok(isRetailFloat(["exchange_price_difference"]));
  assert.ok(!isRetailFloat(["price"]));
  assert.ok(!isRetailFloat(["items", "0", "options", "price"]));
  assert.ok(!isRetailFloat(["payment_methods", "gift_card_1", "id"]));
});

test("integral floats print with .0", () => {
  const user = { payment_methods: { gift_card_1: { source: "gift_card", id: "gift_card_1", balance: 100 } } };
  assert.equal(
    pythonJsonDumps(user, isRetailFloat),
    '{"payment_methods": {"gift_card_1": {"source": "gift_card", "id": "gift_card_1", "balance": 100.0}}}',
  );
});
