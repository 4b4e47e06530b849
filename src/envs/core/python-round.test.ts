/** Tests of `pythonRound` against values printed by CPython 3.11. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { pythonRound } from "./python-round.js";

test("rounds exact binary ties to even, like Python", () => {
  assert.equal(pythonRound(0.125, 2), 0.12);
  assert.equal(pythonRound(0.375, 2), 0.38);
  assert.equal(pythonRound(-0.125, 2), -0.12);
  assert.equal(pythonRound(1234567.125, 2), 1234567.12);
  assert.equal(pythonRound(21.375, 2), 21.38);
  assert.equal(pythonRound(2.5, 0), 2);
  assert.equal(pythonRound(3.5, 0), 4);
  assert.equal(pythonRound(0.5, 0), 0);
});

test("rounds the exact binary value, not the decimal literal", () => {
  assert.equal(pythonRound(2.675, 2), 2.67);
  assert.equal(pythonRound(-2.675, 2), -2.67);
  assert.equal(pythonRound(1.005, 2), 1);
  assert.equal(pythonRound(0.005, 2), 0.01);
  assert.equal(pythonRound(0.015, 2), 0.01);
  assert.equal(pythonRound(0.1 + 0.2, 2), 0.3);
});

test("keeps large values, signs of zero and non-finite values", () => {
  assert.equal(pythonRound(1e22, 2), 1e22);
  assert.equal(pythonRound(4503599627370495.5, 2), 4503599627370495.5);
  assert.ok(Object.is(pythonRound(-0.001, 2), -0));
  assert.ok(Object.is(pythonRound(5e-324, 2), 0));
  assert.equal(pythonRound(Infinity, 2), Infinity);
  assert.ok(Number.isNaN(pythonRound(NaN, 2)));
  assert.equal(pythonRound(110.5 + 48.25, 2), 158.75);
  assert.equal(pythonRound(100 - 0.1, 2), 99.9);
});
