/** The frozen base is never changed by the tools, and a write that skips `edit()` throws. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { jsonEquals } from "../../core/json-value.js";
import { databaseSchema } from "./database.js";
import { edgeBase, fixturePath, readFixture, retailToolKit, type ReferenceScenario } from "../../../testing/tau2-retail-test-data.js";

test("running every edge scenario leaves the base as loaded", () => {
  const base = edgeBase();
  const states = readFixture<ReferenceScenario[]>("edge-calls.json").map(({ calls }) => {
    const state = base.createState();
    for (const call of calls) retailToolKit.execute(state, call.name, call.arguments);
    return state;
  });
  const original = databaseSchema.parse(JSON.parse(readFileSync(fixturePath("edge-database.json"), "utf8")));
  assert.ok(jsonEquals(base.createState().toJson(), original));
  assert.ok(states.some((state) => !state.equals(base.createState())));
});

test("base records are frozen", () => {
  const state = edgeBase().createState();
  const user = state.get("users", "alice_1");
  assert.throws(() => {
    (user?.payment_methods.gift_card_1 as { balance: number }).balance = 0;
  }, TypeError);
  assert.throws(() => {
    (state.get("orders", "#W1")?.payment_history as unknown[]).push({});
  }, TypeError);
});
