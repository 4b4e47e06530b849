/** Unit tests of `modify_pending_order_address` and `modify_user_address` on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

const address = { address1: "9 Elm St", address2: "", city: "Boston", state: "MA", country: "USA", zip: "02108" };
const dumped = { address1: "9 Elm St", address2: "", city: "Boston", country: "USA", state: "MA", zip: "02108" };

test("modify_pending_order_address: any status containing 'pending'", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "modify_pending_order_address", { order_id: "#W7", ...address });
  assert.equal(order.status, "pending (item modified)");
  assert.deepEqual(order.address, dumped);
  assert.equal(JSON.stringify(order.address), JSON.stringify(dumped));
  assert.equal(
    observe(state, "modify_pending_order_address", { order_id: "#W2", ...address }),
    "Error: Non-pending order cannot be modified",
  );
  assert.equal(observe(state, "modify_pending_order_address", { order_id: "#W404", ...address }), "Error: Order not found");
});

test("modify_user_address replaces the default address", () => {
  const state = edgeBase().createState();
  const user = observeJson(state, "modify_user_address", { user_id: "bob_2", ...address });
  assert.equal(JSON.stringify(user.address), JSON.stringify(dumped));
  assert.deepEqual(Object.keys(user), ["user_id", "name", "address", "email", "payment_methods", "orders"]);
  assert.equal(observe(state, "modify_user_address", { user_id: "nobody", ...address }), "Error: User not found");
});
