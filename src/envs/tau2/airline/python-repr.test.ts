/** Python's repr and str of JSON values. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pythonFloatString } from "../../core/python-json.js";
import { pythonNumberString, pythonRepr, pythonStringRepr, pythonTypeName } from "./python-repr.js";

test("strings use single quotes unless they contain only single quotes", () => {
  assert.equal(pythonStringRepr("abc"), "'abc'");
  assert.equal(pythonStringRepr("it's"), `"it's"`);
  assert.equal(pythonStringRepr(`a"b'c`), `'a"b\\'c'`);
  const escaped = "'a\\\\b\\n\\t\\x00\\x7f\\x85\\xa0é\\u200b'";
  assert.equal(pythonStringRepr("a\\b\n\t\u0000\u007f\u0085\u00a0é\u200b"), escaped);
});

test("JSON values print as Python literals", () => {
  assert.equal(pythonRepr({ a: [1, 2.5, true, null], b: { c: "d" } }), "{'a': [1, 2.5, True, None], 'b': {'c': 'd'}}");
  assert.equal(pythonRepr(1e21), "1000000000000000000000");
  assert.equal(pythonNumberString(150), "150");
  assert.equal(pythonFloatString(Infinity), "inf");
  assert.equal(pythonFloatString(NaN), "nan");
  assert.equal(pythonFloatString(4), "4.0");
});

test("type names follow Python", () => {
  assert.deepEqual(
    [null, true, 1, 1.5, "s", [], {}].map(pythonTypeName),
    ["NoneType", "bool", "int", "float", "str", "list", "dict"],
  );
});
