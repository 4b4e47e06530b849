import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fitLine, meanInterval, summarize } from "./summary-statistics.js";

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

  test("gives the Student-t interval of the mean, and none for one value", () => {
    // n = 5, mean 3, sd sqrt(2.5); t(0.975, 4) = 2.7764451...; half width 2.7764451 × sqrt(2.5) / sqrt(5) = 1.9632...
    const interval = meanInterval(summarize([1, 2, 3, 4, 5]));
    assert.ok(interval !== null);
    assert.ok(Math.abs(interval.low - (3 - 1.963243)) < 1e-5 && Math.abs(interval.high - (3 + 1.963243)) < 1e-5);
    // A 90% interval is narrower: t(0.95, 4) = 2.1318468.
    const narrower = meanInterval(summarize([1, 2, 3, 4, 5]), 0.9)!;
    assert.ok(Math.abs(narrower.high - (3 + 2.1318468 * Math.sqrt(0.5))) < 1e-5);
    assert.equal(meanInterval(summarize([0.4])), null);
  });
});

describe("fitLine", () => {
  test("matches a hand computation", () => {
    // x̄ 1.5, ȳ 2.75, Sxx 5, Sxy 5.5, Syy 8.75: slope 1.1, intercept 1.1, residuals −0.1, 0.8, −1.3, 0.6 (sum of squares 2.7).
    const fit = fitLine([
      [0, 1],
      [1, 3],
      [2, 2],
      [3, 5],
    ]);
    assert.equal(fit.count, 4);
    assert.ok(Math.abs(fit.slope - 1.1) < 1e-12);
    assert.ok(Math.abs(fit.intercept - 1.1) < 1e-12);
    assert.ok(Math.abs(fit.correlation - 5.5 / Math.sqrt(5 * 8.75)) < 1e-12);
    assert.ok(Math.abs(fit.residualStandardDeviation - Math.sqrt(2.7 / 2)) < 1e-12);
  });

  test("refuses fewer than three points and a constant x", () => {
    assert.throws(() => fitLine([[0, 1], [1, 2]]), /3 or more/);
    assert.throws(() => fitLine([[2, 1], [2, 2], [2, 5]]), /every x is 2/);
  });
});
