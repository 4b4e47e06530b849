/** Tests of the retail `db.json` schema: the real file passes, wrong shapes are reported with their paths. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { tau2DomainDirectory } from "../../../testing/shared-data.js";
import { databaseSchema } from "./database.js";
import { fixturePath } from "../../../testing/tau2-retail-test-data.js";

function readDatabase(file: string): Record<string, Record<string, Record<string, unknown>>> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, Record<string, unknown>>>;
}

function issuePaths(value: unknown): string[] {
  const result = databaseSchema.safeParse(value);
  assert.equal(result.success, false);
  return result.error?.issues.map((issue) => issue.path.join(".")) ?? [];
}

test("the shared db.json and the edge fixture are valid", () => {
  const shared = databaseSchema.parse(readDatabase(path.join(tau2DomainDirectory("retail"), "db.json")));
  assert.equal(Object.keys(shared.products).length, 50);
  assert.equal(Object.keys(shared.users).length, 500);
  assert.equal(Object.keys(shared.orders).length, 1000);
  databaseSchema.parse(readDatabase(fixturePath("edge-database.json")));
});

test("optional order fields stay absent and may be null", () => {
  const data = readDatabase(fixturePath("edge-database.json"));
  const parsed = databaseSchema.parse(data);
  assert.equal(Object.hasOwn(parsed.orders["#W1"] as object, "cancel_reason"), false);
  assert.equal(parsed.orders["#W14"]?.exchange_price_difference, 1.75);
  (data.orders as Record<string, Record<string, unknown>>)["#W1"] = { ...data.orders?.["#W1"], cancel_reason: null };
  assert.equal(databaseSchema.parse(data).orders["#W1"]?.cancel_reason, null);
});

test("wrong shapes are reported with paths", () => {
  const data = readDatabase(fixturePath("edge-database.json"));
  const product = data.products?.["1000000001"] as { variants: Record<string, Record<string, unknown>> };
  (product.variants["2000000001"] as Record<string, unknown>).price = "10.5";
  const alice = data.users?.alice_1 as { payment_methods: Record<string, Record<string, unknown>> };
  (alice.payment_methods.paypal_1 as Record<string, unknown>).source = "bitcoin";
  const order = data.orders?.["#W1"] as Record<string, unknown>;
  order.status = "shipped";
  delete order.user_id;
  (order.payment_history as Record<string, unknown>[])[0] = { transaction_type: "payment", amount: 1 };
  assert.deepEqual(issuePaths(data).sort(), [
    "orders.#W1.payment_history.0.payment_method_id",
    "orders.#W1.status",
    "orders.#W1.user_id",
    "products.1000000001.variants.2000000001.price",
    "users.alice_1.payment_methods.paypal_1.source",
  ]);
});

test("a missing table is reported", () => {
  assert.deepEqual(issuePaths({ products: {}, users: {} }), ["orders"]);
});
