/**
 * Replays scenarios that τ²-bench itself ran (fixtures generated with τ² at 0ed2fd8 under CPython 3.11): hand-written
 * edge cases on `edge-database.json`, and randomly generated calls on the shared `db.json`. Every observation and
 * error flag must be byte-identical, and the records changed afterwards must equal τ²'s.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { DatabaseBase } from "../../core/copy-on-write-database.js";
import { jsonEquals } from "../../core/json-value.js";
import type { RetailTables } from "./database.js";
import type { RetailState } from "./lookups.js";
import { dumpOrder, dumpProduct, dumpUser } from "./model-dump.js";
import { edgeBase, readFixture, retailBase, retailToolKit, type ReferenceScenario } from "../../../testing/tau2-retail-test-data.js";

const dumps = { products: dumpProduct, users: dumpUser, orders: dumpOrder } as const;

/** `model_dump()` of every record of `state` that differs from the base. */
function changedRecords(state: RetailState): ReferenceScenario["changed"] {
  const fresh = state.base.createState();
  const changed: ReferenceScenario["changed"] = { products: {}, users: {}, orders: {} };
  for (const table of ["products", "users", "orders"] as const) {
    const dump = dumps[table] as (record: unknown) => unknown;
    for (const id of state.touched(table)) {
      const now = dump(state.get(table, id));
      const before = fresh.get(table, id);
      if (before === undefined || !jsonEquals(now, dump(before))) changed[table][id] = now;
    }
  }
  return changed;
}

function replay(base: DatabaseBase<RetailTables>, scenarios: readonly ReferenceScenario[]): number {
  let calls = 0;
  for (const { scenario, calls: steps, changed } of scenarios) {
    const state = base.createState();
    steps.forEach((step, index) => {
      const result = retailToolKit.execute(state, step.name, step.arguments);
      const where = `${scenario} #${index} ${step.name}(${JSON.stringify(step.arguments)})`;
      assert.equal(result.content, step.observation, where);
      assert.equal(result.error, step.error, where);
      calls++;
    });
    assert.ok(jsonEquals(changedRecords(state), changed), `${scenario}: changed records differ from τ²'s`);
  }
  return calls;
}

test("edge scenarios match τ²-bench byte for byte, and leave the same records", () => {
  const calls = replay(edgeBase(), readFixture<ReferenceScenario[]>("edge-calls.json"));
  assert.ok(calls >= 80);
});

test("random scenarios on the shared database match τ²-bench byte for byte, and leave the same records", () => {
  const calls = replay(retailBase(), readFixture<ReferenceScenario[]>("real-database-calls.json"));
  assert.ok(calls >= 150);
});
