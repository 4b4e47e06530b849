import assert from "node:assert/strict";
import { test } from "node:test";
import type { PoolEntry } from "../../baselines/gepa/candidate-pool.js";
import { bestWithin } from "./gepa-method.js";

function entry(text: string, meanScore: number, discoveredAtBudget: number): PoolEntry {
  return { candidate: { tool_use: text }, parents: [], validationScores: [meanScore], meanScore, discoveredAtBudget };
}

test("the snapshot at a budget is the best candidate discovered within it; ties keep the earlier one", () => {
  const pool = [entry("seed", 0.2, 0), entry("better", 0.5, 40), entry("best", 0.9, 100), entry("tie", 0.5, 60)];
  assert.equal(bestWithin(pool, 0).candidate.tool_use, "seed");
  assert.equal(bestWithin(pool, 39).candidate.tool_use, "seed");
  assert.equal(bestWithin(pool, 80).candidate.tool_use, "better");
  assert.equal(bestWithin(pool, 100).candidate.tool_use, "best");
});
