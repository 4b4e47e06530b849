import assert from "node:assert/strict";
import { test } from "node:test";
import { meanHorizontal, negativeLog, numpyMean } from "./polars-arithmetic.js";

// Expected values measured with polars 0.20.31 (the version ToolSandbox's export ran).
const f32 = (value: number | null) => ({ value: value === null ? null : Math.fround(value), float32: true });
const f64 = (value: number | null) => ({ value, float32: false });

test("-log of a Float32 similarity is computed in 32 bits with e rounded to 32 bits", () => {
  assert.equal(negativeLog(f32(1 / 3)).value, 1.0986124277114868);
  assert.equal(negativeLog(f32(0.5)).value, 0.6931472420692444);
  assert.equal(negativeLog(f32(0)).value, Infinity);
  assert.equal(negativeLog(f32(1)).value, -0);
  assert.equal(negativeLog(f64(1)).value, -0);
});

test("mean_horizontal sums pairwise, in Float32 until a Float64 joins, and skips nulls in the divisor", () => {
  const [a, b, c] = [f32(0.1), f32(0.7), f32(1e-3)];
  assert.equal(meanHorizontal([a, b, c, f64(0)]), 0.2002500029921066);
  assert.equal(meanHorizontal([f64(0), a, b, c]), 0.20024999417364597);
  assert.equal(meanHorizontal([f32(0), negativeLog(f32(1 / 3)), f64(0)]), 0.3662041425704956);
  assert.equal(meanHorizontal([f32(null), f32(null)]), null);
  assert.equal(meanHorizontal([f32(null), f32(0.5)]), 0.5);
});

test("numpy's mean sums pairwise from eight elements on", () => {
  assert.equal(numpyMean([1, 2, 3]), 2);
  const values = Array.from({ length: 11 }, (_, index) => 0.1 * (index + 1));
  assert.equal(numpyMean(values), 0.6);
});
