import assert from "node:assert/strict";
import { test } from "node:test";
import { pythonFloatRepr, pythonJsonDumps } from "./python-json.js";

test("float repr matches CPython's repr(float)", () => {
  // Expected strings printed by CPython 3.11's repr().
  const cases: [number, string][] = [
    [100, "100.0"],
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [1e16, "1e+16"],
    [123456789012345.6, "123456789012345.6"],
    [2.5e-7, "2.5e-07"],
    [-0, "-0.0"],
    [1 / 3, "0.3333333333333333"],
    [50.88, "50.88"],
  ];
  for (const [value, expected] of cases) assert.equal(pythonFloatRepr(value), expected, `repr(${value})`);
});

test("json.dumps layout: separators, ensure_ascii escapes, floats by path", () => {
  const value = { a: 'héllo\n"q"\u2603\u007f\u0001', b: [1, 2, null, true], c: {} };
  const isFloat = (path: readonly string[]) => path.join(".") === "b.1";
  // Expected string printed by CPython 3.11's json.dumps.
  assert.equal(pythonJsonDumps(value, isFloat), '{"a": "h\\u00e9llo\\n\\"q\\"\\u2603\\u007f\\u0001", "b": [1, 2.0, null, true], "c": {}}');
});

test("non-integral numbers are always floats, integral ones ints unless the path says float", () => {
  assert.equal(pythonJsonDumps([1.5, 2]), "[1.5, 2]");
  assert.equal(pythonJsonDumps({ amount: 2 }, (path) => path.at(-1) === "amount"), '{"amount": 2.0}');
});
