/** Which airline numbers print as Python floats. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pythonJsonDumps } from "../../core/python-json.js";
import { isAirlineFloat } from "./float-paths.js";

test("gift card and certificate amounts are floats, everything else is an int", () => {
  assert.equal(isAirlineFloat(["payment_methods", "gift_card_1", "amount"]), true);
  assert.equal(isAirlineFloat(["users", "u_1", "payment_methods", "certificate_1", "amount"]), true);
  assert.equal(isAirlineFloat(["payment_history", "0", "amount"]), false);
  assert.equal(isAirlineFloat(["flights", "0", "price"]), false);
  assert.equal(isAirlineFloat(["prices", "economy"]), false);
  assert.equal(isAirlineFloat(["amount"]), false);
});

test("a user's balances print as 100.0 while payments print as 100", () => {
  const user = { payment_methods: { gift_card_1: { source: "gift_card", id: "gift_card_1", amount: 100 } } };
  assert.equal(
    pythonJsonDumps(user, isAirlineFloat),
    '{"payment_methods": {"gift_card_1": {"source": "gift_card", "id": "gift_card_1", "amount": 100.0}}}',
  );
  const reservation = { payment_history: [{ payment_id: "gift_card_1", amount: 100 }] };
  assert.equal(
    pythonJsonDumps(reservation, isAirlineFloat),
    '{"payment_history": [{"payment_id": "gift_card_1", "amount": 100}]}',
  );
});
