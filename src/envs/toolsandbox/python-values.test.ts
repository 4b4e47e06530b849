import assert from "node:assert/strict";
import { test } from "node:test";
import { isClose, NOT_GIVEN, PythonException, pythonEquals, pythonFixed, pythonFloat, pythonFormat, pythonInt } from "./python-values.js";

test("Python equality crosses ints, floats and bools; NOT_GIVEN equals nothing", () => {
  assert.equal(pythonEquals(1, true), true);
  assert.equal(pythonEquals({ a: [1, 2.5] }, { a: [1, 2.5] }), true);
  assert.equal(pythonEquals(null, 0), false);
  assert.equal(pythonEquals(NOT_GIVEN, NOT_GIVEN), false);
  assert.equal(isClose(1795705200.5, 1795705200, 1), true);
  assert.equal(isClose("1", 1, 1), false);
});

test("fixed-point formatting rounds the exact binary value, ties to even", () => {
  assert.equal(pythonFixed(0.125, 2), "0.12");
  assert.equal(pythonFixed(2.5, 0), "2");
  assert.equal(pythonFixed(3.5, 0), "4");
  assert.equal(pythonFixed(0.1, 3), "0.100");
  assert.equal(pythonFixed(-12.3456, 1), "-12.3");
  assert.equal(pythonFixed(1.005, 2), "1.00");
});

test("float(), int() and str.format raise Python's exception types", () => {
  assert.equal(pythonFloat(" 1_000.5 "), 1000.5);
  assert.equal(pythonInt(28.9), 28);
  assert.throws(() => pythonFloat(null), (error) => PythonException.isInstance(error) && error.pythonType === "TypeError");
  assert.throws(() => pythonInt("2.5"), (error) => PythonException.isInstance(error) && error.pythonType === "ValueError");
  assert.equal(pythonFormat("It is {days} days {{ok}}", { days: 28 }), "It is 28 days {ok}");
  assert.throws(() => pythonFormat("{missing}", {}), (error) => PythonException.isInstance(error) && error.pythonType === "KeyError");
});
