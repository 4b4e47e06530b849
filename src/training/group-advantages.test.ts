import assert from "node:assert/strict";
import { test } from "node:test";
import { groupAdvantages } from "./group-advantages.js";

test("group advantages are (r − mean) / (std + ε); a group without variance gives none", () => {
  const advantages = groupAdvantages([1, 0, 0, 1]);
  assert.ok(advantages);
  assert.deepEqual(advantages.map((value) => Number(value.toFixed(5))), [1, -1, -1, 1]);
  const skewed = groupAdvantages([0.5, 0, 0, 0])!;
  assert.ok(Math.abs(skewed.reduce((sum, value) => sum + value, 0)) < 1e-9);
  assert.ok(Math.abs(skewed[0]! - Math.sqrt(3)) < 1e-5);
  assert.equal(groupAdvantages([0.25, 0.25, 0.25]), null);
  assert.equal(groupAdvantages([]), null);
});
