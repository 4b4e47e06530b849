/** Tests of reading `db.json` key order, which `JSON.parse` loses for 10-digit ids below 2^32. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { inFileOrder, readFileOrder } from "./file-order.js";

const text = `{
  "products": {
    "4294967296": {"name": "Zed", "variants": {"9000000001": {"note": "a \\"quoted\\" }, value"}, "1000000009": []}},
    "1000000002": {"name": "Gadget", "variants": {}},
    "1000000001": {"name": "Widget", "variants": {"5000000001": {"price": 1.5}, "2000000002": {}, "2000000001": {}}}
  },
  "users": {"u": {"variants": {"1": {}, "0": {}}}}
}`;

test("reads product and variant ids in file order", () => {
  const order = readFileOrder(text);
  assert.deepEqual(order.productIds, ["4294967296", "1000000002", "1000000001"]);
  assert.deepEqual(order.variantIds.get("4294967296"), ["9000000001", "1000000009"]);
  assert.deepEqual(order.variantIds.get("1000000002"), []);
  assert.deepEqual(order.variantIds.get("1000000001"), ["5000000001", "2000000002", "2000000001"]);
  assert.equal(order.variantIds.size, 3);
  // The JavaScript object has lost that order:
  const parsed = JSON.parse(text) as { products: Record<string, unknown> };
  assert.deepEqual(Object.keys(parsed.products), ["1000000001", "1000000002", "4294967296"]);
});

test("orders keys by a known order, unknown keys last", () => {
  assert.deepEqual(inFileOrder(["b", "c", "a", "d"], ["c", "a", "x", "b", "a"]), ["c", "a", "b", "d"]);
  assert.deepEqual(inFileOrder(["b", "a"], undefined), ["b", "a"]);
});
