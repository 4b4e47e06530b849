import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { summarize } from "./summary-statistics.js";

describe("summarize", () => {
  test("uses the sample standard deviation", () => {
    const summary = summarize([2, 4, 4, 4, 5, 5, 7, 9]);
    assert.equal(summary.mean, 5);
    assert.ok(Math.abs(summary.standardDeviation - Math.sqrt(32 / 7)) < 1e-12);
    assert.deepEqual([summary.minimum, summary.maximum, summary.count], [2, 9, 8]);
  });

  test("gives 0 spread for one value and refuses none", () => {
    assert.deepEqual(summarize([0.4]), { count: 1, mean: 0.4, standardDeviation: 0, minimum: 0.4, maximum: 0.4 });
    assert.throws(() => summarize([]), RangeError);
  });
});
