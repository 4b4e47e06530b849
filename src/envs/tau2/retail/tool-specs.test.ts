/** The tool list, order, kinds, descriptions and parameter schemas equal τ²-bench's `openai_schema` dump. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { retailDomain } from "./index.js";
import { readFixture, retailToolKit } from "../../../testing/tau2-retail-test-data.js";

test("specs equal τ²-bench's dump (fixtures/retail-tools.json), in τ²'s order", () => {
  assert.deepEqual(retailToolKit.specs(), readFixture("retail-tools.json"));
});

test("the 15 pre-v1.0 tools, without get_item_details, with τ²'s tool types", () => {
  const kinds = Object.fromEntries(retailDomain.tools.map((tool) => [tool.name, tool.kind]));
  assert.deepEqual(kinds, {
    calculate: "generic",
    cancel_pending_order: "write",
    exchange_delivered_order_items: "write",
    find_user_id_by_name_zip: "read",
    find_user_id_by_email: "read",
    get_order_details: "read",
    get_product_details: "read",
    get_user_details: "read",
    list_all_product_types: "read",
    modify_pending_order_address: "write",
    modify_pending_order_items: "write",
    modify_pending_order_payment: "write",
    modify_user_address: "write",
    return_delivered_order_items: "write",
    transfer_to_human_agents: "generic",
  });
  assert.equal(retailDomain.className, "RetailTools");
  assert.equal(retailDomain.name, "retail");
});

test("argument errors use the RetailTools class name", () => {
  const state = undefined as never;
  assert.equal(
    retailToolKit.execute(state, "get_user_details", {}).content,
    "Error: RetailTools.get_user_details() missing 1 required positional argument: 'user_id'",
  );
  assert.equal(
    retailToolKit.execute(state, "list_all_product_types", { product: "x" }).content,
    "Error: RetailTools.list_all_product_types() got an unexpected keyword argument 'product'",
  );
  assert.equal(retailToolKit.execute(state, "get_item_details", {}).content, "Error: Tool 'get_item_details' not found.");
});
