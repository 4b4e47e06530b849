/** Unit tests of the read-only tools on the edge database. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { DatabaseBase } from "../../core/copy-on-write-database.js";
import type { RetailTables } from "./database.js";
import { edgeBase, observe, observeJson } from "../../../testing/tau2-retail-test-data.js";

test("find_user_id_by_name_zip and find_user_id_by_email ignore case, not the zip", () => {
  const state = edgeBase().createState();
  const byName = (first_name: string, last_name: string, zip: string) =>
    observe(state, "find_user_id_by_name_zip", { first_name, last_name, zip });
  assert.equal(byName("ALICE", "émond", "78701"), "alice_1");
  assert.equal(byName("Carol", "STONE", "10001"), "carol_3");
  assert.equal(byName("Alice", "Émond", "02108"), "Error: User not found");
  assert.equal(observe(state, "find_user_id_by_email", { email: "alice.emond@example.COM" }), "alice_1");
  assert.equal(observe(state, "find_user_id_by_email", { email: "nobody@example.com" }), "Error: User not found");
});

test("get_order_details, get_user_details and their errors", () => {
  const state = edgeBase().createState();
  const order = observeJson(state, "get_order_details", { order_id: "#W14" });
  assert.equal(order.exchange_price_difference, 1.75);
  assert.equal(observe(state, "get_order_details", { order_id: "#W404" }), "Error: Order not found");
  assert.match(observe(state, "get_user_details", { user_id: "bob_2" }), /"balance": 1\.0\}/);
  assert.equal(observe(state, "get_user_details", { user_id: "nobody" }), "Error: User not found");
});

test("get_product_details keeps db.json's variant order when it is known", () => {
  const state = edgeBase().createState();
  const text = observe(state, "get_product_details", { product_id: "1000000001" });
  assert.deepEqual(
    [...text.matchAll(/"(\d{10})": \{"item_id"/g)].map((match) => match[1]),
    ["5000000001", "2000000002", "2000000001", "2000000003"],
  );
  assert.match(text, /"available": false, "price": 9\.0\}/);
  assert.equal(observe(state, "get_product_details", { product_id: "2000000001" }), "Error: Product not found");
  // Without a remembered file order the variants come in JavaScript key order (still equal as JSON).
  const unordered = new DatabaseBase<RetailTables>(edgeBase().createState().toJson()).createState();
  const fallback = observe(unordered, "get_product_details", { product_id: "1000000001" });
  assert.deepEqual(JSON.parse(fallback), JSON.parse(text));
});

test("list_all_product_types: sorted names, the later duplicate in file order wins", () => {
  const state = edgeBase().createState();
  assert.equal(
    observe(state, "list_all_product_types", {}),
    '{"Gadget": "1000000002", "Widget": "1000000001", "Zed": "4294967296"}',
  );
});

test("transfer_to_human_agents", () => {
  assert.equal(observe(edgeBase().createState(), "transfer_to_human_agents", { summary: "x" }), "Transfer successful");
});
